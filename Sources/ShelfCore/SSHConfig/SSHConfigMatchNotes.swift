// SSHConfigMatchNotes: what a skipped Match block would have touched. Its `host`/`originalhost` criteria are read
// like Host patterns, so the hosts it may change are named one by one; a block whose conditions only ssh can
// decide at connect time (exec, user, localnetwork, canonical, final, all…) or whose line could not be read may
// change any host, which is said once for the block.
import FoundationEssentials

enum SSHConfigMatchNotes {
    static func notes(blocks: [SSHConfigResolver.Block], hosts: [ImportedHost]) -> [String] {
        var notes: [String] = []
        for block in blocks {
            guard let header = block.header, !header.reopened else { continue }
            let settings = Set(block.lines.filter { !SSHConfigAnnotation.isAnnotation($0.key) }.map(\.keyword)).sorted()
                .joined(separator: ", ")
            let shown = "Match \(header.arguments.joined(separator: " "))".trimmingSpaces()
            guard header.unreadable == nil, let criteria = criteria(header.arguments) else {
                notes.append(
                    "\(header.location): the skipped \(header.unreadable == nil ? "'\(shown)' block" : "Match block") "
                        + "sets \(settings) and may change any host; check them with ssh -G")
                continue
            }
            let named = criteria.filter { $0.name == "host" || $0.name == "originalhost" }
            guard !named.isEmpty else {
                notes.append(
                    "\(header.location): the skipped '\(shown)' block sets \(settings) and may change any host; check "
                        + "them with ssh -G")
                continue
            }
            for host in hosts {
                let decided = named.allSatisfy { criterion in
                    let subject = criterion.name == "host" ? host.hostname : host.alias
                    return SSHConfigResolver.hostMatches(patterns: criterion.patterns, alias: subject)
                        != criterion.negated
                }
                if decided {
                    notes.append(
                        "\(host.location): host '\(host.alias)': the skipped '\(shown)' block at \(header.location) "
                            + "may change its \(settings)")
                }
            }
        }
        return notes
    }

    struct Criterion {
        var name: String
        var negated: Bool
        var patterns: [String]
    }

    /// The criteria of a Match line, or nil when one is not a Match criterion ssh knows (ssh would refuse the line).
    static func criteria(_ arguments: [String]) -> [Criterion]? {
        let alone: Set<String> = ["all", "canonical", "final"]
        let valued: Set<String> = ["exec", "host", "originalhost", "user", "localuser", "localnetwork", "tagged"]
        var found: [Criterion] = []
        var index = 0
        while index < arguments.count {
            var word = arguments[index].lowercased()
            index += 1
            let negated = word.hasPrefix("!")
            if negated { word.removeFirst() }
            if alone.contains(word) {
                found.append(Criterion(name: word, negated: negated, patterns: []))
            } else if valued.contains(word), index < arguments.count {
                let value = arguments[index]
                index += 1
                let patterns = value.split(separator: ",").map(String.init)
                found.append(Criterion(name: word, negated: negated, patterns: patterns))
            } else {
                return nil
            }
        }
        return found.isEmpty ? nil : found
    }
}

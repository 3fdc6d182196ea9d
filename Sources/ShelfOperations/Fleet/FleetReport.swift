// FleetReport: a run's results folded for reading, as clush -b and dshbak do — every distinct output once, with
// the hosts that printed it — the counts the exit status comes from, and each host's status and the summary line in
// words (`sshelf run`, `cp` and the TUI's run pane say them alike).
import FoundationEssentials
import ShelfCore

public enum FleetReport {
    /// One distinct output (stdout and stderr both the same) and the hosts, in natural order, that gave it.
    public struct OutputGroup: Sendable {
        public var hosts: [String]
        public var stdout: [UInt8]
        public var stderr: [UInt8]
    }

    /// The outputs of the hosts that ran the command, largest group first (ties: the group of the host first in
    /// natural order first). Hosts that did
    /// not run it, or printed nothing, are left out.
    public static func groups(_ results: [FleetHostResult]) -> [OutputGroup] {
        var groups: [OutputGroup] = []
        var index: [[UInt8]: Int] = [:]
        for result in ordered(results) where !(result.stdout.isEmpty && result.stderr.isEmpty) {
            let key = result.stdout + [0] + result.stderr + [result.stderr.isEmpty ? 0 : 1]
            if let at = index[key] {
                groups[at].hosts.append(result.name)
            } else {
                index[key] = groups.count
                groups.append(OutputGroup(hosts: [result.name], stdout: result.stdout, stderr: result.stderr))
            }
        }
        return groups.enumerated().sorted {
            ($0.element.hosts.count, -$0.offset) > ($1.element.hosts.count, -$1.offset)
        }
        .map(\.element)
    }

    /// What one host's ending means for the exit status of the run (docs/FLEET.md's table, which a test reads): 0
    /// succeeded; 1 the command (or copy) failed, or the host was stopped or never started (a canary, Ctrl-C); 255
    /// the host was not reached or its command did not finish — not reached, key refused, login failed, connection
    /// lost mid-command, timed out — so a script can tell "the command said no" from "we never heard the end".
    public static func exitStatus(of outcome: FleetHostResult.Outcome) -> Int32 {
        switch outcome {
        case .succeeded: 0
        case .failed, .killed, .notStarted: 1
        case .unreachable, .hostKeyRefused, .loginFailed, .connectionLost, .timedOut: 255
        }
    }

    /// The exit status of the whole run: the highest of its hosts' (255 wins over 1: a run that could not even
    /// reach a host, or lost it, needs looking at first).
    public static func exitStatus(_ results: [FleetHostResult]) -> Int32 {
        results.map { exitStatus(of: $0.outcome) }.max() ?? 0
    }

    /// The hosts in natural order of their names (bulk-6, bulk-59, bulk-60; the id when names are equal): the one
    /// order every report of a run uses — the status lines, the JSON, the TUI's run pane.
    public static func ordered(_ results: [FleetHostResult]) -> [FleetHostResult] {
        results.sorted { precedes(($0.name, $0.hostID), ($1.name, $1.hostID)) }
    }

    /// The comparator of `ordered`, for anything else that lists a run's hosts.
    public static func precedes(_ a: (name: String, id: UUID), _ b: (name: String, id: UUID)) -> Bool {
        if a.name != b.name { return NaturalOrder.precedes(a.name, b.name) }
        return a.id.uuidString < b.id.uuidString
    }

    /// `web3: unreachable: … (10.02s)`, and the fix `exec` would give on the line after when there is one.
    public static func statusLine(_ result: FleetHostResult) -> String {
        "\(Display.safe(result.name)): \(status(result))" + fixLine(result)
    }

    private static func fixLine(_ result: FleetHostResult) -> String {
        result.fix.map { "\n    to fix: " + Display.safe($0) } ?? ""
    }

    /// How the host ended, in words: `exit 0 (0.31s)`, `unreachable: … (10.02s)`, `not started`.
    public static func status(_ result: FleetHostResult) -> String {
        status(result, seconds: result.seconds.map { TextFormat.fixed($0, places: 2) + "s" })
    }

    private static func status(_ result: FleetHostResult, seconds: String?) -> String {
        var facts: [String] = []
        if let seconds { facts.append(seconds) }
        if result.warm { facts.append("warm") }
        if result.openSSH != nil { facts.append("through OpenSSH") }
        if result.truncated { facts.append("output cut at \(FleetHostResult.outputLimit >> 20) MiB") }
        let tail = facts.isEmpty ? "" : " (\(facts.joined(separator: ", ")))"
        let error = result.error.map { ": " + Display.safe($0) } ?? ""
        switch result.outcome {
        case .succeeded where result.note != nil:
            return Display.safe(result.note ?? "") + tail
        case .succeeded, .failed:
            if let status = result.exitStatus { return "exit \(status)\(error)\(tail)" }
            return "failed\(error)\(tail)"
        case .notStarted:
            return "not started"
        default:
            return "\(result.outcome.rawValue.replacing("-", with: " "))\(error)\(tail)"
        }
    }

    /// Every host's status, folded as outputs are: hosts that ended the same way — the same outcome and words, the
    /// host's own name aside — share one line, `bulk-[1-60] (60): unreachable: the host refused the connection …
    /// (0.01-0.03s)`, with the fix `exec` would give on the line after; lines in the natural order of their first
    /// host. Sixty hosts failing alike read as one line, not sixty.
    public static func statusLines(_ results: [FleetHostResult]) -> [String] {
        struct Group {
            var names: [String] = []
            var seconds: [Double] = []
            var first: FleetHostResult
        }
        var order: [String] = []
        var groups: [String: Group] = [:]
        for result in ordered(results) {
            let name = Display.safe(result.name)
            let key = HostMention.mask(name, in: status(result, seconds: nil) + fixLine(result))
            if groups[key] == nil {
                order.append(key)
                groups[key] = Group(first: result)
            }
            groups[key]?.names.append(name)
            if let seconds = result.seconds { groups[key]?.seconds.append(seconds) }
        }
        return order.compactMap { key in
            guard let group = groups[key] else { return nil }
            let first = group.first
            guard group.names.count > 1 else { return statusLine(first) }
            var span: String? = nil
            if let low = group.seconds.min(), let high = group.seconds.max() {
                let (from, to) = (TextFormat.fixed(low, places: 2), TextFormat.fixed(high, places: 2))
                span = (from == to ? from : from + "-" + to) + "s"
            }
            let name = Display.safe(first.name)
            let head = HostMention.unmask(HostMention.mask(name, in: status(first, seconds: span)), as: "the host")
            let folded = HostMention.unmask(HostMention.mask(name, in: fixLine(first)), as: "HOST")
            return "\(HostRanges.fold(group.names)) (\(group.names.count)): \(head)\(folded)"
        }
    }

    public static func summaryLine(_ summary: FleetRun.Summary) -> String {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for result in summary.results {
            let word = result.outcome.rawValue
            if counts[word] == nil { order.append(word) }
            counts[word, default: 0] += 1
        }
        let total = summary.results.count
        var line =
            "\(total) host\(total == 1 ? "" : "s"): " + order.map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        if summary.canaryStopped { line += "; a canary host failed, so the others were not started" }
        if summary.interrupts > 0 && summary.stopsAtFirst {
            line += "; interrupted: hosts not started were left alone, running ones were stopped"
        } else if summary.interrupts == 1 {
            line += "; interrupted: hosts not started were left alone, running ones finished"
        } else if summary.interrupts > 1 {
            line += "; interrupted twice: running hosts were stopped"
        }
        return line
    }
}

/// A host's name where it stands as a word in a message about that host ("bulk-7 refused the connection"), masked so
/// that hosts failing alike fold into one line, and shown again as the name, or as "the host" for several.
enum HostMention {
    static let marker = "\u{1}"

    static func mask(_ name: String, in text: String) -> String {
        guard !name.isEmpty, text.contains(name) else { return text }
        var out = ""
        var rest = Substring(text)
        while let range = rest.firstRange(of: name) {
            let before = range.lowerBound == rest.startIndex ? out.last : rest[rest.index(before: range.lowerBound)]
            let tail = rest[range.upperBound...]
            // A dot after the name continues it only as a longer name does (`web1.example`), not a sentence's end.
            let after = tail.first == "." ? tail.dropFirst().first : tail.first
            out += rest[..<range.lowerBound]
            out += isWordCharacter(before) || isWordCharacter(after) ? name : marker
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    static func unmask(_ text: String, as word: String) -> String { text.replacing(marker, with: word) }

    /// Characters a host name is made of: a name next to one of them is part of a longer word.
    private static func isWordCharacter(_ character: Character?) -> Bool {
        guard let character else { return false }
        // A slash too: a name inside a path (`logs/web1/x`) is part of that path, not a mention of the host.
        return character.isLetter || character.isNumber || "-_./".contains(character)
    }
}

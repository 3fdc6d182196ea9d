// SSHConfigHostLines: which lines of a read ssh_config apply to a host name, in the order ssh reads them — every
// `Host` block whose patterns match the name (literal names through an index, patterns tested), the lines before the
// first `Host` line too. `Match` blocks are left out: ssh decides them when it runs. The bridge asks it what the
// user's own ~/.ssh/config already says for each of sshelf's hosts (its transparency rule, docs/SSH.md).
import FoundationEssentials

public struct SSHConfigHostLines: Sendable {
    struct Block: Sendable {
        var patterns: SSHConfigWords
        var lines: ArraySlice<SSHConfigLine>
    }

    let all: [SSHConfigLine]
    var blocks: [Block] = []
    /// Blocks whose patterns are all literal names, by case-folded name.
    var literal: [String: [Int]] = [:]
    /// Blocks with a wildcard or a negation, tested for each name.
    var patterned: [Int] = []

    public init(_ document: SSHConfigDocument) {
        all = document.lines
        var patterns: SSHConfigWords? = ["*"]
        var start = 0
        func close(_ end: Int) {
            guard let current = patterns, start < end else { return }
            let lines = all[start..<end].filter { !SSHConfigAnnotation.isAnnotation($0.key) }
            guard !lines.isEmpty else { return }
            let index = blocks.count
            blocks.append(Block(patterns: current, lines: ArraySlice(lines)))
            if current.contains(where: SSHConfigResolver.isWildcard) {
                patterned.append(index)
            } else {
                for name in Set(current.map { $0.lowercased() }) { literal[name, default: []].append(index) }
            }
        }
        for index in all.indices where all[index].key == "host" || all[index].key == "match" {
            close(index)
            start = index + 1
            patterns = all[index].key == "host" ? all[index].arguments : nil
        }
        close(all.count)
    }

    /// Every line that applies to `name`, in file order (Match blocks never).
    public func lines(for name: String) -> [SSHConfigLine] {
        var indexes = literal[name.lowercased()] ?? []
        for index in patterned where SSHConfigResolver.hostMatches(patterns: blocks[index].patterns, alias: name) {
            indexes.append(index)
        }
        return indexes.sorted().flatMap { blocks[$0].lines }
    }

    /// Whether a `Host` line names `name` itself (not only through a pattern): the file defines that host.
    public func defines(_ name: String) -> Bool { literal[name.lowercased()] != nil }
}

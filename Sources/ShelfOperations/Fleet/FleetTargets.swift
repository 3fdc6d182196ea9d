// FleetTargets: the hosts a fleet command (`sshelf run`, `sshelf cp`) names, resolved once, in the order given,
// each host once (the hosts of one group, tag or search in natural order). A target is read as every command reads
// it (TargetWord): a host name (NAME@ID, an id prefix, id:PREFIX), `@group/path` (the group and all its
// subgroups, whatever the name looks like), `tag:NAME`, or a search query — a target with a space in it, or
// `q:TEXT` — matched by the one search rule `sshelf list` uses. A hosts file lists host names, one a line. Commands
// that change or remove the hosts they name (`mv`, `rm`) take the same targets without searches: what they act on is
// named, never guessed.
import FoundationEssentials
import ShelfCore
import ShelfStore

public enum FleetTargets {
    /// One target as the user typed it and the hosts it stands for.
    public struct Resolved: Sendable {
        public var target: String
        public var hosts: [ShelfCore.Host]
    }

    /// Resolves every target in one snapshot of the store; a target that names nothing is an error (a typo must not
    /// quietly shrink the fleet). Without `searches`, a target is a host, a group or a tag, never a search.
    public static func resolve(_ targets: [String], searches: Bool = true, in store: Store) throws -> [Resolved] {
        try store.read { store in
            let tree = GroupTree(try store.groups())
            var all: [ShelfCore.Host]? = nil
            func everyHost() throws -> [ShelfCore.Host] {
                if let all { return all }
                // Natural order (bulk-6 before bulk-59), the one order every report of a run uses.
                let hosts = try store.hosts().sorted { FleetReport.precedes(($0.name, $0.id), ($1.name, $1.id)) }
                all = hosts
                return hosts
            }
            return try targets.map { target in
                Resolved(
                    target: target,
                    hosts: try hosts(for: target, searches: searches, store: store, tree: tree, everyHost: everyHost))
            }
        }
    }

    /// The hosts of a hosts file's text: a host name a line; blank lines and `#` comments are skipped.
    public static func names(inHostsFile text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let name = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingSpaces()
            return name.isEmpty ? nil : name
        }
    }

    /// The resolved hosts, each once, in the order first named.
    public static func hosts(_ resolved: [Resolved]) -> [ShelfCore.Host] {
        var seen: Set<UUID> = []
        return resolved.flatMap(\.hosts).filter { seen.insert($0.id).inserted }
    }

    private static func hosts(
        for target: String, searches: Bool, store: Store, tree: GroupTree,
        everyHost: () throws -> [ShelfCore.Host]
    ) throws -> [ShelfCore.Host] {
        let shown = Display.safe(target)
        switch TargetWord(target) {
        case .group(let path):
            // Always the group, whatever the name looks like (`@cafe` is no id prefix): one reading for every command.
            guard !path.isEmpty, let group = tree.find(path) else {
                let isID =
                    try Resolve.isIDPrefix(path.lowercased()) && !store.hosts(idPrefix: path.lowercased()).isEmpty
                throw ShelfError(
                    .notFound, path.isEmpty ? "'@' names no group" : "no group '\(Display.safe(path))'",
                    hint: isID
                        ? "a host by its id is \(ShellWord.quote(TargetWord.id(Display.safe(path))))"
                        : "see 'sshelf group list'")
            }
            let groups = tree.subtree(of: group.id).union([group.id])
            let hosts = try everyHost().filter { $0.groupID.map(groups.contains) ?? false }
            guard !hosts.isEmpty else {
                throw ShelfError(.notFound, "group '\(Display.safe(path))' and its subgroups hold no host")
            }
            return hosts
        case .tag(let tag):
            let hosts = try everyHost().filter { $0.tags.contains(tag) }
            guard !tag.isEmpty, !hosts.isEmpty else {
                throw ShelfError(
                    .notFound, "no host has the tag '\(Display.safe(tag))'",
                    hint: "tags are shown by 'sshelf list'; 'sshelf edit HOST --tag NAME' adds one")
            }
            return hosts
        case .hostID(let prefix):
            return [try Resolve.host(id: prefix.lowercased(), in: store)]
        case .search where !searches, .host:
            do {
                return [try Resolve.host(target, in: store)]
            } catch var error as ShelfError where error.kind == .notFound {
                error.hint =
                    try otherReading(of: target, searches: searches, store: store, tree: tree, everyHost: everyHost)
                    ?? error.hint
                throw error
            }
        case .search(let query):
            guard !HostQuery(query).isEmpty else {
                throw ShelfError(.usage, "the search '\(shown)' has no words", hint: "e.g. 'db fra' or q:db")
            }
            let found = try store.searchHosts(query).compactMap { try store.host(id: $0.id) }
            guard !found.isEmpty else {
                throw ShelfError(
                    .notFound, "no host matches the search '\(shown)'", hint: "try it with 'sshelf list \(shown)'")
            }
            return found.sorted { FleetReport.precedes(($0.name, $0.id), ($1.name, $1.id)) }
        }
    }

    /// What a word that names no host stands for as another kind of target — a group typed without its `@`, a tag
    /// without `tag:`, a word of the search without `q:` — as the hint to type that instead (nil: none of these).
    private static func otherReading(
        of word: String, searches: Bool, store: Store, tree: GroupTree, everyHost: () throws -> [ShelfCore.Host]
    ) throws -> String? {
        let quoted = { (target: String) in ShellWord.quote(Display.safe(target)) }
        let hosts = { (count: Int) in "\(count) host\(count == 1 ? "" : "s")" }
        if let group = tree.find(word) {
            let groups = tree.subtree(of: group.id).union([group.id])
            let count = try everyHost().filter { $0.groupID.map(groups.contains) ?? false }.count
            return "'\(Display.safe(word))' is a group: \(quoted("@" + word)) stands for its \(hosts(count))"
        }
        let tagged = try everyHost().filter { $0.tags.contains(word) }.count
        if tagged > 0 {
            return "'\(Display.safe(word))' is a tag: \(quoted("tag:" + word)) stands for the \(hosts(tagged)) with it"
        }
        guard searches else { return nil }
        let found = try store.searchHosts(word)
        guard !found.isEmpty else { return nil }
        let names = found.map(\.name).sorted(by: NaturalOrder.precedes).prefix(3).map(Display.safe)
            .joined(separator: ", ")
        return "a search for it is \(quoted("q:" + word)) (\(hosts(found.count)): \(names)"
            + (found.count > 3 ? ", …)" : ")")
    }
}

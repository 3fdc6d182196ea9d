// Resolve: finding the record a user named — hosts by name (or id prefix when names repeat), groups by
// slash path, identities by name, rules by id prefix or name — with errors that say what to type instead
// (a name several hosts share is given as NAME@ID-PREFIX).
import FoundationEssentials
import ShelfCore
import ShelfStore

public enum Resolve {
    /// The host `text` names: a name (exact, then ignoring case), else an alias, `NAME@ID-PREFIX` when several hosts
    /// share the name, or an id prefix alone. A shared name is an error listing each host as NAME@ID, so the user can
    /// pick one.
    public static func host(_ text: String, in store: Store) throws -> ShelfCore.Host {
        let named = try answering(text, in: store)
        if named.count == 1 { return named[0] }
        if named.count > 1 { throw sharedName(text, named) }
        let word = TargetWord(text)
        if case .hostID(let prefix) = word { return try host(id: prefix.lowercased(), in: store) }
        if let many = try manyHostsTarget(word, text: text, in: store) { throw many }
        if case .group(let path) = word {
            // `@NAME` is always a group (TargetWord), even when it reads as hex: never a host's id.
            throw ShelfError(
                .notFound, "no group '\(Display.safe(path))'",
                hint: try isIDPrefix(path.lowercased()) && !store.hosts(idPrefix: path.lowercased()).isEmpty
                    ? "a host by its id is \(ShellWord.quote(TargetWord.id(Display.safe(path)))) (or --id)"
                    : "see 'sshelf group list'")
        }
        if let at = text.lastIndex(of: "@") {
            let name = String(text[..<at])
            let prefix = String(text[text.index(after: at)...]).lowercased()
            let sameName = try answering(name, in: store)
            if !sameName.isEmpty, isIDPrefix(prefix) {
                let picked = sameName.filter { $0.id.uuidString.lowercased().hasPrefix(prefix) }
                if picked.count == 1 { return picked[0] }
                if picked.count > 1 { throw sharedName(name, picked) }
                throw ShelfError(
                    .notFound, "no host named '\(Display.safe(name))' has an id starting with \(Display.safe(prefix))",
                    hint: "the hosts named '\(Display.safe(name))' are \(choices(sameName))")
            }
        }
        if isIDPrefix(text.lowercased()), !(try store.hosts(idPrefix: text.lowercased())).isEmpty {
            return try host(id: text.lowercased(), in: store)
        }
        throw ShelfError(
            .notFound, "no host named '\(Display.safe(text))'",
            hint: didYouMean(try closeHostNames(text, in: store)) ?? "see 'sshelf list'")
    }

    /// `@group/path` or `tag:NAME` given where one host goes (`exec @prod`): the error saying which commands take
    /// many hosts — nil for anything else.
    static func manyHostsTarget(_ word: TargetWord, text: String, in store: Store) throws -> ShelfError? {
        let what: String
        let count: Int
        switch word {
        case .group(let path):
            let tree = GroupTree(try store.groups())
            guard let group = tree.find(path) else { return nil }
            let groups = tree.subtree(of: group.id).union([group.id])
            count = try store.hosts().filter { $0.groupID.map(groups.contains) ?? false }.count
            what = "a group"
        case .tag(let tag) where !tag.isEmpty:
            count = try store.hosts().filter { $0.tags.contains(tag) }.count
            guard count > 0 else { return nil }
            what = "a tag"
        default:
            return nil
        }
        let quoted = ShellWord.quote(Display.safe(text))
        return ShelfError(
            .usage,
            "'\(Display.safe(text))' is \(what) of \(count) host\(count == 1 ? "" : "s"); this command takes one host",
            hint: "for each of them: sshelf run \(quoted) -- COMMAND, or sshelf cp FILE \(quoted):DIR")
    }

    /// The hosts a mistyped name may have meant, for every command that takes one: names spelled closest (`bastoin`
    /// for bastion), then the search's best matches (`db` for prod-db), at most three.
    public static func closeHostNames(_ text: String, in store: Store) throws -> [String] {
        let table = try store.hostTable()
        let spelled = Suggestions.closest(to: text, among: (0..<table.count).map { table.name($0) })
        let searched = try store.searchHosts(text).prefix(3).map(\.name)
        var seen: Set<String> = []
        return (spelled + searched).filter { seen.insert($0).inserted }.prefix(3).map { $0 }
    }

    /// "did you mean: a, b?" (each name as the user may type it), or nil when nothing is close.
    static func didYouMean(_ names: [String]) -> String? {
        guard !names.isEmpty else { return nil }
        return "did you mean: \(names.map { ShellWord.quote(Display.safe($0)) }.joined(separator: ", "))?"
    }

    /// The hosts named `name`, or when none is, the hosts that have it as an alias.
    static func answering(_ name: String, in store: Store) throws -> [ShelfCore.Host] {
        let named = try store.hosts(named: name)
        return named.isEmpty ? try store.hosts(aliased: name) : named
    }

    /// The host whose id starts with `prefix` (`--id`, or `id:PREFIX`), whatever its name.
    public static func host(id prefix: String, in store: Store) throws -> ShelfCore.Host {
        guard isIDPrefix(prefix) else {
            throw ShelfError(
                .invalid, "'\(Display.safe(prefix))' is not a host id (4 or more hex digits)",
                hint: "ids are listed by 'sshelf list --json'")
        }
        let byID = try store.hosts(idPrefix: prefix)
        if byID.count == 1 { return byID[0] }
        if byID.count > 1 {
            throw ShelfError(
                .usage, "\(byID.count) hosts have an id starting with \(Display.safe(prefix)): \(choices(byID))",
                hint: "give more digits of the id")
        }
        throw ShelfError(
            .notFound, "no host has an id starting with \(Display.safe(prefix))", hint: "see 'sshelf list --json'")
    }

    static func isIDPrefix(_ text: String) -> Bool {
        text.count >= 4 && text.allSatisfy { $0.isHexDigit || $0 == "-" }
    }

    /// How a host is named so that it is found again: its name when that is the only host with it, else NAME@ID.
    public static func reference(_ host: ShelfCore.Host, in store: Store) throws -> String {
        try store.hosts(named: host.name).count > 1 ? "\(host.name)@\(Display.shortID(host.id))" : host.name
    }

    /// Several hosts answer to `name`: say which they are and how to name one, and how to end the clash.
    static func sharedName(_ name: String, _ hosts: [ShelfCore.Host]) -> ShelfError {
        let first = ShellWord.quote("\(Display.safe(hosts[0].name))@\(Display.shortID(hosts[0].id))")
        let last = ShellWord.quote(
            "\(Display.safe(hosts[hosts.count - 1].name))@\(Display.shortID(hosts[hosts.count - 1].id))")
        return ShelfError(
            .usage, "\(hosts.count) hosts are named '\(Display.safe(name))': \(choices(hosts))",
            hint:
                "say which one as NAME@ID in place of the name (e.g. \(first)), or by its id with --id ID; to end the "
                + "clash, rename one: sshelf edit \(last) --rename NEWNAME")
    }

    /// "web@3fa2c1d0 (deploy@10.0.0.1, group prod), web@9b1e22aa (10.0.0.2)".
    static func choices(_ hosts: [ShelfCore.Host]) -> String {
        hosts.map { host in
            "\(Display.safe(host.name))@\(Display.shortID(host.id)) (\(Display.safe(host.destination)))"
        }.joined(separator: ", ")
    }

    public static func group(_ path: String, tree: GroupTree) throws -> HostGroup {
        guard let group = tree.find(path) else {
            let close = Suggestions.closest(to: path, among: tree.flattened().map { tree.path(of: $0.0.id) })
            throw ShelfError(
                .notFound, "no group '\(Display.safe(path))'",
                hint: didYouMean(close)
                    ?? "see 'sshelf group list'; 'sshelf group add \(Display.safe(path))' creates it")
        }
        return group
    }

    public static func identity(_ name: String, in store: Store) throws -> Identity {
        let all = try store.identities()
        let named = all.filter { $0.name == name }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            let ids = named.map { "\(Display.shortID($0.id)) (\($0.keyType.rawValue))" }.joined(separator: ", ")
            throw ShelfError(
                .usage, "\(named.count) identities are named '\(Display.safe(name))': ids \(ids)",
                hint: "give the id instead of the name, e.g. \(Display.shortID(named[0].id))")
        }
        let prefix = name.lowercased()
        let byID = all.filter { prefix.count >= 4 && $0.id.uuidString.lowercased().hasPrefix(prefix) }
        if byID.count == 1 { return byID[0] }
        throw ShelfError(
            .notFound, "no identity named '\(Display.safe(name))'",
            hint: didYouMean(Suggestions.closest(to: name, among: all.map(\.name)))
                ?? "see 'sshelf identity list'")
    }

    public static func forwardRule(_ text: String, in store: Store) throws -> PortForwardRule {
        let rules = try store.forwardRules()
        let prefix = text.lowercased()
        let byID = rules.filter { prefix.count >= 4 && $0.id.uuidString.lowercased().hasPrefix(prefix) }
        if byID.count == 1 { return byID[0] }
        let byName = rules.filter { !$0.name.isEmpty && $0.name == text }
        if byName.count == 1 { return byName[0] }
        if byID.count + byName.count > 1 {
            throw ShelfError(
                .usage, "'\(Display.safe(text))' names more than one forward rule", hint: "use more digits of the id")
        }
        throw ShelfError(
            .notFound, "no forward rule '\(Display.safe(text))'", hint: "see 'sshelf forward list' for ids")
    }
}

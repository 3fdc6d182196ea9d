// Catalog: one loaded snapshot of the store for drawing and searching — every host in a HostTable (a compact
// column store: no Swift object per host), the group tree with per-group counts, identities and forward rules.
// Built off the input path by the app, then handed to the reducer. A catalog may be only the first screenful
// (`isComplete` false): it draws at once while the whole one loads.
import FoundationEssentials
import ShelfCore

public struct Catalog: Sendable {
    public var table: HostTable
    /// The search over `table` (the one rule `list` uses too), with this tree's group paths.
    public var matcher: HostMatcher
    public var tree: GroupTree
    public var identities: [Identity]
    public var rulesByHost: [UUID: [PortForwardRule]]
    /// Hosts in each group including its subgroups.
    public var countByGroup: [UUID: Int]
    /// Hosts whose credential (password or identity key) has a secret in this device's vault; the app fills it
    /// from the vault once that lands, so the details pane can say "not synced to this device".
    public var secretsPresent: Set<String>?
    /// The options kept for `Host` patterns (`sshelf ssh-config defaults`), for the details pane's option origins.
    public var optionDefaults: [OptionDefaults] = []
    /// The key exchange of each host's last session from this device (hosts never connected are absent).
    public var keyExchanges: [UUID: String] = [:]
    /// What a host certificate said at each host's last session from this device, when one vouched for its key.
    public var hostCertificates: [UUID: String] = [:]
    /// Saved snippets, by name (`x`).
    public var snippets: [Snippet] = []
    /// `sshelf tmux window on`: inside tmux, Enter opens the session in a new tmux window.
    public var tmuxWindow = false
    /// False while this is only the first screenful; `totalCount` is then the store's host count.
    public var isComplete: Bool
    public var totalCount: Int

    public init(
        table: HostTable, groups: [HostGroup], identities: [Identity] = [], rules: [PortForwardRule] = [],
        secretsPresent: Set<String>? = nil, isComplete: Bool = true, totalCount: Int? = nil
    ) {
        self.table = table
        tree = GroupTree(groups)
        let tree = self.tree
        matcher = HostMatcher(table: table, groupPaths: table.groupIDs.map { tree.path(of: $0) })
        self.identities = identities
        self.secretsPresent = secretsPresent
        self.isComplete = isComplete
        self.totalCount = totalCount ?? table.count
        rulesByHost = Dictionary(grouping: rules.filter { $0.hostID != nil }, by: { $0.hostID! })
        var direct = [Int](repeating: 0, count: table.groupIDs.count)
        for row in 0..<table.count {
            let g = table.groupIndex(row)
            if g >= 0 { direct[g] += 1 }
        }
        var byGroup: [UUID: Int] = [:]
        for (g, id) in table.groupIDs.enumerated() where tree.groups[id] != nil { byGroup[id] = direct[g] }
        var counts: [UUID: Int] = [:]
        if isComplete {
            for (group, _) in tree.flattened() {
                counts[group.id] = tree.subtree(of: group.id).reduce(0) { $0 + (byGroup[$1] ?? 0) }
            }
        }
        countByGroup = counts
    }

    /// A catalog of these hosts in this order (tests, and anything built in memory).
    public init(
        hosts: [ShelfCore.Host] = [], groups: [HostGroup] = [], identities: [Identity] = [],
        rules: [PortForwardRule] = [], secretsPresent: Set<String>? = nil
    ) {
        var builder = HostTableBuilder(expectedCount: hosts.count)
        for host in hosts { builder.append(host) }
        self.init(
            table: builder.finish(token: []), groups: groups, identities: identities, rules: rules,
            secretsPresent: secretsPresent)
    }

    public var count: Int { table.count }

    /// The full record of the host in row `row`.
    public func host(at row: Int) -> ShelfCore.Host { table.host(at: row) }

    public func host(_ id: UUID) -> ShelfCore.Host? { table.index(of: id).map { table.host(at: $0) } }

    public func row(of id: UUID) -> Int? { table.index(of: id) }

    /// Rows of hosts named exactly `name`.
    public func rows(named name: String) -> [Int] {
        (0..<table.count).filter { table.name($0) == name }
    }

    /// Rows of the hosts a typed name means, as the CLI takes a name: exact, else ignoring case.
    public func rows(typedName name: String) -> [Int] {
        let exact = rows(named: name)
        if !exact.isEmpty { return exact }
        let folded = name.lowercased()
        return (0..<table.count).filter { table.name($0).lowercased() == folded }
    }

    /// Names of the hosts that jump through `id`.
    public func names(jumpingThrough id: UUID) -> [String] {
        (0..<table.count).filter { table.jumps($0, through: id) }.map { table.name($0) }
    }

    /// Rows of hosts in any of these groups.
    public func rows(inGroups groups: Set<UUID>) -> [Int] {
        let wanted = Set(table.groupIDs.enumerated().filter { groups.contains($0.element) }.map(\.offset))
        return (0..<table.count).filter { wanted.contains(table.groupIndex($0)) }
    }

    /// Names of the hosts that log in with identity `id`.
    public func names(usingIdentity id: UUID) -> [String] {
        guard let index = table.identityIDs.firstIndex(of: id) else { return [] }
        return (0..<table.count).filter { table.identityIndex($0) == index }.map { table.name($0) }
    }
}

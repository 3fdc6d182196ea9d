// Catalog: one loaded snapshot of the store, prepared for drawing and searching (display strings, folded
// search text, per-group counts). Built off the input path by the app, then handed to the reducer.
import Foundation
import ShelfCore

/// A host as the list draws it, with its searchable text: name ␟ destination ␟ tags ␟ group path.
public struct HostEntry: Sendable, Equatable {
    public var name: String
    public var destination: String
    public var tags: String
    public var groupPath: String
    public var search: [UInt32]
    /// Where each field starts in `search`: destination, tags, group path (the name starts at 0).
    public var destinationStart: Int
    public var tagsStart: Int
    public var groupStart: Int

    public init(host: ShelfCore.Host, groupPath: String) {
        name = host.name
        destination = host.destination
        tags = host.tags.joined(separator: ",")
        self.groupPath = groupPath
        var text = Fuzzy.fold(name)
        destinationStart = text.count + 1
        text.append(0x1F)
        text += Fuzzy.fold(destination)
        tagsStart = text.count + 1
        text.append(0x1F)
        text += Fuzzy.fold(tags)
        groupStart = text.count + 1
        text.append(0x1F)
        text += Fuzzy.fold(groupPath)
        search = text
    }
}

public struct Catalog: Sendable {
    public var hosts: [ShelfCore.Host]
    public var entries: [HostEntry]
    public var tree: GroupTree
    public var identities: [Identity]
    public var rulesByHost: [UUID: [PortForwardRule]]
    public var indexByHostID: [UUID: Int]
    /// Hosts in each group including its subgroups.
    public var countByGroup: [UUID: Int]
    /// Hosts whose credential (password or identity key) has a secret in this device's vault; the app fills it
    /// from the vault once that lands, so the details pane can say "not synced to this device".
    public var secretsPresent: Set<String>?

    public init(hosts: [ShelfCore.Host] = [], groups: [HostGroup] = [], identities: [Identity] = [],
                rules: [PortForwardRule] = [], secretsPresent: Set<String>? = nil) {
        self.hosts = hosts
        tree = GroupTree(groups)
        self.identities = identities
        self.secretsPresent = secretsPresent
        var paths: [UUID: String] = [:]
        for group in groups { paths[group.id] = tree.path(of: group.id) }
        entries = hosts.map { HostEntry(host: $0, groupPath: $0.groupID.flatMap { paths[$0] } ?? "") }
        var index: [UUID: Int] = [:]
        for (i, host) in hosts.enumerated() { index[host.id] = i }
        indexByHostID = index
        rulesByHost = Dictionary(grouping: rules.filter { $0.hostID != nil }, by: { $0.hostID! })
        var direct: [UUID: Int] = [:]
        for host in hosts { if let g = host.groupID, tree.groups[g] != nil { direct[g, default: 0] += 1 } }
        var counts: [UUID: Int] = [:]
        for (group, _) in tree.flattened() {
            counts[group.id] = tree.subtree(of: group.id).reduce(0) { $0 + (direct[$1] ?? 0) }
        }
        countByGroup = counts
    }

    public func host(_ id: UUID) -> ShelfCore.Host? { indexByHostID[id].map { hosts[$0] } }
}

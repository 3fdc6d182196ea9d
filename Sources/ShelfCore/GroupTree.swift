// GroupTree: slash paths over the flat group records (`prod/eu`), resolved by name from the top; survives
// cycles and missing parents (treated as top level) because sync can deliver either.
import FoundationEssentials

public struct GroupTree: Sendable {
    public let groups: [UUID: HostGroup]
    // The top level apart from the children by parent: a dictionary keyed by `UUID?` would make the Swift runtime
    // scan every conformance record of the binary to find `Optional: Hashable` (at every `sshelf list`).
    private let topLevel: [HostGroup]
    private let childrenByParent: [UUID: [HostGroup]]

    public init(_ groups: [HostGroup]) {
        let byID = Dictionary(groups.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.groups = byID
        var top: [HostGroup] = []
        var children: [UUID: [HostGroup]] = [:]
        for group in byID.values {
            // A missing parent or a cycle puts the group at the top level, so it stays reachable.
            if let parent = group.parentID, byID[parent] != nil, !ModelCheck.ancestors(of: group.id, in: byID).cycle {
                children[parent, default: []].append(group)
            } else {
                top.append(group)
            }
        }
        for key in children.keys { children[key]?.sort(by: GroupTree.order) }
        topLevel = top.sorted(by: GroupTree.order)
        childrenByParent = children
    }

    /// Sort order first, then name, then id, so equal names from two devices order the same everywhere.
    public static func order(_ a: HostGroup, _ b: HostGroup) -> Bool {
        if a.sortOrder != b.sortOrder { return a.sortOrder < b.sortOrder }
        if a.name != b.name { return NaturalOrder.precedes(a.name, b.name) }
        return a.id.uuidString < b.id.uuidString
    }

    public func children(of parentID: UUID?) -> [HostGroup] {
        guard let parentID else { return topLevel }
        return childrenByParent[parentID] ?? []
    }

    /// `prod/eu` for a group; empty for nil. A cycle is cut where it repeats.
    public func path(of groupID: UUID?) -> String {
        guard let groupID, let group = groups[groupID] else { return "" }
        let (chain, _) = ModelCheck.ancestors(of: groupID, in: groups)
        // A loop, not `joined(separator:)`: the generic join makes the Swift runtime scan every conformance record
        // of the binary once per process, and `sshelf list` calls this first.
        var path = ""
        for ancestor in chain.reversed() {
            path += ancestor.name
            path += "/"
        }
        return path + group.name
    }

    /// The deepest group path sshelf creates. Deeper paths are refused with a message (a tree is for people:
    /// 32 levels is far past any real layout, and every path shown walks the whole chain).
    public static let maxDepth = 32

    /// A path the user typed, as group names from the top: "" or "/" is the top level, and one leading and one
    /// trailing '/' are allowed. Empty segments ('a//b'), '.' and '..' (paths are absolute; there is no
    /// relative part) and paths deeper than `maxDepth` are refused, naming what is wrong.
    public static func parsePath(_ path: String) throws(ValidationError) -> [String] {
        var text = Substring(path)
        if text.hasPrefix("/") { text = text.dropFirst() }
        if text.hasSuffix("/") { text = text.dropLast() }
        let shown = path.count > 60 ? String(path.prefix(60)) + "…" : path
        guard !text.isEmpty else {
            guard path.count <= 1 else {
                throw ValidationError(
                    field: "group", message: "group path '\(shown)' has an empty part (two '/' in a row)")
            }
            return []
        }
        let names = text.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.trimmingSpaces()
        }
        guard names.count <= maxDepth else {
            throw ValidationError(
                field: "group",
                message: "group path '\(shown)' is \(names.count) levels deep; sshelf allows up to \(maxDepth)")
        }
        for name in names {
            if name.isEmpty {
                throw ValidationError(
                    field: "group", message: "group path '\(shown)' has an empty part (two '/' in a row)")
            }
            if name == "." || name == ".." {
                throw ValidationError(
                    field: "group",
                    message: "group path '\(shown)' contains '\(name)': a path names groups from the top, it "
                        + "has no relative parts")
            }
        }
        return names
    }

    /// Lenient split for looking a path up (a path that cannot exist simply finds nothing).
    public static func components(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map {
            $0.trimmingSpaces()
        }.filter { !$0.isEmpty }
    }

    /// Finds the group at a path; with two groups of the same name the first in sort order wins.
    public func find(_ path: String) -> HostGroup? {
        var parent: UUID? = nil
        var found: HostGroup? = nil
        for name in Self.components(path) {
            guard let next = children(of: parent).first(where: { $0.name == name }) else { return nil }
            found = next
            parent = next.id
        }
        return found
    }

    /// Every group in display order, depth-first, with its depth.
    public func flattened() -> [(group: HostGroup, depth: Int)] {
        var result: [(HostGroup, Int)] = []
        var visited: Set<UUID> = []
        func walk(_ parent: UUID?, _ depth: Int) {
            for child in children(of: parent) where visited.insert(child.id).inserted {
                result.append((child, depth))
                walk(child.id, depth + 1)
            }
        }
        walk(nil, 0)
        return result
    }

    /// The group and all its descendants.
    public func subtree(of groupID: UUID) -> Set<UUID> {
        var result: Set<UUID> = [groupID]
        var queue = [groupID]
        while let id = queue.popLast() {
            for child in children(of: id) where result.insert(child.id).inserted { queue.append(child.id) }
        }
        return result
    }
}

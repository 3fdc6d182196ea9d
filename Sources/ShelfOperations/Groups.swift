// Groups: creating a path of groups, placing a group (rename, move, new) with the cycle check, and deleting a
// group with what it holds — the same rules for `sshelf group …`, `--group` and the TUI's group form.
import FoundationEssentials
import ShelfCore
import ShelfStore

public enum GroupOperations {
    /// Finds the group at `path`, creating missing groups along the way (inside the caller's transaction, or
    /// its own). nil for the top level. The path is checked first (no '.', '..', empty parts, or more than
    /// GroupTree.maxDepth levels); the tree is read once, so the work grows with the path's length.
    @discardableResult
    public static func create(_ path: String, in store: Store) throws -> HostGroup? {
        let names = try GroupTree.parsePath(path)
        guard !names.isEmpty else { return nil }
        return try store.write { store in
            let tree = GroupTree(try store.groups())
            var parent: HostGroup? = nil
            var creating = false
            for name in names {
                if !creating, let existing = tree.children(of: parent?.id).first(where: { $0.name == name }) {
                    parent = existing
                    continue
                }
                let siblings = creating ? [] : tree.children(of: parent?.id)
                let group = HostGroup(
                    name: name, parentID: parent?.id, sortOrder: (siblings.map(\.sortOrder).max() ?? -1) + 1)
                let problems = Validation.problems(group)
                guard problems.isEmpty else { throw ShelfError.invalid(problems) }
                try store.save(group)
                parent = group
                creating = true
            }
            return parent
        }
    }

    /// What placing a group did.
    public struct Placed: Sendable {
        public var group: HostGroup
        public var existed: Bool
        /// Its path before and after.
        public var oldPath: String
        public var path: String
    }

    /// Saves `group` (new or existing, perhaps renamed) under the group at `parentPath`, creating missing
    /// parents. Refused: a move into its own subtree (a cycle), and a name another group already has there.
    public static func place(_ group: HostGroup, under parentPath: String, in store: Store) throws -> Placed {
        let parentNames = try GroupTree.parsePath(parentPath)
        return try store.write { store in
            var group = group
            let tree = GroupTree(try store.groups())
            let existed = tree.groups[group.id] != nil
            let oldPath = tree.path(of: group.id)
            let shownParent = parentNames.joined(separator: "/")
            let newPath = (parentNames + [group.name]).joined(separator: "/")
            if existed {
                // Refuse before creating anything: moving a group into its own subtree would make a cycle.
                // (Also by path, for a parent that does not exist yet and would be created inside it.)
                let cycle = tree.find(shownParent).map {
                    ModelCheck.wouldCycle(group: group.id, parent: $0.id, in: tree.groups)
                }
                if cycle == true || shownParent == oldPath || shownParent.hasPrefix(oldPath + "/") {
                    throw ShelfError(.invalid, "cannot move '\(Display.safe(oldPath))' inside itself")
                }
            }
            if let other = tree.find(newPath), other.id != group.id {
                throw ShelfError(
                    .invalid, "group '\(Display.safe(newPath))' already exists",
                    hint: "choose another name, or move the hosts with 'sshelf mv NAME --group PATH'")
            }
            let parent = try create(shownParent, in: store)
            if !existed || group.parentID != parent?.id {
                let siblings = GroupTree(try store.groups()).children(of: parent?.id).filter { $0.id != group.id }
                group.sortOrder = (siblings.map(\.sortOrder).max() ?? -1) + 1
            }
            group.parentID = parent?.id
            if existed { group.updatedAt = Date() }
            let problems = Validation.problems(group)
            guard problems.isEmpty else { throw ShelfError.invalid(problems) }
            try store.save(group)
            return Placed(group: group, existed: existed, oldPath: oldPath, path: newPath)
        }
    }

    /// Sets a group's `pq` setting (every host in it and its subgroups follows a `require`).
    public static func setPostQuantum(_ setting: PostQuantumSetting, of id: UUID, in store: Store) throws {
        try store.write { store in
            guard var group = try store.groups().first(where: { $0.id == id }) else {
                throw ShelfError(.notFound, "the group no longer exists")
            }
            guard group.pq != setting else { return }
            group.pq = setting
            group.updatedAt = Date()
            try store.save(group)
        }
    }

    /// What deleting a group took along.
    public struct Deleted: Sendable {
        public var path: String
        public var deletion: Store.GroupDeletion
        public var summary: String {
            var text = "deleted group \(Display.safe(path))"
            if deletion.subgroups > 0 || deletion.hosts > 0 {
                text +=
                    " with \(deletion.subgroups) subgroup(s), \(deletion.hosts) host(s) and \(deletion.rules) forward "
                    + "rule(s)"
            }
            return text
        }
    }

    /// Deletes a group; one that holds hosts or groups only when `recursive` (then with all of them and their
    /// forward rules). nil when it was already gone.
    public static func delete(_ id: UUID, recursive: Bool, in store: Store) throws -> Deleted? {
        try store.write { store in
            let tree = GroupTree(try store.groups())
            guard tree.groups[id] != nil else { return nil }
            let path = tree.path(of: id)
            let subtree = tree.subtree(of: id)
            let hosts = try store.hosts().filter { $0.groupID.map(subtree.contains) ?? false }.count
            let subgroups = subtree.count - 1
            if (hosts > 0 || subgroups > 0) && !recursive {
                throw ShelfError(
                    .usage,
                    "group '\(Display.safe(path))' holds \(Display.count(hosts, "host")) and "
                        + "\(Display.count(subgroups, "group"))",
                    hint: "move them out first ('sshelf mv NAME --group PATH'), or pass --recursive to remove them too")
            }
            return Deleted(path: path, deletion: try store.deleteGroupTree(id))
        }
    }
}

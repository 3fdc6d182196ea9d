// StoreCascade: deletes that take what depends on them along (a host's forward rules; a group's subgroups and
// their hosts; an identity's place on the hosts using it), shared by the CLI and the TUI. Call inside `write`
// so it all happens or none of it does.
import FoundationEssentials
import ShelfCore

extension Store {
    /// Deletes a host and its forward rules; returns how many rules went with it (nil when the host is gone).
    public func deleteHostWithRules(_ id: UUID) throws -> Int? {
        guard try host(id: id) != nil else { return nil }
        let rules = try forwardRules(hostID: id)
        for rule in rules { try deleteForwardRule(rule.id) }
        try deleteHost(id)
        return rules.count
    }

    /// What deleting a group takes along: its subgroups, the hosts in any of them, and their forward rules.
    public struct GroupDeletion: Sendable {
        public var subgroups = 0
        public var hosts = 0
        public var rules = 0
    }

    /// Deletes a group, everything below it, and the hosts (with their rules) in any of those groups.
    public func deleteGroupTree(_ id: UUID) throws -> GroupDeletion {
        let tree = GroupTree(try groups())
        let subtree = tree.subtree(of: id)
        var deletion = GroupDeletion(subgroups: subtree.count - 1)
        for host in try hosts() where host.groupID.map(subtree.contains) ?? false {
            deletion.rules += try deleteHostWithRules(host.id) ?? 0
            deletion.hosts += 1
        }
        for groupID in subtree { try deleteGroup(groupID) }
        return deletion
    }

    /// Deletes an identity; the hosts using it keep everything but the identity. Returns how many hosts were
    /// cleared (nil when the identity is gone).
    public func deleteIdentityClearingHosts(_ id: UUID) throws -> Int? {
        guard try identities().contains(where: { $0.id == id }) else { return nil }
        let users = try hosts().filter { $0.identityID == id }
        for var host in users {
            host.identityID = nil
            host.updatedAt = now()
            try save(host)
        }
        try deleteIdentity(id)
        return users.count
    }
}

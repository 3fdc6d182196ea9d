// ModelCheck: problems that span records — group and jump cycles, references to records that are gone.
// Such records are kept (another device may still send the missing half) and reported, never dropped.
import Foundation

public struct ModelProblem: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable { case groupCycle, missingParent, jumpCycle, missingJumpHost, orphanForward,
        missingIdentity, missingGroup, invalidField }
    public var kind: Kind
    public var recordID: UUID
    public var message: String
    public var description: String { message }
}

public enum ModelCheck {
    /// The chain of ancestors of a group, nearest first; stops (and reports) at a cycle or a missing parent.
    public static func ancestors(of groupID: UUID, in groups: [UUID: HostGroup]) -> (chain: [HostGroup], cycle: Bool) {
        var chain: [HostGroup] = []
        var seen: Set<UUID> = [groupID]
        var next = groups[groupID]?.parentID
        while let id = next, let group = groups[id] {
            if !seen.insert(id).inserted { return (chain, true) }
            chain.append(group)
            next = group.parentID
        }
        return (chain, false)
    }

    /// Whether making `parentID` the parent of `groupID` would create a cycle.
    public static func wouldCycle(group groupID: UUID, parent parentID: UUID?, in groups: [UUID: HostGroup]) -> Bool {
        var next = parentID
        var seen: Set<UUID> = []
        while let id = next {
            if id == groupID || !seen.insert(id).inserted { return true }
            next = groups[id]?.parentID
        }
        return false
    }

    /// Follows jump chains depth-first; returns the path that loops back, if any.
    public static func jumpCycle(from hostID: UUID, in hosts: [UUID: Host]) -> [UUID]? {
        var path: [UUID] = []
        var onPath: Set<UUID> = []
        var done: Set<UUID> = []
        func visit(_ id: UUID) -> Bool {
            if onPath.contains(id) { path.append(id); return true }
            if done.contains(id) { return false }
            onPath.insert(id)
            path.append(id)
            for next in hosts[id]?.jumpHostIDs ?? [] where visit(next) { return true }
            path.removeLast()
            onPath.remove(id)
            done.insert(id)
            return false
        }
        return visit(hostID) ? path : nil
    }

    public static func problems(groups: [HostGroup], hosts: [Host], identities: [Identity], rules: [PortForwardRule])
        -> [ModelProblem]
    {
        let groupsByID = Dictionary(groups.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let hostsByID = Dictionary(hosts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let identityIDs = Set(identities.map(\.id))
        var found: [ModelProblem] = []
        for group in groups {
            for error in Validation.problems(group) {
                found.append(ModelProblem(kind: .invalidField, recordID: group.id, message: "group '\(group.name)': \(error)"))
            }
            if ancestors(of: group.id, in: groupsByID).cycle {
                found.append(ModelProblem(kind: .groupCycle, recordID: group.id,
                                          message: "group '\(group.name)' is inside itself (its parents form a cycle)"))
            } else if let parent = group.parentID, groupsByID[parent] == nil {
                found.append(ModelProblem(kind: .missingParent, recordID: group.id,
                                          message: "group '\(group.name)' has a parent that no longer exists; it is shown at the top level"))
            }
        }
        for host in hosts {
            for error in Validation.problems(host) {
                found.append(ModelProblem(kind: .invalidField, recordID: host.id, message: "host '\(host.name)': \(error)"))
            }
            if let cycle = jumpCycle(from: host.id, in: hostsByID) {
                let names = cycle.map { hostsByID[$0]?.name ?? $0.uuidString }
                found.append(ModelProblem(kind: .jumpCycle, recordID: host.id,
                                          message: "host '\(host.name)': jump chain loops (\(names.joined(separator: " -> ")))"))
            }
            for jump in host.jumpHostIDs where hostsByID[jump] == nil {
                found.append(ModelProblem(kind: .missingJumpHost, recordID: host.id,
                                          message: "host '\(host.name)': jump host \(jump.uuidString.lowercased()) no longer exists"))
            }
            if let identity = host.identityID, !identityIDs.contains(identity) {
                found.append(ModelProblem(kind: .missingIdentity, recordID: host.id,
                                          message: "host '\(host.name)': its identity no longer exists"))
            }
            if let group = host.groupID, groupsByID[group] == nil {
                found.append(ModelProblem(kind: .missingGroup, recordID: host.id,
                                          message: "host '\(host.name)': its group no longer exists; it is shown at the top level"))
            }
        }
        for rule in rules {
            let label = rule.name.isEmpty ? "-\(rule.spec.flag) \(rule.spec)" : rule.name
            for error in Validation.problems(rule) {
                found.append(ModelProblem(kind: .invalidField, recordID: rule.id, message: "forward \(label): \(error)"))
            }
            if rule.hostID.flatMap({ hostsByID[$0] }) == nil {
                found.append(ModelProblem(kind: .orphanForward, recordID: rule.id,
                                          message: "forward \(label): its host was deleted; the rule is kept until you remove it (sshelf forward rm \(rule.id.uuidString.lowercased().prefix(8)))"))
            }
        }
        return found
    }
}

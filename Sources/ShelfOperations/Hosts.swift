// Hosts: saving a host (field rules, its group path, the jump-chain cycle check against the stored hosts) and
// deleting hosts with their forward rules — the same rules for `sshelf add|edit|mv|rm` and the TUI's forms.
import Foundation
import ShelfCore
import ShelfStore

public enum HostOperations {
    public struct Saved: Sendable {
        public var host: ShelfCore.Host
        public var existed: Bool
    }

    /// Saves `host`, new or changed, in one transaction. With `groupPath` its group is set to that path (missing
    /// groups created; "" or "/" for the top level); without, it stays as it is.
    public static func save(_ host: ShelfCore.Host, groupPath: String?, in store: Store) throws -> Saved {
        try store.write { store in
            var host = host
            let existed = try store.host(id: host.id) != nil
            if let groupPath { host.groupID = try GroupOperations.create(groupPath, in: store)?.id }
            if existed { host.updatedAt = Date() }
            try validate(host, in: store)
            try store.save(host)
            return Saved(host: host, existed: existed)
        }
    }

    /// Field rules plus the jump-chain cycle check against the hosts already stored.
    public static func validate(_ host: ShelfCore.Host, in store: Store) throws {
        var problems = Validation.problems(host)
        if problems.isEmpty, !host.jumpHostIDs.isEmpty {
            var byID = Dictionary(try store.hosts().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            byID[host.id] = host
            if let cycle = ModelCheck.jumpCycle(from: host.id, in: byID) {
                let names = cycle.map { byID[$0]?.name ?? "?" }.joined(separator: " -> ")
                problems.append(ValidationError(field: "jump", message: "jump chain would loop: \(names)"))
            }
        }
        guard problems.isEmpty else { throw ShelfError.invalid(problems) }
    }

    /// What deleting one host took along, and who still jumps through it.
    public struct Deleted: Sendable {
        public var name: String
        public var rules: Int
        public var dependents: [String]
        public var summary: String {
            var line = "deleted \(Display.safe(name))"
            if rules > 0 { line += " and its \(Display.count(rules, "forward rule"))" }
            if !dependents.isEmpty {
                line += "; note: \(dependents.map(Display.safe).joined(separator: ", ")) jumped through it (see 'sshelf check')"
            }
            return line
        }
    }

    /// Deletes hosts (each once) with their forward rules, in one transaction; hosts already gone are skipped.
    public static func delete(_ ids: [UUID], in store: Store) throws -> [Deleted] {
        try store.write { store in
            var deleted: [Deleted] = []
            var seen: Set<UUID> = []
            for id in ids where seen.insert(id).inserted {
                guard let host = try store.host(id: id), let rules = try store.deleteHostWithRules(id) else { continue }
                let dependents = try store.hosts().filter { $0.jumpHostIDs.contains(id) }.map(\.name)
                deleted.append(Deleted(name: host.name, rules: rules, dependents: dependents))
            }
            return deleted
        }
    }
}

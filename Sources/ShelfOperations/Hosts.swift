// Hosts: saving a host (field rules, a name no other host has, its group path, the jump-chain cycle check against
// the stored hosts) and deleting hosts with their forward rules, refused while other hosts jump through them unless
// forced — the same rules for `sshelf add|edit|mv|rm`, import and the TUI's forms.
import FoundationEssentials
import ShelfCore
import ShelfStore

public enum HostOperations {
    public struct Saved: Sendable {
        public var host: ShelfCore.Host
        public var existed: Bool
    }

    /// Saves `host`, new or changed, in one transaction. With `groupPath` its group is set to that path (missing
    /// groups created; "" or "/" for the top level); without, it stays as it is. A new host, or a renamed one, may
    /// not take a name another host has (compared ignoring case) unless `allowDuplicateName`: the name is what every
    /// command and the TUI's search find it by. Hosts that already share a name (sync can bring that) stay editable.
    public static func save(
        _ host: ShelfCore.Host, groupPath: String?, allowDuplicateName: Bool = false,
        in store: Store
    ) throws -> Saved {
        try store.write { store in
            var host = host
            let before = try store.host(id: host.id)
            if let groupPath { host.groupID = try GroupOperations.create(groupPath, in: store)?.id }
            if before != nil { host.updatedAt = Date() }
            try validate(host, in: store)
            if !allowDuplicateName {
                // Names and aliases are unique together: each name the host newly answers to is checked against the
                // names and aliases of every other host.
                for name in host.names where !(before?.answers(to: name) ?? false) {
                    if let other = try hostHolding(name, besides: host.id, in: store) {
                        throw NameTaken(name: name, other: other, isAlias: name != host.name)
                    }
                }
            }
            try store.save(host)
            return Saved(host: host, existed: before != nil)
        }
    }

    /// Another host already answering to `name` — its name or one of its aliases, ignoring case — if any.
    public static func hostHolding(_ name: String, besides id: UUID?, in store: Store) throws -> ShelfCore.Host? {
        try store.hosts(answeringTo: name).first { $0.id != id }
    }

    /// The unique-name rule refused a save; `other` is the host that has the name.
    public struct NameTaken: Error, Sendable {
        public var name: String
        public var other: ShelfCore.Host
        /// The name taken is one of the aliases being saved, not the host's name.
        public var isAlias = false

        public var message: String {
            let what = isAlias ? "alias '\(Display.safe(name))': " : ""
            let holds =
                other.name.caseInsensitiveASCIIEquals(name)
                ? "a host named '\(Display.safe(other.name))' already exists"
                : "'\(Display.safe(name))' is already an alias of host '\(Display.safe(other.name))'"
            return "\(what)\(holds) (\(Display.safe(other.destination)), id \(Display.shortID(other.id)))"
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
                line +=
                    "; note: \(dependents.map(Display.safe).joined(separator: ", ")) jumped through it (see "
                    + "'sshelf check')"
            }
            return line
        }
    }

    /// Deletes hosts (each once) with their forward rules, in one transaction; hosts already gone are skipped. With
    /// `refuseIfJumpedThrough`, nothing is deleted while a host that stays jumps through one of them (deleting a
    /// jump host and everything behind it together is fine).
    public static func delete(_ ids: [UUID], refuseIfJumpedThrough: Bool = false, in store: Store) throws -> [Deleted] {
        try store.write { store in
            if refuseIfJumpedThrough {
                let leaving = Set(ids)
                let staying = try store.hosts().filter { !leaving.contains($0.id) }
                var blocked: [StillJumpedThrough.Jump] = []
                for id in ids.reduce(into: [UUID](), { if !$0.contains($1) { $0.append($1) } }) {
                    guard let host = try store.host(id: id) else { continue }
                    let users = staying.filter { $0.jumpHostIDs.contains(id) }
                    if !users.isEmpty {
                        blocked.append(
                            .init(
                                host: try Resolve.reference(host, in: store),
                                dependents: try users.map { try Resolve.reference($0, in: store) }))
                    }
                }
                if !blocked.isEmpty { throw StillJumpedThrough(jumps: blocked) }
            }
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

    /// A delete refused because other hosts connect through the hosts named (NAME or NAME@ID, as commands take them).
    public struct StillJumpedThrough: Error, Sendable {
        public struct Jump: Sendable {
            public var host: String
            public var dependents: [String]
        }
        public var jumps: [Jump]

        public var message: String {
            let which = jumps.map { jump in
                let shown = jump.dependents.prefix(5).map { "'\(Display.safe($0))'" }.joined(separator: ", ")
                let more = jump.dependents.count > 5 ? " and \(jump.dependents.count - 5) more" : ""
                let verb = jump.dependents.count == 1 ? "jumps" : "jump"
                return "\(shown)\(more) \(verb) through '\(Display.safe(jump.host))'"
            }.joined(separator: "; ")
            let count = Set(jumps.flatMap(\.dependents)).count
            return "\(which): removing \(jumps.count == 1 ? "it" : "them") would leave "
                + "\(count == 1 ? "that host" : "those \(count) hosts") unable to connect; nothing was removed"
        }

        public var hint: String {
            let first = jumps[0]
            return "give \(jumps.flatMap(\.dependents).count == 1 ? "it" : "each") another jump first (sshelf edit "
                + "\(ShellWord.quote(Display.safe(first.dependents[0]))) --jump NAME, or --jump '' for none)"
        }
    }
}

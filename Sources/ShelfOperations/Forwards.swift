// Forwards: saving and deleting forward rules — for `sshelf forward …` and the TUI's forward form and `d`.
import FoundationEssentials
import ShelfCore
import ShelfStore

public enum ForwardOperations {
    /// Saves a rule of an existing host after the field rules; returns the host's name.
    public static func save(_ rule: PortForwardRule, in store: Store) throws -> String {
        try store.write { store in
            guard let hostID = rule.hostID, let host = try store.host(id: hostID) else {
                throw ShelfError(.notFound, "the host of this forward rule is gone")
            }
            let problems = Validation.problems(rule)
            guard problems.isEmpty else { throw ShelfError.invalid(problems) }
            try store.save(rule)
            return host.name
        }
    }

    /// Deletes a rule (`sshelf forward rm`, the TUI's `d`): the rule as it was, nil when it was already gone.
    @discardableResult
    public static func delete(_ id: UUID, in store: Store) throws -> PortForwardRule? {
        try store.write { store in
            guard let rule = try store.forwardRules().first(where: { $0.id == id }) else { return nil }
            try store.deleteForwardRule(id)
            return rule
        }
    }
}

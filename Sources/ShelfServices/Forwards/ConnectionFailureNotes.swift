// ConnectionFailureNotes: the connections a running forward could not carry since it last looked, as lines for its
// stderr — `ssh -L` prints "open failed: connect failed" for each; a `forward start` that said nothing left the user
// guessing why the port answered and closed at once (the reason was only in `forward status`). One line per rule and
// look, with how many failed since the last line when more than one did.
import FoundationEssentials
import ShelfCore
import ShelfOperations

public final class ConnectionFailureNotes {
    private var seen: [UUID: Int] = [:]

    public init() {}

    /// The lines for what failed since the last call (a rule's count that went down, a new session's, starts over).
    public func lines(_ rules: [RuleState]) -> [String] {
        rules.compactMap { rule in
            let before = seen[rule.ruleID] ?? 0
            seen[rule.ruleID] = rule.failedConnections
            let new = rule.failedConnections - before
            guard new > 0, let error = rule.lastError else { return nil }
            let more = new > 1 ? " (\(new) connections failed since the last note)" : ""
            return "sshelf: \(Display.safe(rule.spec)): \(Display.safe(error))\(more)\n"
        }
    }
}

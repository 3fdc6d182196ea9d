// FleetGuard: when a fleet command must be confirmed before it starts — more hosts than `confirmAbove`, or any host
// tagged `protected`. The tag is the whole model: it is a host's own field, so it syncs and exports as tags do, and
// protecting a group means tagging its hosts (`sshelf list @prod` shows which are). The confirmation is typed, like
// a changed-key dialog: the number of hosts, so a reflex "y" does not pass.
import FoundationEssentials
import ShelfCore

public enum FleetGuard {
    /// Runs on more hosts than this ask first (docs/FLEET.md).
    public static let confirmAbove = 10
    /// The tag that marks a host a run must be confirmed for, however small the run.
    public static let protectedTag = "protected"

    /// Whether the host carries the tag, in any case (`Protected`, `PROTECTED`): a guard must not hang on a capital.
    public static func isProtected(_ host: ShelfCore.Host) -> Bool {
        host.tags.contains { $0.lowercased() == protectedTag }
    }

    /// Why this run needs a confirmation (nil: it does not).
    public static func reason(_ hosts: [ShelfCore.Host]) -> String? {
        let protected = hosts.filter(isProtected).map { Display.safe($0.name) }
        var reasons: [String] = []
        if hosts.count > confirmAbove { reasons.append("it reaches \(hosts.count) hosts (more than \(confirmAbove))") }
        if !protected.isEmpty {
            let list = protected.prefix(5).joined(separator: ", ") + (protected.count > 5 ? ", …" : "")
            let who = protected.count == 1 ? "a host is" : "\(protected.count) hosts are"
            reasons.append("\(who) tagged \(protectedTag) (\(list))")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: ", and ")
    }

    /// What the user must type to go ahead.
    public static func answer(_ hosts: [ShelfCore.Host]) -> String { String(hosts.count) }
}

// Forwards: saving and deleting forward rules, and the one rule about where they may listen — for `sshelf
// forward …` and the TUI's forward form.
import FoundationEssentials
import ShelfCore
import ShelfStore

public enum ForwardOperations {
    public static func isLoopback(_ address: String) -> Bool {
        address == "localhost" || address == "::1" || address.hasPrefix("127.")
    }

    /// Listening on a non-loopback address exposes the port to the network: only with explicit consent. For -R
    /// the bind address is on the server, whose sshd decides (GatewayPorts); the guard is for ports we open.
    public static func checkBindAddresses(_ rules: [PortForwardRule], allowPublic: Bool) throws {
        guard !allowPublic else { return }
        for rule in rules where rule.kind != .remote && !isLoopback(rule.bindAddress) {
            throw ShelfError(
                .usage,
                "rule -\(rule.spec.flag) \(rule.spec) listens on \(Display.safe(rule.bindAddress)), which is not loopback: port \(rule.bindPort) would be reachable from the network",
                hint: "pass --allow-public-bind if that is what you want")
        }
    }

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
}

// ForwardStatus: what a running forward reports — where it listens, connection and byte counts, the last
// connection error. Plain values, safe to copy to another thread or write to a state file.
import FoundationEssentials
import ShelfCore

public struct ForwardStatus: Sendable, Codable, Equatable {
    public var ruleID: UUID
    /// The rule in OpenSSH's spelling, e.g. `-L 127.0.0.1:8080:db:5432`.
    public var spec: String
    /// The port actually listening (differs from the rule's only when it asked for 0).
    public var boundPort: Int
    public var activeConnections: Int = 0
    public var totalConnections: Int = 0
    public var failedConnections: Int = 0
    /// Bytes from the local side toward the far side, and back.
    public var bytesOut: Int64 = 0
    public var bytesIn: Int64 = 0
    public var lastError: String?
    /// When `lastError` happened (the pool keeps the newest of its sessions' errors).
    public var lastErrorAt: Date?
    /// Connections each session has carried, in session order, for a rule spread over more than one session.
    public var connectionsPerSession: [Int]?

    public init(rule: PortForwardRule, boundPort: Int) {
        ruleID = rule.id
        spec = "-\(rule.spec.flag) \(rule.spec)"
        self.boundPort = boundPort
    }
}

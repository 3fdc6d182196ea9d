// PortForwardRule: one -L/-R/-D rule of a host, related by a flat hostID so it survives (and is reported)
// when its host is deleted on another device.
import FoundationEssentials

public struct PortForwardRule: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    public var hostID: UUID?
    public var name: String
    public var kind: ForwardKind
    public var bindAddress: String
    public var bindPort: Int
    /// Empty for dynamic (SOCKS) forwards; a unix socket's path (with its port 0) when it has a `/`, as does
    /// `bindAddress` for a -R rule that listens on a socket on the server (ForwardSpec).
    public var targetHost: String
    public var targetPort: Int
    public var autostart: Bool
    public var enabled: Bool
    /// How many SSH sessions (each a login and a thread) carry this rule's connections; more than one spreads
    /// parallel connections over them (-L and -D only: for -R the server chooses the session).
    public var sessions: Int
    public var updatedAt: Date
    public var extra: [String: JSONValue]

    public static let defaultBindAddress = "127.0.0.1"
    public static let sessionLimit = 16

    public init(
        id: UUID = UUID(), hostID: UUID? = nil, name: String = "", kind: ForwardKind = .local,
        bindAddress: String = PortForwardRule.defaultBindAddress, bindPort: Int = 0, targetHost: String = "",
        targetPort: Int = 0, autostart: Bool = false, enabled: Bool = true, sessions: Int = 1,
        updatedAt: Date = Date(), extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.hostID = hostID
        self.name = name
        self.kind = kind
        self.bindAddress = bindAddress
        self.bindPort = bindPort
        self.targetHost = targetHost
        self.targetPort = targetPort
        self.autostart = autostart
        self.enabled = enabled
        self.sessions = sessions
        self.updatedAt = updatedAt
        self.extra = extra
    }

    /// The rule in OpenSSH's own spelling: `-L 127.0.0.1:8080:db:5432`, `-D 1080`.
    public var spec: ForwardSpec {
        ForwardSpec(
            kind: kind, bindAddress: bindAddress, bindPort: bindPort, targetHost: targetHost,
            targetPort: targetPort)
    }

    /// Loopback (`localhost`, `::1`, `127.x`) is reachable from this machine only: the one copy of the rule behind
    /// the CLI's --allow-public-bind check, the TUI form's "Public bind" and `t`'s "Listen on the network?".
    public static func isLoopback(_ address: String) -> Bool {
        address == "localhost" || address == "::1" || address.hasPrefix("127.")
    }

    /// Whether the port this rule opens is reachable from other machines: a -L or -D rule on a non-loopback address
    /// (a -R rule listens on the server, whose own GatewayPorts setting decides).
    public var listensOnNetwork: Bool { kind != .remote && !spec.listensOnSocket && !Self.isLoopback(bindAddress) }

    static let knownFields: Set<String> = [
        "id", "hostID", "name", "kind", "bindAddress", "bindPort", "targetHost", "targetPort", "autostart",
        "enabled", "sessions", "updatedAt",
    ]

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        id = try c.field("id", UUID())
        hostID = try c.field("hostID", nil as UUID?)
        name = try c.field("name", "")
        kind = try c.field("kind", ForwardKind.local)
        bindAddress = try c.field("bindAddress", PortForwardRule.defaultBindAddress)
        bindPort = try c.field("bindPort", 0)
        targetHost = try c.field("targetHost", "")
        targetPort = try c.field("targetPort", 0)
        autostart = try c.field("autostart", false)
        enabled = try c.field("enabled", true)
        sessions = try c.field("sessions", 1)
        updatedAt = try c.field("updatedAt", Date(timeIntervalSince1970: 0))
        extra = try c.unknownFields(known: Self.knownFields)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.put("id", id)
        try c.put("hostID", hostID)
        try c.put("name", name)
        try c.put("kind", kind)
        try c.put("bindAddress", bindAddress)
        try c.put("bindPort", bindPort)
        try c.put("targetHost", targetHost)
        try c.put("targetPort", targetPort)
        try c.put("autostart", autostart)
        try c.put("enabled", enabled)
        try c.put("sessions", sessions)
        try c.put("updatedAt", updatedAt)
        // A known key never comes back from `extra` (a copy kept before this version knew it must not win).
        try c.putUnknown(extra.filter { !Self.knownFields.contains($0.key) })
    }
}

// Host: one SSH destination of the config track. Holds reference keys to its secrets, never the secrets.
import FoundationEssentials

/// A host key pinned on the host record, so trust travels with sync.
public struct PinnedHostKey: Hashable, Sendable, Codable {
    /// OpenSSH algorithm name, e.g. `ssh-ed25519`.
    public var type: String
    /// The key blob, base64 as in known_hosts.
    public var key: String

    public init(type: String, key: String) {
        self.type = type
        self.key = key
    }
}

public struct Host: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    /// The alias the user types (`sshelf connect prod-db`); not unique, because two devices may both create one.
    public var name: String
    /// More names the host answers to (`Host web1 web1.prod`): every command, the search and ssh take them like the
    /// name; a name and the aliases of all hosts are unique together (the save rule). Written after the name on the
    /// host's `Host` line by export and the bridge.
    public var aliases: [String]
    public var hostname: String
    public var port: Int
    public var user: String
    public var groupID: UUID?
    public var tags: [String]
    public var authMethod: AuthMethod
    public var identityID: UUID?
    public var passwordRef: ReferenceKey?
    /// Hosts to jump through, outermost first (OpenSSH ProxyJump order).
    public var jumpHostIDs: [UUID]
    /// A ProxyJump value that named no known host at import time, kept as written.
    public var unresolvedJump: String
    public var pinnedHostKey: PinnedHostKey?
    /// ssh_config options sshelf keeps but does not model (`ServerAliveInterval 30`), verbatim and in order: import
    /// keeps them, export and the ssh_config bridge write them back, sshelf's client honours what libssh2 can.
    public var options: [String]
    public var notes: String
    /// `require`: every session goes through OpenSSH with post-quantum key exchanges only (PostQuantumSetting).
    public var pq: PostQuantumSetting
    /// Whether interactive sessions are recorded (docs/SESSIONS.md); nil: as the host's group says.
    public var record: RecordSetting?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastConnectedAt: Date?
    public var extra: [String: JSONValue]

    public static let defaultPort = 22

    public init(
        id: UUID = UUID(), name: String = "", hostname: String = "", port: Int = Host.defaultPort, user: String = "",
        groupID: UUID? = nil, tags: [String] = [], authMethod: AuthMethod = .auto, identityID: UUID? = nil,
        passwordRef: ReferenceKey? = nil, jumpHostIDs: [UUID] = [], unresolvedJump: String = "",
        pinnedHostKey: PinnedHostKey? = nil, options: [String] = [], notes: String = "", createdAt: Date = Date(),
        updatedAt: Date = Date(),
        lastConnectedAt: Date? = nil, aliases: [String] = [], pq: PostQuantumSetting = .off,
        record: RecordSetting? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.name = name
        self.aliases = aliases
        self.hostname = hostname
        self.port = port
        self.user = user
        self.groupID = groupID
        self.tags = tags
        self.authMethod = authMethod
        self.identityID = identityID
        self.passwordRef = passwordRef
        self.jumpHostIDs = jumpHostIDs
        self.unresolvedJump = unresolvedJump
        self.pinnedHostKey = pinnedHostKey
        self.options = options
        self.notes = notes
        self.pq = pq
        self.record = record
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastConnectedAt = lastConnectedAt
        self.extra = extra
    }

    /// The name and the aliases, in order: every name the host answers to.
    public var names: [String] { aliases.isEmpty ? [name] : [name] + aliases }

    /// True when `text` is the name or an alias, ignoring ASCII case (as ssh compares Host patterns).
    public func answers(to text: String) -> Bool {
        names.contains { $0.caseInsensitiveASCIIEquals(text) }
    }

    /// `user@hostname:port` as the list shows it; the port only when it is not 22, IPv6 in brackets then.
    public var destination: String {
        let userPart = user.isEmpty ? "" : "\(user)@"
        guard port != Host.defaultPort else { return userPart + hostname }
        let hostPart = hostname.contains(":") ? "[\(hostname)]" : hostname
        return "\(userPart)\(hostPart):\(port)"
    }

    /// Every key this version models (HostFields); anything else rides in `extra`.
    static var knownFields: Set<String> { HostFields.table.knownKeys }

    public init(from decoder: Decoder) throws { self = try HostFields.table.decode(from: decoder) }

    public func encode(to encoder: Encoder) throws { try HostFields.table.encode(self, to: encoder) }
}

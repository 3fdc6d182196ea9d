// Identity: a key pair the user authenticates with. The public half lives here; the private half only in the
// vault, joined by `privateKeyRef`. One identity may serve many hosts.
import FoundationEssentials

public struct Identity: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    public var name: String
    public var keyType: KeyType
    /// OpenSSH one-line public key (`ssh-ed25519 AAAA… comment`), empty when not yet known.
    public var publicKey: String
    public var privateKeyRef: ReferenceKey?
    public var passphraseRef: ReferenceKey?
    /// Where the private key file was when imported from ssh_config (a path, never its contents).
    public var keyFile: String
    /// The sshelf agent asks before every signature with this key (`--confirm`, `ssh-add -c`).
    public var confirmEachUse: Bool
    /// The sshelf agent serves the key for this many seconds after it starts serving it (0: no limit).
    public var agentLifetime: Int
    /// The sshelf agent signs with this key only for logins to these hosts (host-bound agent); empty: anywhere.
    public var onlyTo: [KeyDestination]
    public var updatedAt: Date
    public var extra: [String: JSONValue]

    public init(
        id: UUID = UUID(), name: String = "", keyType: KeyType = .ed25519, publicKey: String = "",
        privateKeyRef: ReferenceKey? = nil, passphraseRef: ReferenceKey? = nil, keyFile: String = "",
        confirmEachUse: Bool = false, agentLifetime: Int = 0, onlyTo: [KeyDestination] = [], updatedAt: Date = Date(),
        extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.name = name
        self.keyType = keyType
        self.publicKey = publicKey
        self.privateKeyRef = privateKeyRef
        self.passphraseRef = passphraseRef
        self.keyFile = keyFile
        self.confirmEachUse = confirmEachUse
        self.agentLifetime = agentLifetime
        self.onlyTo = onlyTo
        self.updatedAt = updatedAt
        self.extra = extra
    }

    static let knownFields: Set<String> = [
        "id", "name", "keyType", "publicKey", "privateKeyRef", "passphraseRef", "keyFile", "confirmEachUse",
        "agentLifetime", "onlyTo", "updatedAt",
    ]

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        id = try c.field("id", UUID())
        name = try c.field("name", "")
        keyType = try c.field("keyType", KeyType.ed25519)
        publicKey = try c.field("publicKey", "")
        privateKeyRef = try c.field("privateKeyRef", nil as ReferenceKey?)
        passphraseRef = try c.field("passphraseRef", nil as ReferenceKey?)
        keyFile = try c.field("keyFile", "")
        confirmEachUse = try c.field("confirmEachUse", false)
        agentLifetime = try c.field("agentLifetime", 0)
        onlyTo = try c.field("onlyTo", [KeyDestination]())
        updatedAt = try c.field("updatedAt", Date(timeIntervalSince1970: 0))
        extra = try c.unknownFields(known: Self.knownFields)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.put("id", id)
        try c.put("name", name)
        try c.put("keyType", keyType)
        try c.put("publicKey", publicKey)
        try c.put("privateKeyRef", privateKeyRef)
        try c.put("passphraseRef", passphraseRef)
        try c.put("keyFile", keyFile)
        try c.put("confirmEachUse", confirmEachUse)
        try c.put("agentLifetime", agentLifetime)
        try c.put("onlyTo", onlyTo)
        try c.put("updatedAt", updatedAt)
        try c.putUnknown(extra)
    }
}

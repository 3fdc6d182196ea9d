// ReferenceKey: the name under which the vault holds a secret (`host.<uuid>.password`, `identity.<uuid>.privkey`,
// and sync's own keys: `sync.key`, `sync.signing`, `sync.<group>.group`, `sync.<epoch>.epoch`,
// `sync.<invite>.invite`, the release log's `log.key`, the session recordings' `recordings.key`, a CA's
// `ca.<uuid>.privkey`). The config track stores only these names; a value that is not a well-formed reference cannot
// be constructed, and a record field can only name the family it is for (never a `sync.*`, `ca.*` or device key).
import FoundationEssentials

public struct ReferenceKey: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The record family a reference belongs to, i.e. the first component.
    public enum Owner: String, Sendable, CaseIterable { case host, identity, sync, log, ca, recordings }

    /// What the referenced secret is; the last component.
    public enum Secret: String, Sendable, CaseIterable {
        case password, privkey, passphrase, remember
        /// The format-1 credential sync key (`sync.key`); read only to tell an old join code apart.
        case key
        /// This device's ed25519 signing seed (`sync.signing`).
        case signing
        /// A sync group's root secret, which seals its roster (`sync.<group>.group`).
        case group
        /// One epoch's group key, which seals records and credentials (`sync.<epoch>.epoch`).
        case epoch
        /// An invite's secret: pending on the inviting device, held by the joining one until it is enrolled.
        case invite
    }

    public let owner: Owner
    public let ownerID: UUID?
    public let secret: Secret

    public var description: String { rawValue }

    public var rawValue: String {
        if let ownerID { return "\(owner.rawValue).\(ownerID.uuidString.lowercased()).\(secret.rawValue)" }
        return "\(owner.rawValue).\(secret.rawValue)"
    }

    /// Which secrets each owner may reference under an id: a host has a password and a remember gate, an identity
    /// a private key and its passphrase, sync its group, epoch and invite secrets. Anything else is not a reference.
    /// (`sync.key`, `sync.signing`, the release log's `log.key` and `recordings.key` carry no id.)
    private static let allowed: [Owner: Set<Secret>] = [
        .host: [.password, .remember],
        .identity: [.privkey, .passphrase],
        .sync: [.group, .epoch, .invite],
        .ca: [.privkey],
    ]
    /// Sync's keys that exist once per device and carry no id.
    private static let bare: Set<Secret> = [.key, .signing]

    public static func host(_ id: UUID, _ secret: Secret) -> ReferenceKey? { make(.host, id, secret) }
    public static func identity(_ id: UUID, _ secret: Secret) -> ReferenceKey? { make(.identity, id, secret) }
    public static func hostPassword(_ id: UUID) -> ReferenceKey {
        ReferenceKey(owner: .host, ownerID: id, secret: .password)
    }
    public static func hostRemember(_ id: UUID) -> ReferenceKey {
        ReferenceKey(owner: .host, ownerID: id, secret: .remember)
    }
    public static func identityPrivateKey(_ id: UUID) -> ReferenceKey {
        ReferenceKey(owner: .identity, ownerID: id, secret: .privkey)
    }
    public static func identityPassphrase(_ id: UUID) -> ReferenceKey {
        ReferenceKey(owner: .identity, ownerID: id, secret: .passphrase)
    }
    public static let syncKey = ReferenceKey(owner: .sync, ownerID: nil, secret: .key)
    public static let syncSigning = ReferenceKey(owner: .sync, ownerID: nil, secret: .signing)
    public static func syncGroup(_ id: UUID) -> ReferenceKey { ReferenceKey(owner: .sync, ownerID: id, secret: .group) }
    public static func syncEpoch(_ id: UUID) -> ReferenceKey { ReferenceKey(owner: .sync, ownerID: id, secret: .epoch) }
    public static func syncInvite(_ id: UUID) -> ReferenceKey {
        ReferenceKey(owner: .sync, ownerID: id, secret: .invite)
    }
    /// A certificate authority's private key (`sshelf ca init`): it signs certificates inside sshelf only.
    public static func caPrivateKey(_ id: UUID) -> ReferenceKey {
        ReferenceKey(owner: .ca, ownerID: id, secret: .privkey)
    }
    /// The device-only key the release log's chain is MAC'd with.
    public static let logKey = ReferenceKey(owner: .log, ownerID: nil, secret: .key)
    /// The device-only key session recordings are encrypted with (docs/SESSIONS.md).
    public static let recordingsKey = ReferenceKey(owner: .recordings, ownerID: nil, secret: .key)

    /// Whether this names one of the device's own keys (sync's, the release log's, a CA's, the recordings'), which
    /// never travel and never stand in a record's field.
    public var isDeviceSecret: Bool { owner == .sync || owner == .log || owner == .ca || owner == .recordings }

    private static func make(_ owner: Owner, _ id: UUID, _ secret: Secret) -> ReferenceKey? {
        guard allowed[owner]?.contains(secret) == true else { return nil }
        return ReferenceKey(owner: owner, ownerID: id, secret: secret)
    }

    private init(owner: Owner, ownerID: UUID?, secret: Secret) {
        self.owner = owner
        self.ownerID = ownerID
        self.secret = secret
    }

    /// Parses a reference string; returns nil for anything that is not exactly a reference (a password typed
    /// into the wrong field, a path, an empty string).
    public init?(_ text: String) {
        // Longest valid reference is "identity.<36>.passphrase"; bail out before splitting anything huge.
        guard text.utf8.count <= 64 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, let owner = Owner(rawValue: parts[0]), let secret = Secret(rawValue: parts[1]),
            (owner == .sync && Self.bare.contains(secret))
                || ((owner == .log || owner == .recordings) && secret == .key)
        {
            self.init(owner: owner, ownerID: nil, secret: secret)
            return
        }
        guard parts.count == 3, let owner = Owner(rawValue: parts[0]), owner != .log, owner != .recordings,
            let secret = Secret(rawValue: parts[2]), Self.allowed[owner]?.contains(secret) == true,
            parts[1].count == 36, parts[1] == parts[1].lowercased(), let id = UUID(uuidString: parts[1])
        else { return nil }
        self.init(owner: owner, ownerID: id, secret: secret)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let key = ReferenceKey(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a reference key (expected e.g. host.<uuid>.password)")
        }
        self = key
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

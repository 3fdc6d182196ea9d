// SyncRecord: one config-track record as it travels inside a sealed entry — kind, id, the clock of each field
// group (or the tombstone) and the record body. The body is built from an allow-list and refuses to carry anything
// that could be a credential: reference fields must hold reference keys of their own family (never one of sync's
// keys), and no unknown field may be named like a secret; a received body is checked by the same rule.
import Foundation

public enum RecordKind: OpenEnum {
    case group, host, identity, forward
    case other(String)

    public static let knownCases: [RecordKind] = [.group, .host, .identity, .forward]

    public var rawValue: String {
        switch self {
        case .group: "group"
        case .host: "host"
        case .identity: "identity"
        case .forward: "forward"
        case .other(let raw): raw
        }
    }

    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }
}

public struct SyncRecord: Hashable, Sendable, Codable {
    /// Format 2: a clock per field group. Format-1 records (one stamp per record) are never read again.
    public static let format = 2

    public var kind: RecordKind
    public var id: UUID
    public var clock: RecordClock
    /// The record's JSON object; nil for a tombstone.
    public var body: [String: JSONValue]?

    public init(kind: RecordKind, id: UUID, clock: RecordClock, body: [String: JSONValue]?) {
        self.kind = kind
        self.id = id
        self.clock = clock
        self.body = body
    }

    public var isDeleted: Bool { clock.isDeleted }

    enum CodingKeys: String, CodingKey { case k, i, c, v }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(RecordKind.self, forKey: .k)
        id = try c.decode(UUID.self, forKey: .i)
        let text = try c.decode(String.self, forKey: .c)
        guard !text.isEmpty, let clock = RecordClock(text: text, kind: kind, latest: .zero, deleted: false) else {
            throw DecodingError.dataCorruptedError(forKey: .c, in: c, debugDescription: "not a record clock")
        }
        let stamps = clock.groups.values.map(\.stamp) + [clock.tombstone?.stamp, clock.tombstone?.base].compactMap { $0 }
            + clock.groups.values.compactMap(\.base)
        guard stamps.allSatisfy({ $0 == .zero || SyncRecord.isDeviceID($0.device) }) else {
            throw DecodingError.dataCorruptedError(forKey: .c, in: c, debugDescription: "a clock stamp names no device")
        }
        self.clock = clock
        body = try c.decodeIfPresent([String: JSONValue].self, forKey: .v)
        guard (body == nil) == clock.isDeleted else {
            throw DecodingError.dataCorruptedError(forKey: .v, in: c, debugDescription: "a record needs a body unless it is deleted")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .k)
        try c.encode(id.uuidString.lowercased(), forKey: .i)
        try c.encode(clock.text(kind: kind, keepVia: false), forKey: .c)
        try c.encodeIfPresent(body, forKey: .v)
    }

    /// A device id as it appears in stamps and paths: a lower-case UUID.
    public static func isDeviceID(_ text: String) -> Bool {
        text.utf8.count == 36 && text == text.lowercased() && UUID(uuidString: text) != nil
    }
}

public struct SyncEncodingError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Builds record bodies from the models and back, enforcing the credential rule on the way out.
public enum SyncRecordCodec {
    /// Fields that hold reference keys and nothing else, with the one family each may name: a host's password
    /// field naming `sync.signing` would hand this device's signing key to whatever server the host points at.
    static let referenceFields: [String: (ReferenceKey.Owner, ReferenceKey.Secret)] = [
        "passwordRef": (.host, .password), "privateKeyRef": (.identity, .privkey), "passphraseRef": (.identity, .passphrase),
    ]
    /// Names no field may have unless it is a known reference field: whatever it holds would be a secret.
    static let secretLikeNames = ["password", "passphrase", "secret", "privkey", "privatekey", "private_key", "token"]

    public static func body<T: Encodable>(_ record: T, known: Set<String>) throws -> [String: JSONValue] {
        let data = try ShelfJSON.encoder().encode(record)
        let object = try JSONDecoder().decode([String: JSONValue].self, from: data)
        try check(object, known: known)
        return object
    }

    /// The credential rule on a body, whichever way it travels.
    public static func check(_ object: [String: JSONValue], known: Set<String>) throws {
        for (key, value) in object {
            if let (owner, secret) = referenceFields[key] {
                if case .null = value { continue }
                guard case .string(let text) = value, let reference = ReferenceKey(text) else {
                    throw SyncEncodingError(description: "field \(key) holds something that is not a reference key; refusing to sync it")
                }
                guard reference.owner == owner, reference.secret == secret else {
                    throw SyncEncodingError(description: "field \(key) names \(reference), which is not a \(owner.rawValue) \(secret.rawValue); refusing it")
                }
            } else if !known.contains(key) {
                let folded = key.lowercased()
                if secretLikeNames.contains(where: folded.contains) {
                    throw SyncEncodingError(description: "field \(key) is named like a secret; refusing to sync it")
                }
            }
        }
    }

    /// Checks a body received from another device before it is stored.
    public static func checkReceived(_ body: [String: JSONValue], kind: RecordKind) throws {
        switch kind {
        case .host: try check(body, known: Host.knownFields)
        case .group: try check(body, known: HostGroup.knownFields)
        case .identity: try check(body, known: Identity.knownFields)
        case .forward: try check(body, known: PortForwardRule.knownFields)
        case .other: break
        }
    }

    public static func body(_ host: Host) throws -> [String: JSONValue] { try body(host, known: Host.knownFields) }
    public static func body(_ group: HostGroup) throws -> [String: JSONValue] { try body(group, known: HostGroup.knownFields) }
    public static func body(_ identity: Identity) throws -> [String: JSONValue] { try body(identity, known: Identity.knownFields) }
    public static func body(_ rule: PortForwardRule) throws -> [String: JSONValue] { try body(rule, known: PortForwardRule.knownFields) }

    public static func decode<T: Decodable>(_ type: T.Type, from body: [String: JSONValue]) throws -> T {
        try ShelfJSON.decoder().decode(T.self, from: try JSONEncoder().encode(body))
    }
}

// SyncRecord: one config-track record as it travels inside a sealed entry — kind, id, the clock of each field
// group (or the tombstone) and the record body. The body is built from an allow-list and refuses to carry anything
// that could be a credential: reference fields must hold reference keys of their own family (never one of sync's
// keys), and no unknown field may be named like a secret; a received body is checked by the same rule.
import FoundationEssentials

public enum RecordKind: OpenEnum {
    case group, host, identity, forward, snippet, caPin
    case other(String)

    public static let knownCases: [RecordKind] = [.group, .host, .identity, .forward, .snippet, .caPin]

    public var rawValue: String {
        switch self {
        case .group: "group"
        case .host: "host"
        case .identity: "identity"
        case .forward: "forward"
        case .snippet: "snippet"
        case .caPin: "ca-pin"
        case .other(let raw): raw
        }
    }

    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }
}

public struct SyncRecord: Hashable, Sendable {
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

    /// The record as JSON (`{"k", "i", "c", "v"}`), as it travels inside an entry.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "k": .string(kind.rawValue), "i": .string(id.uuidString.lowercased()),
            "c": .string(clock.text(kind: kind, keepVia: false)),
        ]
        if let body { object["v"] = .object(body) }
        return .object(object)
    }

    /// A record from its JSON, with the same checks as the Codable path: a clock naming devices only, a body exactly
    /// when it is not deleted.
    public init(json: JSONValue) throws(JSONTextError) {
        guard case .object(let object) = json, case .string(let kindText)? = object["k"],
            case .string(let idText)? = object["i"],
            let id = UUID(uuidString: idText), case .string(let clockText)? = object["c"]
        else {
            throw JSONTextError(description: "not a record")
        }
        let kind = RecordKind(rawValue: kindText)
        guard !clockText.isEmpty, let clock = RecordClock(text: clockText, kind: kind, latest: .zero, deleted: false)
        else {
            throw JSONTextError(description: "record \(idText) has no valid clock")
        }
        let stamps =
            clock.groups.values.map(\.stamp) + [clock.tombstone?.stamp, clock.tombstone?.base].compactMap { $0 }
            + clock.groups.values.compactMap(\.base)
            + clock.sets.values.flatMap(\.stamps).flatMap { [$0.stamp, $0.base].compactMap { $0 } }
        guard stamps.allSatisfy({ $0 == .zero || SyncRecord.isDeviceID($0.device) }) else {
            throw JSONTextError(description: "record \(idText): a clock stamp names no device")
        }
        var body: [String: JSONValue]?
        switch object["v"] {
        case nil: body = nil
        case .object(let value)?: body = value
        default: throw JSONTextError(description: "record \(idText) has a body that is not an object")
        }
        guard (body == nil) == clock.isDeleted else {
            throw JSONTextError(description: "record \(idText) needs a body unless it is deleted")
        }
        self.init(kind: kind, id: id, clock: clock, body: body)
    }

    /// A device id as it appears in stamps and paths: a lower-case UUID (checked byte by byte: records carry many).
    public static func isDeviceID(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            let dash = count == 8 || count == 13 || count == 18 || count == 23
            guard dash ? byte == UInt8(ascii: "-") : (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
            else { return false }
            count += 1
            if count > 36 { return false }
        }
        return count == 36
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
        "passwordRef": (.host, .password), "privateKeyRef": (.identity, .privkey),
        "passphraseRef": (.identity, .passphrase),
    ]
    /// Names no field may have unless it is a known reference field: whatever it holds would be a secret.
    static let secretLikeNames = ["password", "passphrase", "secret", "privkey", "privatekey", "private_key", "token"]

    public static func body<T: Encodable>(_ record: T, known: Set<String>) throws -> [String: JSONValue] {
        let object = try plainBody(record)
        try check(object, known: known)
        return object
    }

    /// The credential rule on a body, whichever way it travels.
    public static func check(_ object: [String: JSONValue], known: Set<String>) throws {
        for (key, value) in object {
            if let (owner, secret) = referenceFields[key] {
                if case .null = value { continue }
                guard case .string(let text) = value, let reference = ReferenceKey(text) else {
                    throw SyncEncodingError(
                        description: "field \(key) holds something that is not a reference key; refusing to sync it")
                }
                guard reference.owner == owner, reference.secret == secret else {
                    throw SyncEncodingError(
                        description:
                            "field \(key) names \(reference), which is not a \(owner.rawValue) \(secret.rawValue); "
                            + "refusing it")
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
        case .snippet: try check(body, known: Snippet.knownFields)
        case .caPin: try check(body, known: CAPin.knownFields)
        case .other: break
        }
    }

    public static func body(_ host: Host) throws -> [String: JSONValue] { try body(host, known: Host.knownFields) }
    public static func body(_ group: HostGroup) throws -> [String: JSONValue] {
        try body(group, known: HostGroup.knownFields)
    }
    public static func body(_ identity: Identity) throws -> [String: JSONValue] {
        try body(identity, known: Identity.knownFields)
    }
    public static func body(_ rule: PortForwardRule) throws -> [String: JSONValue] {
        try body(rule, known: PortForwardRule.knownFields)
    }
    public static func body(_ snippet: Snippet) throws -> [String: JSONValue] {
        try body(snippet, known: Snippet.knownFields)
    }
    public static func body(_ pin: CAPin) throws -> [String: JSONValue] {
        try body(pin, known: CAPin.knownFields)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from body: [String: JSONValue]) throws -> T {
        try ShelfJSON.decoder().decode(T.self, from: Data(JSONValue.object(body).jsonBytes))
    }

    /// A model's body as the merge compares it: its JSON object (no credential check: that is `body(_:)`'s).
    public static func plainBody<T: Encodable>(_ record: T) throws -> [String: JSONValue] {
        let data = try ShelfJSON.encoder().encode(record)
        let value = try data.withUnsafeBytes { buffer throws(JSONTextError) in try JSONValue.parse(buffer) }
        guard case .object(let object) = value else {
            throw JSONTextError(description: "a record is not a JSON object")
        }
        return object
    }
}

// SyncRecord: one config-track record as it travels through a sync remote — kind, id, clock stamp,
// tombstone flag and the record body. The body is built from an allow-list and refuses to carry anything
// that could be a credential: reference fields must hold reference keys, and no unknown field may be named
// like a secret.
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
    public static let format = 1

    public var kind: RecordKind
    public var id: UUID
    public var stamp: ClockStamp
    public var deleted: Bool
    /// The record's JSON object; nil for a tombstone.
    public var body: [String: JSONValue]?

    public init(kind: RecordKind, id: UUID, stamp: ClockStamp, deleted: Bool, body: [String: JSONValue]?) {
        self.kind = kind
        self.id = id
        self.stamp = stamp
        self.deleted = deleted
        self.body = body
    }

    enum CodingKeys: String, CodingKey { case v, kind, id, wall, counter, device, deleted, body }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .v) ?? 1
        guard version <= SyncRecord.format else {
            throw DecodingError.dataCorruptedError(forKey: .v, in: c, debugDescription: "record format \(version) is newer than this program")
        }
        kind = try c.decode(RecordKind.self, forKey: .kind)
        id = try c.decode(UUID.self, forKey: .id)
        stamp = ClockStamp(wall: try c.decode(Int64.self, forKey: .wall), counter: try c.decode(Int.self, forKey: .counter),
                           device: try c.decode(String.self, forKey: .device))
        deleted = try c.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        body = try c.decodeIfPresent([String: JSONValue].self, forKey: .body)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(SyncRecord.format, forKey: .v)
        try c.encode(kind, forKey: .kind)
        try c.encode(id.uuidString.lowercased(), forKey: .id)
        try c.encode(stamp.wall, forKey: .wall)
        try c.encode(stamp.counter, forKey: .counter)
        try c.encode(stamp.device, forKey: .device)
        if deleted { try c.encode(true, forKey: .deleted) }
        try c.encodeIfPresent(body, forKey: .body)
    }
}

public struct SyncEncodingError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Builds record bodies from the models and back, enforcing the credential rule on the way out.
public enum SyncRecordCodec {
    /// Fields that hold reference keys and nothing else.
    static let referenceFields: Set<String> = ["passwordRef", "privateKeyRef", "passphraseRef"]
    /// Names no field may have unless it is a known reference field: whatever it holds would be a secret.
    static let secretLikeNames = ["password", "passphrase", "secret", "privkey", "privatekey", "private_key", "token"]

    public static func body<T: Encodable>(_ record: T, known: Set<String>) throws -> [String: JSONValue] {
        let data = try ShelfJSON.encoder().encode(record)
        let object = try JSONDecoder().decode([String: JSONValue].self, from: data)
        for (key, value) in object {
            if referenceFields.contains(key) {
                if case .null = value { continue }
                guard case .string(let text) = value, ReferenceKey(text) != nil else {
                    throw SyncEncodingError(description: "field \(key) holds something that is not a reference key; refusing to sync it")
                }
            } else if !known.contains(key) {
                let folded = key.lowercased()
                if secretLikeNames.contains(where: folded.contains) {
                    throw SyncEncodingError(description: "field \(key) is named like a secret; refusing to sync it")
                }
            }
        }
        return object
    }

    public static func body(_ host: Host) throws -> [String: JSONValue] { try body(host, known: Host.knownFields) }
    public static func body(_ group: HostGroup) throws -> [String: JSONValue] { try body(group, known: HostGroup.knownFields) }
    public static func body(_ identity: Identity) throws -> [String: JSONValue] { try body(identity, known: Identity.knownFields) }
    public static func body(_ rule: PortForwardRule) throws -> [String: JSONValue] { try body(rule, known: PortForwardRule.knownFields) }

    public static func decode<T: Decodable>(_ type: T.Type, from body: [String: JSONValue]) throws -> T {
        try ShelfJSON.decoder().decode(T.self, from: try JSONEncoder().encode(body))
    }
}

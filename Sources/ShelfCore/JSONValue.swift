// JSONValue: an arbitrary JSON value, used to carry fields this version does not know through a round trip.
import FoundationEssentials
import Glibc

public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// A coding key for any string, so records can enumerate the keys they do not know.
public struct AnyCodingKey: CodingKey, Hashable {
    public let stringValue: String
    public var intValue: Int? { nil }
    public init(_ string: String) { stringValue = string }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where K == AnyCodingKey {
    /// Decodes a field, falling back to its default when it is absent or null: every field has a default.
    func field<T: Decodable>(_ name: String, _ fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: AnyCodingKey(name)) ?? fallback
    }

    /// Every key not in `known`, kept verbatim.
    func unknownFields(known: Set<String>) throws -> [String: JSONValue] {
        var extra: [String: JSONValue] = [:]
        for key in allKeys where !known.contains(key.stringValue) {
            extra[key.stringValue] = try decode(JSONValue.self, forKey: key)
        }
        return extra
    }
}

extension KeyedEncodingContainer where K == AnyCodingKey {
    mutating func put<T: Encodable>(_ name: String, _ value: T) throws {
        try encode(value, forKey: AnyCodingKey(name))
    }

    // Ids are written lower-case everywhere (reference keys, output, sync records), not Foundation's upper case.
    mutating func put(_ name: String, _ value: UUID) throws {
        try encode(value.uuidString.lowercased(), forKey: AnyCodingKey(name))
    }

    mutating func put(_ name: String, _ value: UUID?) throws {
        try encode(value?.uuidString.lowercased(), forKey: AnyCodingKey(name))
    }

    mutating func put(_ name: String, _ value: [UUID]) throws {
        try encode(value.map { $0.uuidString.lowercased() }, forKey: AnyCodingKey(name))
    }

    mutating func putUnknown(_ extra: [String: JSONValue]) throws {
        for (key, value) in extra.sorted(by: { $0.key < $1.key }) { try encode(value, forKey: AnyCodingKey(key)) }
    }
}

/// The JSON coders every record goes through: sorted keys, ISO-8601 dates with fractions.
public enum ShelfJSON {
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.format(date))
        }
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            let text = try container.decode(String.self)
            guard let date = ISO8601.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO-8601 date: \(text)")
            }
            return date
        }
        return decoder
    }
}

/// ISO-8601 with exactly three fraction digits, rounded (not truncated) to the millisecond, so that
/// format(parse(text)) == text and two devices encode the same instant identically.
public enum ISO8601 {
    private static let whole = Date.ISO8601FormatStyle()

    public static func format(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = millis.quotientFloor(1000)
        let fraction = millis - seconds * 1000
        let base = whole.format(Date(timeIntervalSince1970: TimeInterval(seconds)))
        return base.dropLast() + "." + String(fraction).leftPadded(3) + "Z"
    }

    public static func parse(_ text: String) -> Date? {
        guard let dot = text.lastIndex(of: "."), text.hasSuffix("Z") else { return try? whole.parse(text) }
        let digits = text[text.index(after: dot)..<text.index(before: text.endIndex)]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCIIDigit),
            let base = try? whole.parse(String(text[..<dot]) + "Z")
        else { return nil }
        let millis = (Double(String(digits)) ?? 0) / pow(10, Double(digits.count)) * 1000
        return Date(timeIntervalSince1970: (base.timeIntervalSince1970 * 1000 + millis.rounded()) / 1000)
    }
}

extension Int64 {
    func quotientFloor(_ divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor < 0) ? q - 1 : q
    }
}

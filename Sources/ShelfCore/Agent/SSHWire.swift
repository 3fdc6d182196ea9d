// SSHWire: the SSH wire encoding (RFC 4251 section 5) — the one bounds-checked reader every parser of agent
// messages, key blobs and key files uses, and the writer that builds them. The reader works on borrowed memory
// (a guarded secret buffer stays where it is); every getter answers nil instead of reading past the end.
public struct SSHWireReader {
    public let bytes: UnsafeRawBufferPointer
    public private(set) var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset == bytes.count }

    public mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    public mutating func byte() -> UInt8? { take(1).map { $0[0] } }

    /// RFC 4251 `boolean`: zero is false, anything else true.
    public mutating func bool() -> Bool? { byte().map { $0 != 0 } }

    public mutating func uint32() -> UInt32? {
        take(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// A `string`: a 4-byte length and that many bytes, refused when longer than `limit`.
    public mutating func string(limit: Int) -> UnsafeRawBufferPointer? {
        let start = offset
        guard let length = uint32(), Int(length) <= limit, let body = take(Int(length)) else {
            offset = start
            return nil
        }
        return body
    }

    /// Where the next `string`'s bytes are, as offsets into `bytes` (for a caller that must not copy them).
    public mutating func stringRange(limit: Int) -> Range<Int>? {
        guard let body = string(limit: limit) else { return nil }
        return (offset - body.count)..<offset
    }

    public mutating func bytesString(limit: Int) -> [UInt8]? { string(limit: limit).map { Array($0) } }

    /// A `string` holding UTF-8 text; nil when it is not valid UTF-8.
    public mutating func text(limit: Int) -> String? {
        let start = offset
        guard let body = string(limit: limit), let text = String(validating: body, as: UTF8.self) else {
            offset = start
            return nil
        }
        return text
    }

    /// A non-negative `mpint` in its minimal form (OpenSSH refuses negative numbers and needless leading zeros):
    /// the magnitude without the sign byte. Zero is the empty magnitude.
    public mutating func positiveMPInt(limit: Int) -> UnsafeRawBufferPointer? {
        let start = offset
        guard let body = string(limit: limit + 1), SSHWire.isCanonicalPositive(body) else {
            offset = start
            return nil
        }
        return body.first == 0 ? UnsafeRawBufferPointer(rebasing: body[1...]) : body
    }
}

public enum SSHWire {
    static func isCanonicalPositive(_ body: UnsafeRawBufferPointer) -> Bool {
        guard let first = body.first else { return true }
        if first & 0x80 != 0 { return false }  // negative
        if first == 0 { return body.count > 1 && body[1] & 0x80 != 0 }  // a zero byte only to clear the sign bit
        return true
    }

    public static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    public static func string(_ bytes: [UInt8]) -> [UInt8] { uint32(UInt32(bytes.count)) + bytes }
    public static func string(_ text: String) -> [UInt8] { string(Array(text.utf8)) }

    /// An `mpint` from a big-endian magnitude: leading zeros dropped, a zero byte added when the top bit is set.
    public static func mpint(_ magnitude: [UInt8]) -> [UInt8] {
        let trimmed = Array(magnitude.drop { $0 == 0 })
        guard let first = trimmed.first else { return uint32(0) }
        return string(first & 0x80 != 0 ? [0] + trimmed : trimmed)
    }
}

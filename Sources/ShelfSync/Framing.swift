// Framing: the one bounds-checked reader and the matching writer for every binary format sync parses (entries,
// certificates, invites, claims, entry content). Untrusted bytes are read only through `ByteReader`: every
// length is checked against what is left and against a named limit before anything is allocated.
import FoundationEssentials
import ShelfCore

struct FramingError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init() {}

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: Int) { integer(UInt64(value), width: 2) }

    mutating func u32(_ value: Int) { integer(UInt64(value), width: 4) }

    mutating func u64(_ value: UInt64) { integer(value, width: 8) }

    mutating func i64(_ value: Int64) { integer(UInt64(bitPattern: value), width: 8) }

    mutating func raw(_ value: [UInt8]) { bytes += value }

    mutating func uuid(_ value: UUID) { raw(value.bytes) }

    /// A u32 length and the bytes.
    mutating func blob(_ value: [UInt8]) {
        u32(value.count)
        raw(value)
    }

    /// A u16 length and UTF-8 (names and other short text).
    mutating func text(_ value: String) {
        let utf8 = Array(value.utf8)
        u16(utf8.count)
        raw(utf8)
    }

    private mutating func integer(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8((value >> UInt64(shift)) & 0xff))
        }
    }
}

struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0
    let what: String

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) throws(FramingError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw FramingError("\(what) is truncated") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func u8() throws(FramingError) -> UInt8 { try take(1)[0] }

    mutating func u16() throws(FramingError) -> Int { Int(try integer(2)) }

    mutating func u32() throws(FramingError) -> Int { Int(try integer(4)) }

    mutating func u64() throws(FramingError) -> UInt64 { try integer(8) }

    mutating func i64() throws(FramingError) -> Int64 { Int64(bitPattern: try integer(8)) }

    mutating func uuid() throws(FramingError) -> UUID { UUID(bytes: try take(16)) }

    mutating func blob(limit: Int) throws(FramingError) -> [UInt8] {
        let count = try u32()
        guard count <= limit else { throw FramingError("\(what) holds a field of \(count) bytes (at most \(limit))") }
        return try take(count)
    }

    mutating func text(limit: Int = 256) throws(FramingError) -> String {
        let count = try u16()
        guard count <= limit else { throw FramingError("\(what) holds a text of \(count) bytes (at most \(limit))") }
        guard let text = String(validating: try take(count), as: UTF8.self) else {
            throw FramingError("\(what) holds text that is not UTF-8")
        }
        return text
    }

    /// A count of items, each at least `minimumSize` bytes: refuses a count the remaining bytes cannot hold.
    mutating func count(width: Int = 4, limit: Int, minimumSize: Int) throws(FramingError) -> Int {
        let count = width == 2 ? try u16() : try u32()
        guard count <= limit, count * max(minimumSize, 1) <= remaining else {
            throw FramingError("\(what) claims \(count) items, more than it can hold")
        }
        return count
    }

    func expectEnd() throws(FramingError) {
        guard isAtEnd else { throw FramingError("\(what) has \(remaining) trailing bytes") }
    }

    private mutating func integer(_ width: Int) throws(FramingError) -> UInt64 {
        try take(width).reduce(0) { ($0 << 8) | UInt64($1) }
    }
}

extension UUID {
    /// The 16 bytes of the UUID, in order.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 16)
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }

    /// The lower-case text form used for device ids and file names.
    var lowerText: String { uuidString.lowercased() }
}

extension Array where Element == UInt8 {
    var hex: String { map { TextFormat.hex($0) }.joined() }

    init?(hex: String) {
        guard hex.utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(hex.utf8.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        self = out
    }
}

// JSONValueText: JSON text to and from JSONValue directly, for the record bodies sync moves by the ten thousand (a
// snapshot holds every record). Bounds-checked, depth-limited, strict (RFC 8259: no trailing commas, no comments,
// valid UTF-8 and escapes); objects are written with sorted keys, numbers that are whole as integers — the same text
// ShelfJSON's encoder writes for a body.
import FoundationEssentials

public struct JSONTextError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

extension JSONValue {
    /// Parses one JSON value that fills `bytes` (surrounding whitespace allowed).
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws(JSONTextError) -> JSONValue {
        var parser = JSONTextParser(bytes: bytes, maxDepth: maxDepth)
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("trailing characters") }
        return value
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONTextError) -> JSONValue {
        let result: Result<JSONValue, JSONTextError> = bytes.withUnsafeBytes { buffer in
            do throws(JSONTextError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The value as compact JSON with sorted keys.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
                out += Array(String(Int64(value)).utf8)
            } else {
                out += Array("\(value)".utf8)
            }
        case .string(let value): JSONValue.writeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let values):
            out.append(UInt8(ascii: "{"))
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                values[key]?.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5c, 0x22]
            case UInt8(ascii: "\\"): out += [0x5c, 0x5c]
            case 0x0a: out += [0x5c, UInt8(ascii: "n")]
            case 0x0d: out += [0x5c, UInt8(ascii: "r")]
            case 0x09: out += [0x5c, UInt8(ascii: "t")]
            case 0..<0x20: out += Array(("\\u" + TextFormat.hex(byte, width: 4)).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

struct JSONTextParser {
    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func failure(_ what: String) -> JSONTextError { JSONTextError(description: "\(what) at byte \(index)") }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
    }

    mutating func expect(_ word: String) throws(JSONTextError) {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw failure("expected \(word)") }
            index += 1
        }
    }

    mutating func value(depth: Int) throws(JSONTextError) -> JSONValue {
        guard depth <= maxDepth else { throw failure("nested too deep") }
        skipSpace()
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var object: [String: JSONValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(":")
                object[key] = try value(depth: depth + 1)
                skipSpace()
                guard index < bytes.count else { throw failure("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
                throw failure("expected , or }")
            }
        case UInt8(ascii: "["):
            index += 1
            var array: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(array)
            }
            while true {
                array.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw failure("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
                throw failure("expected , or ]")
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return .number(try number())
        }
    }

    mutating func number() throws(JSONTextError) -> Double {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let first = index
        var digits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1; digits += 1 }
        guard digits > 0 else { throw failure("not a value") }
        guard digits == 1 || bytes[first] != UInt8(ascii: "0") else { throw failure("a number with a leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var fraction = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1; fraction += 1 }
            guard fraction > 0 else { throw failure("a number's fraction has no digits") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            var exponent = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1; exponent += 1 }
            guard exponent > 0 else { throw failure("a number's exponent has no digits") }
        }
        guard index - start <= 64,
            let value = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)),
            value.isFinite
        else { throw failure("not a number") }
        return value
    }

    mutating func string() throws(JSONTextError) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string") }
        index += 1
        let start = index
        // The common case: no escapes, taken as one slice.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"),
            bytes[index] >= 0x20
        { index += 1 }
        guard index < bytes.count else { throw failure("unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            index += 1
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw failure("a string that is not UTF-8")
            }
            return text
        }
        var out = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw failure("a string that is not UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0c)
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xd800..<0xdc00).contains(scalar) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw failure("a broken surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("not a character") }
                    out += Array(String(Character(unicode)).utf8)
                default: throw failure("an unknown escape")
                }
            case 0..<0x20: throw failure("a control character in a string")
            default: out.append(byte)
            }
        }
    }

    mutating func hex4() throws(JSONTextError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            case 0x41...0x46: digit = byte - 0x41 + 10
            default: throw failure("not a hex digit")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

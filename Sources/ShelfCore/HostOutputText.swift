// HostOutputText: what a host printed, made safe to put on a terminal — the one sanitiser for host output (`run`'s
// grouped output, the TUI's run pane). Text and line structure stay (printable UTF-8, tab, newline); everything a
// terminal would act on is shown instead, visibly and harmlessly, as `cat -v` does: a C0 control as ^X (ESC as ^[,
// so no escape sequence — CSI, OSC 52 clipboard or title, DCS, APC/PM/SOS — can start), DEL as ^?, a C1 control
// (U+0080–U+009F, the 8-bit CSI/OSC/DCS among them) and a bidi or line-separator control as <U+009B>; bytes that are
// not UTF-8 (an 8-bit C1 byte among them) as U+FFFD. A host is an adversary: its bytes can never hide, move or
// rewrite what sshelf prints around them.
public struct HostOutputText: Sendable {
    /// Bytes held back at the end of a chunk: the start of a UTF-8 character, or a CR that may begin a CRLF.
    private var pending: [UInt8] = []

    public init() {}

    /// A whole output made safe.
    public static func clean(_ bytes: [UInt8]) -> String {
        var text = HostOutputText()
        return text.feed(bytes) + text.finish()
    }

    /// The next chunk of a stream; a character split between chunks is shown whole with the chunk that ends it.
    public mutating func feed(_ bytes: [UInt8]) -> String {
        let input = pending.isEmpty ? bytes : pending + bytes
        pending = []
        var out: [UInt8] = []
        out.reserveCapacity(input.count + input.count / 8)
        let used = Self.convert(input, into: &out, final: false)
        pending = Array(input[used...])
        return String(decoding: out, as: UTF8.self)
    }

    /// What is held back, at the end of the stream (an unfinished character is not UTF-8: U+FFFD).
    public mutating func finish() -> String {
        var out: [UInt8] = []
        _ = Self.convert(pending, into: &out, final: true)
        pending = []
        return String(decoding: out, as: UTF8.self)
    }

    /// Converts `input` into `out`; returns how many bytes were used (the rest waits for more unless `final`).
    private static func convert(_ input: [UInt8], into out: inout [UInt8], final: Bool) -> Int {
        var i = 0
        let n = input.count
        while i < n {
            let byte = input[i]
            if byte < 0x80 {
                switch byte {
                case 0x0A, 0x09:
                    out.append(byte)
                case 0x0D:
                    // CRLF is a line end (a host that writes them); a CR alone would move the cursor: ^M.
                    if i + 1 == n && !final { return i }
                    if i + 1 < n && input[i + 1] == 0x0A {
                        i += 1
                        continue
                    }
                    out += [0x5E, 0x4D]
                case 0x00..<0x20:
                    out += [0x5E, byte + 0x40]
                case 0x7F:
                    out += [0x5E, 0x3F]
                default:
                    out.append(byte)
                }
                i += 1
                continue
            }
            switch character(input, at: i) {
            case .incomplete:
                if !final { return i }
                out += replacement
                i = n
            case .invalid(let length):
                out += replacement
                i += length
            case .scalar(let value, let length):
                if (0x80...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                    || (0x2066...0x2069).contains(value) || value == 0x2028 || value == 0x2029
                {
                    out += Array("<U+\(hex(value))>".utf8)
                } else {
                    out += input[i..<(i + length)]
                }
                i += length
            }
        }
        return n
    }

    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    private enum Character {
        case scalar(UInt32, length: Int)
        /// Not UTF-8: the bytes to show as one U+FFFD (the lead and the continuation bytes that fit it so far).
        case invalid(length: Int)
        /// A valid start that the input ends in.
        case incomplete
    }

    /// The UTF-8 character starting at `i` (a non-ASCII lead), checked as RFC 3629 says: no overlong forms, no
    /// surrogates, nothing above U+10FFFF.
    private static func character(_ input: [UInt8], at i: Int) -> Character {
        let lead = input[i]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
        case 0xE0...0xEF:
            (length, value) = (3, UInt32(lead & 0x0F))
            if lead == 0xE0 { low = 0xA0 }
            if lead == 0xED { high = 0x9F }
        case 0xF0...0xF4:
            (length, value) = (4, UInt32(lead & 0x07))
            if lead == 0xF0 { low = 0x90 }
            if lead == 0xF4 { high = 0x8F }
        default: return .invalid(length: 1)
        }
        for k in 1..<length {
            guard i + k < input.count else { return .incomplete }
            let next = input[i + k]
            guard next >= low && next <= high else { return .invalid(length: k) }
            (low, high) = (0x80, 0xBF)
            value = value << 6 | UInt32(next & 0x3F)
        }
        return .scalar(value, length: length)
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

// FileEntry: one row of the file pane — a name as the file system (or the server) has it, in bytes, and what is
// shown of it (escaped: a name is hostile input), its type, size, mode, owner, time, and a link's target.
import FoundationEssentials
import ShelfCore

public struct FileEntry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case file, directory, link, fifo, socket, characterDevice, blockDevice, other

        /// The `ls -l` type letter.
        public var letter: Character {
            switch self {
            case .file: "-"
            case .directory: "d"
            case .link: "l"
            case .fifo: "p"
            case .socket: "s"
            case .characterDevice: "c"
            case .blockDevice: "b"
            case .other: "?"
            }
        }

        /// From stat(2)'s st_mode (SFTP sends the same bits).
        public init(mode: UInt32?) {
            switch (mode ?? 0) & 0o170000 {
            case 0o100000: self = .file
            case 0o040000: self = .directory
            case 0o120000: self = .link
            case 0o010000: self = .fifo
            case 0o140000: self = .socket
            case 0o020000: self = .characterDevice
            case 0o060000: self = .blockDevice
            default: self = .other
            }
        }
    }

    /// The name's bytes, as listed: what a path to it is made of.
    public var name: [UInt8]
    /// The name as shown (FileName.shown).
    public var shown: String
    /// The shown name folded for the filter (HostSearch.fold), in bytes: worked out once, not at every key typed.
    public private(set) var folded: [UInt8]
    public var kind: Kind
    public var size: UInt64?
    /// Permission bits (with setuid, setgid, sticky).
    public var permissions: UInt32?
    public var owner: String
    public var group: String
    /// The modification time, as the app words it in local time.
    public var modified: String
    /// A link's target, shown (nil for anything else, or a link the other side could not read).
    public var linkTarget: String?
    /// A link that leads to a directory (Enter opens it).
    public var linkToDirectory: Bool

    public init(
        name: [UInt8], kind: Kind, size: UInt64? = nil, permissions: UInt32? = nil, owner: String = "",
        group: String = "", modified: String = "", linkTarget: String? = nil, linkToDirectory: Bool = false
    ) {
        self.name = name
        shown = FileName.shown(name)
        folded = Array(HostSearch.fold(shown).utf8)
        self.kind = kind
        self.size = size
        self.permissions = permissions
        self.owner = owner
        self.group = group
        self.modified = modified
        self.linkTarget = linkTarget
        self.linkToDirectory = linkToDirectory
    }

    public var isHidden: Bool { name.first == 0x2E }
    public var opens: Bool { kind == .directory || linkToDirectory }

    /// `drwxr-xr-x`, with s/S and t/T as ls writes them.
    public var modeText: String {
        guard let mode = permissions else { return String(kind.letter) + "?????????" }
        var text = String(kind.letter)
        let bits: [(UInt32, Character)] = [
            (0o400, "r"), (0o200, "w"), (0o100, "x"), (0o040, "r"), (0o020, "w"), (0o010, "x"),
            (0o004, "r"), (0o002, "w"), (0o001, "x"),
        ]
        for (i, (bit, letter)) in bits.enumerated() {
            let on = mode & bit != 0
            let special: (UInt32, Character, Character)? =
                i == 2 ? (0o4000, "s", "S") : i == 5 ? (0o2000, "s", "S") : i == 8 ? (0o1000, "t", "T") : nil
            if let (flag, lower, upper) = special, mode & flag != 0 {
                text.append(on ? lower : upper)
            } else {
                text.append(on ? letter : "-")
            }
        }
        return text
    }

    /// `1.2K`, `340M`: short sizes for the column (exact bytes under 10,000).
    public var sizeText: String {
        guard let size else { return "" }
        if size < 10_000 { return String(size) }
        let units = ["K", "M", "G", "T", "P"]
        var value = Double(size) / 1024
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return tenths < 100 ? "\(tenths / 10).\(tenths % 10)\(units[unit])" : "\(tenths / 10)\(units[unit])"
    }
}

/// A name or path as shown: valid UTF-8 kept, every control character, a backslash and every byte that is not
/// UTF-8 written as an escape (`\n`, `\x1b`, `\\`, `\xff`), so no name reaches the terminal as a command and two
/// different names never look the same.
public enum FileName {
    public static func shown(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            let (scalar, length) = decode(bytes, at: index)
            if let scalar {
                switch scalar.value {
                case 0x5C: out += "\\\\"
                case 0x0A: out += "\\n"
                case 0x09: out += "\\t"
                case 0..<0x20, 0x7F, 0x80..<0xA0: out += "\\x" + hex(scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            } else {
                out += "\\x" + hex(UInt32(bytes[index]))
            }
            index += length
        }
        return out
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return value > 0xFF
            ? String(value, radix: 16) : String([digits[Int(value >> 4)], digits[Int(value & 0xF)]])
    }

    /// One UTF-8 scalar at `index` (nil and length 1 for a byte that does not start a valid one).
    private static func decode(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar?, Int) {
        let first = bytes[index]
        if first < 0x80 { return (Unicode.Scalar(first), 1) }
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch first {
        case 0xC2...0xDF: (length, minimum, value) = (2, 0x80, UInt32(first & 0x1F))
        case 0xE0...0xEF: (length, minimum, value) = (3, 0x800, UInt32(first & 0x0F))
        case 0xF0...0xF4: (length, minimum, value) = (4, 0x10000, UInt32(first & 0x07))
        default: return (nil, 1)
        }
        guard index + length <= bytes.count else { return (nil, 1) }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, length)
    }
}

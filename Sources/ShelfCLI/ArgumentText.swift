// ArgumentText: the command line as text. Arguments arrive as bytes; one that is not valid UTF-8 is refused
// with where it breaks, instead of being stored with U+FFFD in place of the bytes (an address `10.0.\xff.1`
// must not become a host).
import FoundationEssentials
import Glibc
import ShelfCore

public enum ArgumentText {
    /// The process's arguments after the program name, each checked to be UTF-8.
    public static func processArguments() throws -> [String] {
        let argv = CommandLine.unsafeArgv
        return try (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = argv[index] else { return "" }
            let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
            return try text(Array(bytes), position: index)
        }
    }

    static func text(_ bytes: [UInt8], position: Int) throws -> String {
        if let offset = firstInvalidByte(bytes) {
            let byte = "0x" + TextFormat.hex(bytes[offset])
            throw ShelfError(
                .usage,
                "argument \(position) is not valid UTF-8: byte \(offset + 1) (\(byte)) does not form a character",
                hint: "sshelf keeps names, addresses and paths as UTF-8 text; check the encoding of "
                    + "your terminal or script")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The offset of the first byte that does not begin a valid UTF-8 sequence, or nil when all are valid.
    static func firstInvalidByte(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }
}

// JSONOutput: the one way the CLI writes JSON (every --json): ShelfJSON's encoder, then the text made safe for a
// terminal — a C1 control (U+0080–U+009F: U+009B is an 8-bit CSI to some terminals) written as its \u escape, as
// JSON's own C0 escapes already are. The value read back is the same; only its bytes on the screen are harmless.
import FoundationEssentials
import ShelfCore

enum JSONOutput {
    static func encode<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        terminalSafe(try ShelfJSON.encoder(pretty: pretty).encode(value))
    }

    /// JSON text with every C1 control as `\u00XX`. A C1 control can only stand inside a JSON string (it is no JSON
    /// syntax), where the escape means the same character.
    static func terminalSafe(_ json: some Collection<UInt8>) -> String {
        let text = String(decoding: json, as: UTF8.self)
        guard text.unicodeScalars.contains(where: isC1) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isC1(scalar) {
                out.append(contentsOf: "\\u00\(TextFormat.hex(UInt8(scalar.value), width: 2))".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func isC1(_ scalar: Unicode.Scalar) -> Bool { (0x80...0x9F).contains(scalar.value) }
}

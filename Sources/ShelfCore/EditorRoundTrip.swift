// EditorRoundTrip: the pure parts of editing a host's file in the user's editor — which editor (`$EDITOR`, then
// `$VISUAL`), its command split into words as a shell splits them (quotes and backslashes, no expansion: the words
// are run directly, never through `sh -c`), the size the round trip takes, and the local copy's name made from the
// server's name (hostile input: escapes, newlines, `..`, very long) with only plain characters left.
import FoundationEssentials

public enum EditorRoundTrip {
    /// The largest file the round trip downloads: it is held in memory to compare what came back.
    public static let sizeLimit: UInt64 = 64 << 20
    /// The longest local copy name (bytes): an editor shows it, and it must fit any file system.
    static let nameLimit = 80

    /// The editor's words from `$EDITOR`, else `$VISUAL` (an empty one counts as unset), or why there is none.
    public static func editor(_ environment: [String: String]) -> Result<[String], EditorProblem> {
        for variable in ["EDITOR", "VISUAL"] {
            guard let value = environment[variable], !value.allSatisfy({ $0 == " " || $0 == "\t" }) else { continue }
            guard let words = split(value) else {
                return .failure(
                    EditorProblem(
                        "$\(variable) has a quote that is not closed: set it to the editor's command, e.g. "
                            + "EDITOR='code --wait'"))
            }
            return .success(words)
        }
        return .failure(
            EditorProblem(
                "neither $EDITOR nor $VISUAL is set: set one to your editor (e.g. export EDITOR=nano) and open sshelf "
                    + "again"))
    }

    /// Splits `text` into words as sh does before running a command: blanks separate words, '…' keeps everything,
    /// "…" keeps everything but a backslash before " \ $ `, a backslash outside quotes keeps the next character.
    /// Nothing is expanded. Nil for an unclosed quote or a trailing backslash.
    public static func split(_ text: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = Array(text)[...]
        while let ch = characters.popFirst() {
            switch ch {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                (word, inWord) = ("", false)
            case "'":
                inWord = true
                guard let end = characters.firstIndex(of: "'") else { return nil }
                word += String(characters[..<end])
                characters = characters[(end + 1)...]
            case "\"":
                inWord = true
                var closed = false
                while let inner = characters.popFirst() {
                    if inner == "\"" {
                        closed = true
                        break
                    }
                    if inner == "\\", let next = characters.first, "\"\\$`".contains(next) {
                        word.append(next)
                        characters = characters.dropFirst()
                    } else {
                        word.append(inner)
                    }
                }
                guard closed else { return nil }
            case "\\":
                guard let next = characters.popFirst() else { return nil }
                inWord = true
                if next != "\n" { word.append(next) }
            default:
                inWord = true
                word.append(ch)
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The local copy's name for the server's `name`: letters, digits and `. _ - +` kept, any other byte `_`, no
    /// leading dot or dash (so never `.`, `..`, a hidden name or an option), at most 80 bytes keeping a short
    /// extension (so the editor still knows the file's type); `file` when nothing is left.
    public static func localName(_ name: [UInt8]) -> String {
        var plain = String(
            decoding: name.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"),
                    UInt8(ascii: "+"):
                    return byte
                default: return UInt8(ascii: "_")
                }
            }, as: UTF8.self)
        while let first = plain.first, first == "." || first == "-" { plain.removeFirst() }
        if plain.isEmpty { return "file" }
        guard plain.utf8.count > nameLimit else { return plain }
        let dot = plain.lastIndex(of: ".")
        let ext = dot.map { String(plain[$0...]) } ?? ""
        let keep = ext.count <= 16 ? ext : ""
        return String(plain.prefix(nameLimit - keep.count)) + keep
    }

    /// The name offered for "save mine as": `NAME.mine`, then `NAME.mine2`… until one is not in `taken`.
    public static func otherName(for name: [UInt8], taken: Set<[UInt8]>) -> [UInt8] {
        // Cut so the whole stays a name a file system takes (255 bytes).
        let name = name.count > 245 ? Array(name.prefix(245)) : name
        var number = 1
        while true {
            let candidate = name + Array(".mine\(number == 1 ? "" : String(number))".utf8)
            if !taken.contains(candidate) { return candidate }
            number += 1
        }
    }
}

/// Why the editor cannot be run, in words for the title bar.
public struct EditorProblem: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

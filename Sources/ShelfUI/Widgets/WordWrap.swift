// WordWrap: text broken at spaces into lines of at most a width in cells (a double-width character counts twice; a
// word longer than the width stays whole on its own line, for the canvas to cut) — prompts, dialogs, the help.
import FoundationEssentials

enum WordWrap {
    /// The lines; one empty line for empty text.
    static func lines(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if CharWidth.of(line) + 1 + CharWidth.of(String(word)) <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}

// TUIErrorLine: an error as the TUI's one-line notices say it — the message and the hint the CLI prints
// (`sshelf: error: …`, `sshelf: hint: …`, both from ShelfError), on one line, control characters removed.
import ShelfCore
import ShelfOperations

enum TUIErrorLine {
    static func text(_ error: Error) -> String {
        let failure = ShelfError(from: error)
        return Display.safe(failure.message) + (failure.hint.map { "; hint: \(Display.safe($0))" } ?? "")
    }
}

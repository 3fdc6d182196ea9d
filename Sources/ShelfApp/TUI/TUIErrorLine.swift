// TUIErrorLine: an error as the TUI's one-line notices say it — the message and the hint the CLI prints
// (`sshelf: error: …`, `sshelf: hint: …`, both from ShelfError), on one line, control characters removed. Where
// the hint asks for the vault passphrase (PassphraseNeed), the TUI names its own way: the V key.
import ShelfCore
import ShelfOperations

enum TUIErrorLine {
    static func text(_ error: Error) -> String {
        let failure = ShelfError(from: error)
        return Display.safe(failure.message) + (failure.hint.map { "; hint: \(Display.safe(hint($0)))" } ?? "")
    }

    /// A hint with the TUI's way to give the vault passphrase in place of PassphraseNeed's words.
    static func hint(_ text: String) -> String {
        PassphraseNeed.worded(text) { need in
            switch need {
            case .give, .giveAtStart: "press V to unlock the vault"
            case .giveTheRightOne: "press V and type the right vault passphrase"
            }
        }
    }
}

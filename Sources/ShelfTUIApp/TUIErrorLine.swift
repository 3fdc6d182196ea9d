// TUIErrorLine: an error as the TUI's one-line notices say it — the message and the hint the CLI prints
// (`sshelf: error: …`, `sshelf: hint: …`, both from ShelfError), on one line, control characters removed. Where
// the hint asks for the vault passphrase (PassphraseNeed), or to run `sshelf vault unlock`, the TUI names its own way:
// the V key. A hint given as data (Hint) is worded part by part; one given as words is shown as it is.
import ShelfCore
import ShelfOperations

enum TUIErrorLine {
    static func text(_ error: Error) -> String {
        let failure = ShelfError(from: error)
        return Display.safe(failure.message) + (hint(for: failure).map { "; hint: \(Display.safe($0))" } ?? "")
    }

    /// A failure's hint in the TUI's words: given as data, worded part by part; given as words, as it is.
    static func hint(for failure: ShelfError) -> String? { failure.guidance.map(words) ?? failure.hint }

    /// A hint given as data, in the TUI's words: its key for what it has one for, other commands as typed.
    static func words(_ hint: Hint) -> String {
        hint.worded { part in
            switch part {
            case .passphrase(let need): passphrase(need)
            case .command(["vault", "unlock"]): "press V to unlock the vault"
            default: nil
            }
        }
    }

    /// How the TUI takes the vault passphrase: the V key.
    static func passphrase(_ need: PassphraseNeed) -> String {
        switch need {
        case .give, .giveAtStart: "press V to unlock the vault"
        case .giveTheRightOne: "press V and type the right vault passphrase"
        }
    }
}

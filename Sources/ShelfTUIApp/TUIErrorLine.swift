// TUIErrorLine: an error as the TUI's one-line notices say it — the message and the hint the CLI prints
// (`sshelf: error: …`, `sshelf: hint: …`, both from ShelfError), on one line, control characters removed. Where
// the hint asks for the vault passphrase (PassphraseNeed), or to run `sshelf vault unlock`, the TUI names its own way:
// the V key (but not for a passphrase another process must be given at its start: V cannot reach it). A hint given
// as data (Hint) is worded part by part; one given as words is shown as it is.
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

    /// How the TUI takes the vault passphrase: the V key — except for a passphrase a process that logs in with
    /// nobody there (`forward up`, the service) must be given when it starts, which is asked for only where this
    /// system keeps no unlock between processes: V unlocks this TUI alone and cannot reach that process.
    static func passphrase(_ need: PassphraseNeed) -> String {
        switch need {
        case .give: "press V to unlock the vault"
        case .giveAtStart:
            "restart 'sshelf forward up', giving it the vault passphrase when it starts (press V to unlock this TUI "
                + "alone)"
        case .giveTheRightOne: "press V and type the right vault passphrase"
        }
    }
}

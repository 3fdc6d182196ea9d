// PassphraseNeed: how a hint below the faces asks for the vault passphrase without naming one face's way to give
// it (a CLI flag, a TUI key, the service's "never given one"): a part of a hint given as data
// (Hint.Part.passphrase), which each face words — the CLI names --passphrase-fd (CLIErrorHints), the TUI its V key
// (TUIErrorLine), the service what can take one (ServiceHintWords). `words` is the face-neutral reading (logs,
// `--json`, saved reports), plain advice on its own.
public enum PassphraseNeed: String, CaseIterable, Sendable, Codable {
    /// The command was given no vault passphrase.
    case give
    /// The passphrase given was wrong.
    case giveTheRightOne
    /// A process that logs in with nobody there (`forward up`) takes it once, when it starts.
    case giveAtStart

    /// The face-neutral words, as they stand in a hint.
    public var words: String {
        switch self {
        case .give: "give the vault passphrase"
        case .giveTheRightOne: "give the right vault passphrase"
        case .giveAtStart: "give the vault passphrase when starting it"
        }
    }
}

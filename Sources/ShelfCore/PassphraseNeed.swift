// PassphraseNeed: how a hint below the faces asks for the vault passphrase without naming one face's way to give
// it (a CLI flag, a TUI key). A hint given as data carries it as a part (Hint.Part.passphrase); vault, sync and
// connect hints still given as words (they travel as strings: SSH's credential lookups, saved sync reports) say
// `need.words`, which each face replaces where it shows a hint: the CLI names --passphrase-fd (CLIErrorHints), the TUI
// its V key (TUIErrorLine). A face that shows a hint unworded still reads as plain advice.
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

    /// `hint` with each need's words replaced by a face's own, in one pass (the longest words first, as one need's
    /// words start another's; a face's words are never read again).
    public static func worded(_ hint: String, by face: (PassphraseNeed) -> String) -> String {
        let needs = allCases.sorted { $0.words.count > $1.words.count }
        var text = ""
        var rest = Substring(hint)
        while !rest.isEmpty {
            if let need = needs.first(where: { rest.hasPrefix($0.words) }) {
                text += face(need)
                rest = rest.dropFirst(need.words.count)
            } else {
                text.append(rest.removeFirst())
            }
        }
        return text
    }
}

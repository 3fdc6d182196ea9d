// CLIErrorHints: the parts of a hint that name command-line flags (--force, --allow-duplicate), added where the CLI
// prints a failure. The operations layer says what is wrong, and what to do, in words every face can show; a flag
// exists only here (the TUI has no --force: its own dialogs ask). A hint given as data (Hint) is worded here part by
// part: commands as typed, the vault passphrase on --passphrase-fd (the TUI names its V key); one given as words is
// printed as it is (no face replaces phrases in another's text: ArchitectureTests' HintWordingRuleTests).
import ShelfCore
import ShelfOperations
import ShelfSync

enum CLIErrorHints {
    static func shelfError(from error: any Error) -> ShelfError {
        var mapped = ShelfError(from: error)
        switch error {
        case is HostOperations.StillJumpedThrough:
            mapped.hint =
                (mapped.hint.map { $0 + ", or" } ?? "")
                + " remove it anyway with --force ('sshelf check' then lists the hosts left with a missing jump host)"
        case is HostOperations.NameTaken:
            mapped.hint = "choose another name, or keep both with --allow-duplicate (then name each as NAME@ID)"
        default:
            break
        }
        if let guidance = mapped.guidance { mapped.hint = words(guidance) }
        return mapped
    }

    /// A hint given as data, in the CLI's words.
    static func words(_ hint: Hint) -> String {
        hint.worded { part in
            guard case .passphrase(let need) = part else { return nil }
            return passphrase(need)
        }
    }

    /// A sync report's hint in the CLI's words: given as data, part by part; a report saved before hints were data
    /// keeps its face-neutral words.
    static func words(_ report: SyncReport) -> String? { report.guidance.map(words) ?? report.hint }

    /// How the CLI takes the vault passphrase.
    static func passphrase(_ need: PassphraseNeed) -> String {
        switch need {
        case .give:
            "give the vault passphrase on a terminal, or on a file descriptor: --passphrase-fd N "
                + "(e.g. --passphrase-fd 3 3<file)"
        case .giveTheRightOne:
            "give the right one: typed at the prompt, or as the first line read from --passphrase-fd N"
        case .giveAtStart: "give the passphrase when starting it (--passphrase-fd N)"
        }
    }
}

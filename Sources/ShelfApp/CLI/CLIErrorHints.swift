// CLIErrorHints: the parts of a hint that name command-line flags (--force, --allow-duplicate), added where the CLI
// prints a failure. The operations layer says what is wrong, and what to do, in words every face can show; a flag
// exists only here (the TUI has no --force: its own dialogs ask).
import ShelfCore
import ShelfOperations

enum CLIErrorHints {
    static func shelfError(from error: any Error) -> ShelfError {
        var mapped = ShelfError(from: error)
        switch error {
        case is HostOperations.StillJumpedThrough:
            mapped.hint = (mapped.hint.map { $0 + ", or" } ?? "")
                + " remove it anyway with --force ('sshelf check' then lists the hosts left with a missing jump host)"
        case is HostOperations.NameTaken:
            mapped.hint = "choose another name, or keep both with --allow-duplicate (then name each as NAME@ID)"
        default:
            break
        }
        return mapped
    }
}

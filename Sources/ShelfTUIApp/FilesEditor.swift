// FilesEditor: runs the user's editor on a private copy, on the terminal the TUI steps out of — its words from
// `$EDITOR`/`$VISUAL` (split as a shell splits them, run directly: never `sh -c`, so no name from the server is ever
// read by a shell), the program found on `$PATH`, the copy's path as the last argument, and the environment without
// sshelf's own variables.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

enum FilesEditor {
    /// Runs `words` + `file` with the terminal as its 0, 1 and 2; its exit status, or why it could not start.
    static func run(_ words: [String], file: String, environment: [String: String]) -> Result<Int32, EditorProblem> {
        guard let program = words.first, !program.isEmpty else { return .failure(EditorProblem("the editor is empty")) }
        guard let path = find(program, environment: environment) else {
            let whereNot = program.contains("/") ? "is not a program that can run" : "is not found on $PATH"
            return .failure(EditorProblem("the editor \(program) \(whereNot): set $EDITOR to one installed"))
        }
        // sshelf's own settings are no business of the editor's (and nothing of the vault is in the environment).
        let editorEnvironment = environment.filter { !$0.key.hasPrefix("SSHELF_") }
        // Ctrl-C belongs to the editor (its signals are back to the defaults in the child), not to the TUI.
        let previousInt = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previousInt) }
        switch ChildProcess.spawn(
            [path] + words.dropFirst() + [file], stdin: 0, stdout: 1, stderr: 2, environment: editorEnvironment)
        {
        case .success(let pid): return .success(ChildProcess.wait(pid))
        case .failure(let error): return .failure(EditorProblem("could not start the editor \(program): \(error)"))
        }
    }

    /// `program` itself when it has a `/`, else the first executable file of that name in `$PATH`'s folders.
    static func find(_ program: String, environment: [String: String]) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}

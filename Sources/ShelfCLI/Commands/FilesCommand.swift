// FilesCommand: `sshelf files HOST [PATH]` — opens the terminal UI on the host's file pane (this machine's folder
// beside the host's), logging in as the TUI's Enter does.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem

#if canImport(Glibc)
import Glibc
#endif

enum FilesCommand {
    static let command = CommandSpec(
        path: ["files"], summary: "browse a host's files beside this machine's, in the terminal UI",
        details: """
            Opens the terminal UI's file pane on HOST: this machine's folder on the left (the current one, or \
            --local DIR), the host's on the right (its login's home, or PATH; a relative PATH starts there). The \
            login is the TUI's (host key verified before any credential, questions as dialogs); the keys are the \
            file pane's (? inside lists them). Enter on a host's file opens a private copy in $EDITOR (else \
            $VISUAL) and saves it back only if the host's file did not change meanwhile (else it asks: overwrite, \
            keep theirs, or save yours under another name). Needs a terminal on stdin and stdout.
            """,
        arguments: [
            ArgumentSpec(name: "HOST", help: "host name (or id prefix)", completion: .host),
            ArgumentSpec(
                name: "PATH", help: "the host's folder to start in (default: the login's home)", optional: true),
        ],
        options: Options.self,
        examples: ["sshelf files web1", "sshelf files web1 /var/log --local ~/logs"],
        run: run)

    struct Options: CommandOptions {
        let local = Option(
            "local", .path("DIR"), "this machine's folder to start in (default: the current one)")
    }

    static func run(_ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        let (plan, _) = try SSHCommands.plan(for: call.arguments[0], context)
        guard SelfProcess.isInteractive, let openTerminalUI = context.openTerminalUI else {
            throw ShelfError(
                .usage, "files: stdin and stdout must be a terminal",
                hint: "run it in a terminal; scripts copy with 'sshelf cp'")
        }
        var local: [UInt8]?
        if let folder = call[\.local] {
            let path = PathText.standardized(folder, home: context.homeDirectory)
            var info = stat()
            guard let resolved = realpath(path, nil), stat(resolved, &info) == 0, info.st_mode & S_IFMT == S_IFDIR
            else {
                throw ShelfError(
                    .invalid, "files: --local \(Display.safe(folder)) is not a folder",
                    hint: "give a folder on this machine, or leave --local out for the current one")
            }
            defer { free(resolved) }
            local = Array(String(cString: resolved).utf8)
        }
        context.filesOnStart = (
            plan.target.id, plan.target.name, call.arguments.count > 1 ? Array(call.arguments[1].utf8) : nil, local
        )
        return openTerminalUI(context, nil)
    }
}

// CommandLineRun: the command line face's entry — parses argv against the command table, runs the command, and
// turns every error into `sshelf: error: …` / `sshelf: hint: …` with its exit code.
import ShelfCore
import ShelfOperations
import ShelfServices

public enum CommandLineRun {
    public static func run(_ argv: [String], context: AppContext) -> Int32 {
        do {
            switch try ArgumentParser.parse(argv, table: Commands.table) {
            case .help(let text):
                context.output(text)
                return 0
            case .version:
                context.print("sshelf \(AppVersion.version)")
                return 0
            case .run(let invocation):
                return try invocation.command.run(invocation, context)
            }
        } catch {
            return fail(error, context: context)
        }
    }

    /// Prints any failure in the one shape (ShelfError(from:), with the CLI's flags in its hint) and returns its
    /// exit code.
    public static func fail(_ error: any Error, context: AppContext) -> Int32 {
        let error = CLIErrorHints.shelfError(from: error)
        var text = "sshelf: error: \(Display.safe(error.message))\n"
        if let detail = error.detail { text += "sshelf: \(Display.safe(detail))\n" }
        if let hint = error.hint { text += "sshelf: hint: \(Display.safe(hint))\n" }
        context.errorOutput(text)
        return error.exitCode
    }
}

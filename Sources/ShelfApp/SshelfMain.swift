// SshelfMain: the composition root — hardens the process, parses argv against the command table, runs the
// command, and turns every error into `sshelf: error: …` / `sshelf: hint: …` with its exit code.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSystem

public enum SshelfMain {
    /// Runs the process's own command line (read as bytes, so non-UTF-8 arguments are refused, not mangled).
    public static func run() -> Int32 {
        ProcessHardening.apply()
        signal(SIGPIPE, SIG_IGN)  // `sshelf list | head` must end quietly, not die mid-write
        let context = AppContext(
            environment: ProcessInfo.processInfo.environment,
            output: { StandardStreams.write($0, fd: 1) },
            errorOutput: { StandardStreams.write($0, fd: 2) })
        let argv: [String]
        do { argv = try ArgumentText.processArguments() } catch {
            return fail(error, context: context)
        }
        return run(argv, context: context)
    }

    static func run(_ argv: [String], context: AppContext) -> Int32 {
        // No arguments on a terminal opens the TUI; piped or redirected, the overview help is printed instead.
        if argv.isEmpty && TUIApp.isInteractive { return TUIApp(context: context).run() }
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
    static func fail(_ error: any Error, context: AppContext) -> Int32 {
        let error = CLIErrorHints.shelfError(from: error)
        var text = "sshelf: error: \(Display.safe(error.message))\n"
        if let detail = error.detail { text += "sshelf: \(Display.safe(detail))\n" }
        if let hint = error.hint { text += "sshelf: hint: \(Display.safe(hint))\n" }
        context.errorOutput(text)
        return error.exitCode
    }
}

/// Output goes straight to the file descriptors (unbuffered by us), so nothing is pending at exit.
public func exitProcess(_ code: Int32) -> Never {
    exit(code)
}

enum StandardStreams {
    /// Writes all of `text`, retrying short writes and EINTR; a closed pipe (EPIPE) ends the write quietly.
    static func write(_ text: String, fd: Int32) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), fd: fd) }
    }

    /// Writes all of `bytes` (binary-safe, for exec output).
    static func write(_ bytes: UnsafeRawBufferPointer, fd: Int32) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

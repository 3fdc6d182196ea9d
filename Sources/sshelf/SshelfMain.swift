// SshelfMain: the composition root — hardens the process, wires the faces together (no arguments on a terminal
// opens the TUI, `sshelf ui` too; anything else is the command line), and hands over the process.
import FoundationEssentials
import Glibc
import ShelfCLI
import ShelfServices
import ShelfSystem
import ShelfTUIApp

enum SshelfMain {
    /// Runs the process's own command line (read as bytes, so non-UTF-8 arguments are refused, not mangled).
    static func run() -> Int32 {
        ProcessHardening.apply()
        signal(SIGPIPE, SIG_IGN)  // `sshelf list | head` must end quietly, not die mid-write
        // A SIGCHLD ignored by whoever started sshelf (bash's `trap '' CHLD` passes through exec) would have the
        // kernel reap its children (ssh, ssh -G, git…), whose exit statuses it reads.
        signal(SIGCHLD, SIG_DFL)
        TestOwnerWatch.start(environment: ProcessInfo.processInfo.environment)
        let context = AppContext(
            environment: ProcessInfo.processInfo.environment,
            output: { StandardStreams.write($0, fd: 1) },
            errorOutput: { StandardStreams.write($0, fd: 2) })
        context.openTerminalUI = { context, benchmark in
            let app = TUIApp(context: context)
            if let benchmark { app.benchmark = TUIBenchmark(reportPath: benchmark.report, query: benchmark.query) }
            return app.run()
        }
        let argv: [String]
        do { argv = try ArgumentText.processArguments() } catch {
            return CommandLineRun.fail(error, context: context)
        }
        // No arguments on a terminal opens the TUI; piped or redirected, the overview help is printed instead.
        if argv.isEmpty && SelfProcess.isInteractive { return TUIApp(context: context).run() }
        return CommandLineRun.run(argv, context: context)
    }
}

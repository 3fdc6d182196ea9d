// UICommands: `ui` — opens the terminal UI explicitly (what `sshelf` with no arguments does on a terminal),
// prints the generated README keymap, or runs the in-program benchmark that bench/tui drives.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem
import ShelfUI

enum UICommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["ui"], summary: "open the terminal UI (same as sshelf with no arguments)",
            details: "Needs a terminal on stdin and stdout. Press ? inside for the keys. The reachability column (p: a "
                + "TCP connect to each host on screen every 30 s) starts hidden, since unasked connections can trip an "
                + "intrusion detector; SSHELF_REACHABILITY=on (or auto: on for up to 1,000 hosts) starts it shown.",
            options: [
                .flag("print-keymap", "print the keymap as Markdown (the README section) and exit"),
                .value(
                    "benchmark-report", "FILE", completion: .file,
                    "benchmark: time start to first frame and each keystroke of --benchmark-query, write FILE, quit"),
                .value("benchmark-query", "TEXT", "benchmark: the query typed one key at a time (default: web 42)"),
                .value(
                    "benchmark-seed", "COUNT",
                    "benchmark: fill an EMPTY store with COUNT generated hosts and exit (refused when it has hosts)"),
                .value(
                    "benchmark-data", "KIND", completion: .words(["synthetic", "realistic"]),
                    "benchmark: what --benchmark-seed makes: synthetic (default) or realistic"),
                .value(
                    "benchmark-ssh-config", "FILE", completion: .file,
                    "benchmark: also write the same hosts as an ssh_config to FILE"),
            ],
            examples: ["sshelf ui", "sshelf ui --print-keymap"],
            run: ui)
    ]

    static func ui(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        if call.flag("print-keymap") {
            context.output(Keymap.markdown())
            return 0
        }
        if let count = call.value("benchmark-seed") {
            return try seed(count, call, context)
        }
        guard SelfProcess.isInteractive, let openTerminalUI = context.openTerminalUI else {
            throw ShelfError(
                .usage, "ui: stdin and stdout must be a terminal",
                hint: "run it in a terminal; scripts use 'sshelf list --json'")
        }
        let query = call.value("benchmark-query") ?? "web 42"
        return openTerminalUI(context, call.value("benchmark-report").map { (report: $0, query: query) })
    }

    /// Writes generated hosts (BenchmarkData) in one transaction, and optionally the same hosts as an ssh_config.
    static func seed(_ text: String, _ call: Invocation, _ context: AppContext) throws -> Int32 {
        guard let count = Int(text), (1...1_000_000).contains(count) else {
            throw ShelfError(.usage, "ui: --benchmark-seed needs a count from 1 to 1000000")
        }
        let kindName = call.value("benchmark-data") ?? "synthetic"
        guard let kind = BenchmarkData.Kind(rawValue: kindName) else {
            throw ShelfError(.usage, "ui: --benchmark-data is synthetic or realistic, not '\(Display.safe(kindName))'")
        }
        let entries = BenchmarkData.entries(count: count, kind: kind)
        let store = try context.store()
        guard try store.hostCount() == 0 else {
            throw ShelfError(
                .invalid, "ui: --benchmark-seed only fills an empty store",
                hint: "point SSHELF_HOME at a fresh folder for benchmarks")
        }
        try BenchmarkData.seed(entries, into: store)
        if let output = call.value("benchmark-ssh-config") {
            let path = SSHConfigReader.expandTilde(output, home: context.homeDirectory)
            do { try PrivateFiles.atomicWrite(Data(BenchmarkData.sshConfig(entries).utf8), to: path) } catch {
                throw ShelfError(.failure, "cannot write \(path): \(error)")
            }
        }
        context.print("seeded \(count) \(kind.rawValue) hosts")
        return 0
    }
}

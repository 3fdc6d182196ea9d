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
            options: Options.self,
            examples: ["sshelf ui", "sshelf ui --print-keymap"],
            run: ui)
    ]

    struct Options: CommandOptions {
        let printKeymap = Flag("print-keymap", "print the keymap as Markdown (the README section) and exit")
        let benchmarkReport = Option(
            "benchmark-report", .path("FILE"),
            "benchmark: time start to first frame and each keystroke of --benchmark-query, write FILE, quit")
        let benchmarkQuery = Option(
            "benchmark-query", .text("TEXT"), "benchmark: the query typed one key at a time (default: web 42)")
        let benchmarkSeed = Option(
            "benchmark-seed", .count(1...1_000_000, placeholder: "COUNT", examples: ["100000"]),
            "benchmark: fill an EMPTY store with COUNT generated hosts and exit (refused when it has hosts)")
        let benchmarkData = Option(
            "benchmark-data", .choice(BenchmarkData.Kind.allCases.map { ($0.rawValue, $0) }, placeholder: "KIND"),
            "benchmark: what --benchmark-seed makes: synthetic (default) or realistic")
        let benchmarkSSHConfig = Option(
            "benchmark-ssh-config", .path("FILE"), "benchmark: also write the same hosts as an ssh_config to FILE")
    }

    static func ui(_ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        if call[\.printKeymap] {
            context.output(Keymap.markdown())
            return 0
        }
        if let count = call[\.benchmarkSeed] {
            return try seed(count, call, context)
        }
        guard SelfProcess.isInteractive, let openTerminalUI = context.openTerminalUI else {
            throw ShelfError(
                .usage, "ui: stdin and stdout must be a terminal",
                hint: "run it in a terminal; scripts use 'sshelf list --json'")
        }
        let query = call[\.benchmarkQuery] ?? "web 42"
        return openTerminalUI(context, call[\.benchmarkReport].map { (report: $0, query: query) })
    }

    /// Writes generated hosts (BenchmarkData) in one transaction, and optionally the same hosts as an ssh_config.
    static func seed(_ count: Int, _ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        let kind = call[\.benchmarkData] ?? .synthetic
        let entries = BenchmarkData.entries(count: count, kind: kind)
        let store = try context.store()
        guard try store.hostCount() == 0 else {
            throw ShelfError(
                .invalid, "ui: --benchmark-seed only fills an empty store",
                hint: "point SSHELF_HOME at a fresh folder for benchmarks")
        }
        try BenchmarkData.seed(entries, into: store)
        if let output = call[\.benchmarkSSHConfig] {
            let path = SSHConfigReader.expandTilde(output, home: context.homeDirectory)
            do { try PrivateFiles.atomicWrite(Data(BenchmarkData.sshConfig(entries).utf8), to: path) } catch {
                throw ShelfError(.failure, "cannot write \(path): \(error)")
            }
        }
        context.print("seeded \(count) \(kind.rawValue) hosts")
        return 0
    }
}

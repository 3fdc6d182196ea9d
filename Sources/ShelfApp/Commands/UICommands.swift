// UICommands: `ui` — opens the terminal UI explicitly (what `sshelf` with no arguments does on a terminal),
// prints the generated README keymap, or runs the in-program benchmark that bench/tui drives.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfUI

enum UICommands {
    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["ui"], summary: "open the terminal UI (same as sshelf with no arguments)",
            details: "Needs a terminal on stdin and stdout. Press ? inside for the keys.",
            options: [
                .flag("print-keymap", "print the keymap as Markdown (the README section) and exit"),
                .value("benchmark-report", "FILE", completion: .file,
                       "benchmark: time start to first frame and each keystroke of --benchmark-query, write FILE, quit"),
                .value("benchmark-query", "TEXT", "benchmark: the query typed one key at a time (default: web 42)"),
                .value("benchmark-seed", "COUNT",
                       "benchmark: fill an EMPTY store with COUNT synthetic hosts and exit (refused when it has hosts)"),
            ],
            examples: ["sshelf ui", "sshelf ui --print-keymap"],
            run: ui),
    ]

    static func ui(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        if call.flag("print-keymap") {
            context.output(Keymap.markdown())
            return 0
        }
        if let count = call.value("benchmark-seed") {
            return try seed(count, context)
        }
        guard TUIApp.isInteractive else {
            throw ShelfError(.usage, "ui: stdin and stdout must be a terminal",
                             hint: "run it in a terminal; scripts use 'sshelf list --json'")
        }
        let app = TUIApp(context: context)
        if let report = call.value("benchmark-report") {
            app.benchmark = TUIBenchmark(reportPath: report, query: call.value("benchmark-query") ?? "web 42")
        }
        return app.run()
    }

    /// Writes synthetic hosts in one transaction (the CLI's one-by-one `add` is far too slow for 100,000).
    static func seed(_ text: String, _ context: AppContext) throws -> Int32 {
        guard let count = Int(text), (1...1_000_000).contains(count) else {
            throw ShelfError(.usage, "ui: --benchmark-seed needs a count from 1 to 1000000")
        }
        let store = try context.store()
        try store.write { store in
            guard try store.hostCount() == 0 else {
                throw ShelfError(.invalid, "ui: --benchmark-seed only fills an empty store",
                                 hint: "point SSHELF_HOME at a fresh folder for benchmarks")
            }
            let paths = ["prod/eu/web", "prod/eu/db", "prod/us", "staging", "lab", "dev/team-a", "dev/team-b"]
            let groups = try paths.map { try GroupOperations.create($0, in: store)?.id }
            let tags = [["web"], ["db", "critical"], ["cache"], [], ["web", "canary"]]
            let hosts = (0..<count).map { n in
                ShelfCore.Host(name: String(format: "host-%06d", n), hostname: "10.\(n >> 16).\((n >> 8) & 255).\(n & 255)",
                               user: n % 3 == 0 ? "root" : "deploy", groupID: groups[n % groups.count],
                               tags: tags[n % tags.count])
            }
            try store.save(hosts: hosts)
        }
        context.print("seeded \(count) hosts")
        return 0
    }
}

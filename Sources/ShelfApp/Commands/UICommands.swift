// UICommands: `ui` — opens the terminal UI explicitly (what `sshelf` with no arguments does on a terminal),
// prints the generated README keymap, or runs the in-program benchmark that bench/tui drives.
import Foundation
import ShelfCore
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
            ],
            examples: ["sshelf ui", "sshelf ui --print-keymap"],
            run: ui),
    ]

    static func ui(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        if call.flag("print-keymap") {
            context.output(Keymap.markdown())
            return 0
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
}

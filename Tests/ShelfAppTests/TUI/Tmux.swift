// Tmux: drives a program inside a private tmux server (its own socket), as a user at a terminal would: send keys,
// read the screen (with colour escapes when asked), resize the window, wait until the screen shows something.
import Foundation
import TestSupport
import XCTest

final class Tmux {
    let socket = "sshelf-test-" + UUID().uuidString.prefix(8)
    let session = "tui"
    /// Where the pane's shell writes the program's exit status (tmux's #{pane_dead_status} is sometimes empty
    /// when the pane's terminal closes before tmux reaps the process).
    let statusPath: String
    private let configPath: String
    /// The tmux server, in the foreground (-D) as our own child rather than a daemon, so that it dies with the
    /// test process (SpawnedProcess) even when the test crashes before kill-server.
    private let server: SpawnedProcess

    /// Starts `sshelf ARGS` in a detached session of the given size with exactly `environment`.
    convenience init(
        home: TempHome, arguments: [String] = [], columns: Int = 100, rows: Int = 30,
        environment extra: [String: String] = [:], removing: Set<String> = ["NO_COLOR"], options: [String] = []
    ) throws {
        var env = home.environment.filter { !removing.contains($0.key) }
        // No reachability probes unless a test asks (TUIReachabilityTests): other tests' listeners count connections.
        env["SSHELF_REACHABILITY"] = "off"
        for (key, value) in extra { env[key] = value }
        try self.init(
            home: home, command: [CLI.binary] + arguments, environment: env, columns: columns, rows: rows,
            options: options)
    }

    /// Starts `command` in a detached session of the given size with exactly `environment` (plus the pane's own
    /// TERM unless the environment sets one). The pane stays on screen after the command ends (remain-on-exit),
    /// so a test reads what it printed last without keeping it alive. `options`: more server options, one
    /// `set-option` line each (`-g set-clipboard on`).
    /// `insideTmux`: the command keeps the pane's TMUX and TMUX_PANE, so it knows it runs inside this server (the
    /// tmux windows tests).
    init(
        home: TempHome, command: [String], environment env: [String: String], columns: Int = 100,
        rows: Int = 30, options: [String] = [], insideTmux: Bool = false
    ) throws {
        statusPath = home.root + "/tui-exit-status-" + UUID().uuidString.prefix(6)
        // Read by the server before the session exists: set afterwards, a command that ends at once takes its
        // session with it before the option lands, and the test then reads a blank screen.
        configPath = home.root + "/tmux-" + UUID().uuidString.prefix(6) + ".conf"
        try (["-g remain-on-exit on"] + options).map { "set-option \($0)\n" }.joined()
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let assignments =
            env.sorted { $0.key < $1.key }.map { Tmux.quote("\($0.key)=\($0.value)") }
            + (env["TERM"] == nil ? ["TERM=\"$TERM\""] : [])
            + (insideTmux ? ["TMUX=\"$TMUX\"", "TMUX_PANE=\"$TMUX_PANE\""] : [])
        let line =
            (["env", "-i"] + assignments + command.map(Tmux.quote)).joined(separator: " ")
            + "; echo $? > \(Tmux.quote(statusPath))"
        server = try SpawnedProcess(
            TestTool.tmux.path, ["-D", "-L", socket, "-f", configPath], environment: Self.environment)
        // The server answers once its socket is up (list-sessions starts no server of its own).
        guard waitUntil({ (try? tmux(["list-sessions"]))?.status == 0 || !server.isRunning }), server.isRunning else {
            throw HarnessError("the tmux server did not start (exit \(server.exitStatus.map(String.init) ?? "-"))")
        }
        let started = try tmux([
            "new-session", "-d", "-s", session, "-x", String(columns),
            "-y", String(rows), line,
        ])
        guard started.status == 0 else { throw HarnessError("tmux new-session failed: \(started.output)") }
    }

    /// kill-server ends the panes' programs; the server process is then reaped (SpawnedProcess's deinit).
    deinit { _ = try? tmux(["kill-server"]) }

    static let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]

    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs one tmux command with posix_spawn and waitpid, output to a file. Not Foundation's Process: a server a
    /// client forked would inherit Process's pipe, and reading it would then never see the end.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let path = NSTemporaryDirectory() + "/tmux-out-" + UUID().uuidString
        defer { unlink(path) }
        let status = try SpawnedProcess.run(
            TestTool.tmux.path, ["-L", socket] + arguments, output: path, environment: Self.environment)
        return (status, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    /// Runs a tmux command that must succeed, and returns its output.
    @discardableResult
    private func command(_ arguments: [String]) throws -> String {
        let result = try tmux(arguments)
        guard result.status == 0 else {
            throw HarnessError("tmux \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.output)")
        }
        return result.output
    }

    /// Sends keys as tmux names them (`Enter`, `Escape`, `Down`), or literal text with `type`.
    func send(_ keys: String...) throws { try command(["send-keys", "-t", session] + keys) }
    func type(_ text: String) throws { try command(["send-keys", "-t", session, "-l", text]) }
    /// Pastes `text` as a terminal does: the whole of it in one write to the program (tmux's paste-buffer, not
    /// bracketed), a line feed sent as Enter (CR).
    func paste(_ text: String) throws {
        let buffer = "sshelf-paste-" + UUID().uuidString.prefix(6)
        try command(["set-buffer", "-b", buffer, "--", text])
        try command(["paste-buffer", "-d", "-b", buffer, "-t", session])
    }
    /// Types a line and presses Enter.
    func enter(_ line: String) throws {
        try type(line)
        try send("Enter")
    }

    /// The screen as text; with `escapes`, including the SGR colour sequences. Throws when tmux cannot capture it
    /// (the server gone), so a wait reports that instead of a blank screen.
    func screen(escapes: Bool = false) throws -> String {
        try command(["capture-pane", "-p", "-t", session] + (escapes ? ["-e"] : []))
    }

    /// Resizes the window and waits until the pane has the new size (tmux applies it from its event loop).
    func resize(columns: Int, rows: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try command(["resize-window", "-t", session, "-x", String(columns), "-y", String(rows)])
        try eventually(
            "the pane to be \(columns)x\(rows)", file: file, line: line,
            observe: { try command(["display-message", "-p", "-t", session, "#{pane_width}x#{pane_height}"]) },
            until: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "\(columns)x\(rows)" })
    }

    /// The pid of the process the pane runs (the shell that runs the command).
    func panePID() throws -> pid_t {
        let text = try command(["display-message", "-p", "-t", session, "#{pane_pid}"])
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("no pane pid: \(text)")
        }
        return pid
    }

    /// The program's exit status once it ended, else nil.
    func exitStatus() throws -> Int? {
        guard let text = try? String(contentsOfFile: statusPath, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Waits until the screen satisfies `condition`, and returns that screen; on timeout the test fails here
    /// with the last screen (and `context()`, e.g. a server log). The screen may be a frame half drawn: what must
    /// be gone from it belongs in `condition`, not in an assertion on what comes back.
    @discardableResult
    func waitFor(
        _ what: String, escapes: Bool = false, deadline: TimeInterval = Deadline.standard,
        file: StaticString = #filePath, line: UInt = #line, context: () -> String = { "" },
        _ condition: (String) -> Bool
    ) throws -> String {
        try eventually(
            what, deadline: deadline, file: file, line: line, observe: { try screen(escapes: escapes) },
            until: condition, context: context)
    }

    @discardableResult
    func waitFor(
        text: String, file: StaticString = #filePath, line: UInt = #line,
        context: () -> String = { "" }
    ) throws -> String {
        try waitFor("'\(text)' on the screen", file: file, line: line, context: context) { $0.contains(text) }
    }

    /// Waits until the program ended and returns its exit status.
    @discardableResult
    func waitForExit(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        try eventually(
            "the program to exit", file: file, line: line, observe: { try exitStatus() }, until: { $0 != nil },
            context: { (try? screen()) ?? "" }) ?? -1
    }

    func lastLine(_ screen: String) -> String {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).last { !$0.isEmpty } ?? ""
    }
}

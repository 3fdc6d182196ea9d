// Tmux: drives the real `sshelf` binary inside a private tmux server (its own socket), as a user at a
// terminal would: send keys, read the screen (with colour escapes when asked), resize the window.
import Foundation
import TestSupport
import XCTest

final class Tmux {
    let socket = "sshelf-test-" + UUID().uuidString.prefix(8)
    let session = "tui"
    /// Where the shell in the pane writes sshelf's exit status (tmux's #{pane_dead_status} is sometimes empty
    /// when the pane's terminal closes before tmux reaps the process).
    let statusPath: String

    /// Starts `sshelf ARGS` (or another `program`, such as a shell) in a detached session of the given size with
    /// exactly `environment`.
    init(home: TempHome, arguments: [String] = [], columns: Int = 100, rows: Int = 30,
         environment extra: [String: String] = [:], removing: Set<String> = ["NO_COLOR"],
         program: String = CLI.binary) throws {
        var env = home.environment.filter { !removing.contains($0.key) }
        for (key, value) in extra { env[key] = value }
        // The pane's own TERM (set by tmux) unless the test chooses one.
        let assignments = env.sorted { $0.key < $1.key }.map { Tmux.quote("\($0.key)=\($0.value)") }
            + (env["TERM"] == nil ? ["TERM=\"$TERM\""] : [])
        statusPath = home.root + "/tui-exit-status"
        let command = (["env", "-i"] + assignments + [Tmux.quote(program)] + arguments.map(Tmux.quote))
            .joined(separator: " ") + "; echo $? > \(Tmux.quote(statusPath))"
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows), command])
        try tmux(["set-option", "-t", session, "remain-on-exit", "on"])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs one tmux command with posix_spawn and waitpid. Not Foundation's Process: the server tmux forks on
    /// first use inherits Process's internal descriptors, and Process then never sees the client exit.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "/tmux-out-" + UUID().uuidString
        defer { unlink(path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ["/usr/bin/tmux", "-L", socket] + arguments
        let env = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
        var cArgv = argv.map { strdup($0) } + [nil]
        var cEnv = env.map { strdup($0) } + [nil]
        defer {
            for p in cArgv { free(p) }
            for p in cEnv { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/usr/bin/tmux", &actions, nil, &cArgv, &cEnv)
        guard rc == 0 else { throw TmuxTimeout() }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Sends keys as tmux names them (`Enter`, `Escape`, `Down`) or literal text with `literal`.
    func send(_ keys: String...) throws { try tmux(["send-keys", "-t", session] + keys) }
    func type(_ text: String) throws { try tmux(["send-keys", "-t", session, "-l", text]) }

    /// The screen as text; with `escapes`, including the SGR colour sequences.
    func screen(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p", "-t", session] + (escapes ? ["-e"] : []))
    }

    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", session, "-x", String(columns), "-y", String(rows)])
    }

    /// sshelf's exit status once it ended, else nil.
    func exitStatus() throws -> Int? {
        guard let text = try? String(contentsOfFile: statusPath, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Waits until the screen satisfies `condition` (a deadline for a hung program, not a speed check).
    @discardableResult
    func waitFor(_ what: String, escapes: Bool = false, timeout: TimeInterval = 15, file: StaticString = #filePath,
                 line: UInt = #line, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen(escapes: escapes)
            if condition(last) { return last }
            usleep(50_000)
        }
        XCTFail("timed out waiting for \(what); screen:\n\(last)", file: file, line: line)
        throw TmuxTimeout()
    }

    @discardableResult
    func waitFor(text: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try waitFor("'\(text)'", file: file, line: line) { $0.contains(text) }
    }

    func lastLine(_ screen: String) -> String {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).last { !$0.isEmpty } ?? ""
    }
}

struct TmuxTimeout: Error {}

// ShellInTmuxTests: `sshelf connect` driven in a real tmux pane against a real sshd — type a command and see its
// output, resize the window and see `stty size` follow, disconnect with `~.`, and find the terminal restored.
import Foundation
import TestSupport
import XCTest

final class ShellInTmuxTests: XCTestCase {
    /// After sshelf ends, the pane's shell prints its exit status and the terminal's icanon/echo flags.
    private static let reportTerminal =
        "echo EXIT=$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo"

    /// Runs `script` (through /bin/sh) in a pane with the world's environment plus `extra`.
    private func pane(
        _ world: SSHCLIWorld, _ script: String, columns: Int = 80, rows: Int = 24,
        extra: [String: String] = [:]
    ) throws -> Tmux {
        let env = world.home.environment.merging(extra) { $1 }
        return try Tmux(
            home: world.home, command: [TestTool.sh.path, "-c", script], environment: env, columns: columns,
            rows: rows)
    }

    /// Waits for the remote shell's prompt. TestAccount's login shell is /bin/sh, whose prompt is "$ " (capture-pane
    /// trims the space); on failure the sshd log shows how far the login got.
    private func waitForPrompt(_ tmux: Tmux, _ world: SSHCLIWorld, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        try tmux.waitFor(
            "the remote shell's prompt", file: file, line: line, context: { "sshd log:\n" + tail(world.sshd.log) }
        ) {
            tmux.lastLine($0) == "$"
        }
    }

    /// Waits for the pane's report after sshelf ended: exit status 255 and the terminal's modes back in canonical
    /// mode with echo. All in the wait's condition: the report's line comes after EXIT= (a frame may show one only).
    private func waitForRestoredTerminal(_ tmux: Tmux, file: StaticString = #filePath, line: UInt = #line) throws {
        try tmux.waitFor("EXIT=255 and the terminal restored", file: file, line: line) {
            $0.contains("EXIT=255") && $0.contains("icanon echo") && !$0.contains("-icanon")
        }
    }

    func testTypeResizeEscapeAndRestore() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tmux = try pane(
            world, "\(Tmux.quote(CLI.binary)) connect t; \(Self.reportTerminal)",
            extra: ["TERM": "xterm-256color"])
        try waitForPrompt(tmux, world)
        try tmux.enter("echo hello-$((6*7)) $TERM")
        try tmux.waitFor(text: "hello-42 xterm-256color")
        try tmux.enter("stty size")
        try tmux.waitFor(text: "24 80")
        // The remote shell reads the new size only after sshelf passes the window change on; `clear` first, so
        // the old "24 80" cannot satisfy the wait below.
        try tmux.resize(columns: 100, rows: 30)
        try tmux.enter("clear; stty size")
        try tmux.waitFor(text: "30 100")
        try tmux.send("Enter")
        try tmux.type("~.")
        try tmux.waitFor(text: "Connection to t closed.")
        XCTAssertEqual(try tmux.waitForExit(), 0, "the pane's report ran")
        try waitForRestoredTerminal(tmux)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
    }

    func testRemoteExitStatusIsOurs() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tmux = try pane(world, "\(Tmux.quote(CLI.binary)) connect t; echo EXIT=$?")
        try waitForPrompt(tmux, world)
        try tmux.enter("exit 42")
        try tmux.waitFor(text: "EXIT=42")
    }

    func testTerminalIsRestoredWhenSshelfIsTerminated() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tmux = try pane(world, "\(Tmux.quote(CLI.binary)) connect t; \(Self.reportTerminal)")
        try waitForPrompt(tmux, world)
        // The pane runs shells, one of which runs sshelf: terminate exactly that process.
        let programs = ProcessTree.descendants(of: try tmux.panePID()).filter { ProcessTree.name(of: $0) == "sshelf" }
        XCTAssertEqual(programs.count, 1, "\(programs)")
        kill(try XCTUnwrap(programs.first), SIGTERM)
        XCTAssertEqual(try tmux.waitForExit(), 0, "the pane's report ran")
        try waitForRestoredTerminal(tmux)
    }

    func testInteractiveYesAndAPasswordTypedWithoutEcho() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        let tmux = try pane(world, "\(Tmux.quote(CLI.binary)) exec t -n -- whoami; echo EXIT=$?", columns: 120)
        let question = try tmux.waitFor(text: "Are you sure you want to continue connecting (yes/no)?")
        XCTAssertTrue(question.contains(try world.fingerprint(world.sshd)), question)
        try tmux.enter("yes")
        try tmux.waitFor(text: "'s password:")
        try tmux.enter(TestAccount.password)
        // The remember gate is asked on the terminal; "n" keeps nothing.
        try tmux.waitFor(text: "Remember this password in the vault? [y/N]")
        try tmux.enter("n")
        // Checked on every frame the wait reads, not only the last: the password is never echoed, even for a moment.
        try tmux.waitFor("whoami's answer and the exit status") { screen in
            XCTAssertFalse(screen.contains(TestAccount.password), "the password was echoed:\n\(screen)")
            return screen.contains("\(TestAccount.name)\n") && screen.contains("EXIT=0")
        }
        XCTAssertFalse(try world.home.run("show", "t").stdout.contains("in the vault"), "answered no: nothing stored")
        XCTAssertTrue(FileManager.default.fileExists(atPath: world.knownHostsPath), "yes pins the key")
    }
}

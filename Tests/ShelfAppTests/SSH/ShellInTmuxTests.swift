// ShellInTmuxTests: `sshelf connect` driven in a real tmux pane against a real sshd — type a command and see its
// output, resize the window and see `stty size` follow, disconnect with `~.`, and find the terminal restored.
import Foundation
import TestSupport
import XCTest

final class ShellInTmuxTests: XCTestCase {
    private var socket = "sshelf-test-\(UUID().uuidString.prefix(8))"
    private let session = "shell"

    override func tearDown() { _ = try? SpawnedProcess.run("/usr/bin/tmux", ["-L", socket, "kill-server"]) }

    /// Starts the detached session; the tmux server it forks must not inherit a pipe we wait on.
    private func start(_ arguments: [String]) throws {
        let status = try SpawnedProcess.run("/usr/bin/tmux", ["-L", socket] + arguments)
        XCTAssertEqual(status, 0)
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        try Shell.run("/usr/bin/tmux", ["-L", socket] + arguments)
    }

    private func screen() -> String { (try? tmux(["capture-pane", "-p", "-t", session])) ?? "" }

    private func waitFor(_ text: String, timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while !screen().contains(text) {
            if Date() > deadline {
                XCTFail("'\(text)' never appeared:\n\(screen())", file: file, line: line)
                return
            }
            usleep(50_000)
        }
    }

    func testTypeResizeEscapeAndRestore() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let env = world.home.environment.map { "\($0.key)=\($0.value)" }.sorted()
        let script = "\(CLI.binary) connect t; echo EXIT=$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; sleep 60"
        try start(["new-session", "-d", "-s", session, "-x", "80", "-y", "24",
                  "/usr/bin/env"] + env + ["TERM=xterm-256color", "/bin/sh", "-c", script])
        waitFor("\n$")  // capture-pane trims the space after the prompt
        try tmux(["send-keys", "-t", session, "-l", "echo hello-$((6*7)) $TERM"])
        try tmux(["send-keys", "-t", session, "Enter"])
        waitFor("hello-42 xterm-256color")
        try tmux(["send-keys", "-t", session, "-l", "stty size"])
        try tmux(["send-keys", "-t", session, "Enter"])
        waitFor("24 80")
        try tmux(["resize-window", "-t", session, "-x", "100", "-y", "30"])
        usleep(200_000)
        try tmux(["send-keys", "-t", session, "-l", "clear; stty size"])
        try tmux(["send-keys", "-t", session, "Enter"])
        waitFor("30 100")
        try tmux(["send-keys", "-t", session, "Enter"])
        try tmux(["send-keys", "-t", session, "-l", "~."])
        waitFor("Connection to t closed.")
        waitFor("EXIT=255")
        waitFor("icanon echo")
        XCTAssertFalse(screen().contains("-icanon"), screen())
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
    }

    func testRemoteExitStatusIsOurs() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let env = world.home.environment.map { "\($0.key)=\($0.value)" }.sorted()
        try start(["new-session", "-d", "-s", session, "-x", "80", "-y", "24",
                  "/usr/bin/env"] + env + ["/bin/sh", "-c", "\(CLI.binary) connect t; echo EXIT=$?; sleep 60"])
        waitFor("\n$")  // capture-pane trims the space after the prompt
        try tmux(["send-keys", "-t", session, "-l", "exit 42"])
        try tmux(["send-keys", "-t", session, "Enter"])
        waitFor("EXIT=42")
    }

    func testTerminalIsRestoredWhenSshelfIsTerminated() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let env = world.home.environment.map { "\($0.key)=\($0.value)" }.sorted()
        let script = "\(CLI.binary) connect t; echo EXIT=$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; sleep 60"
        try start(["new-session", "-d", "-s", session, "-x", "80", "-y", "24", "/usr/bin/env"] + env + ["/bin/sh", "-c", script])
        waitFor("\n$")
        // The pane runs sh, whose child is sshelf: terminate exactly that process.
        let shell = try tmux(["list-panes", "-t", session, "-F", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let child = try Shell.run("/usr/bin/pgrep", ["-P", shell]).split(separator: "\n").first.map(String.init)
        let pid = try XCTUnwrap(child.flatMap { Int32($0) })
        kill(pid, SIGTERM)
        waitFor("EXIT=255")
        waitFor("icanon echo")
    }

    func testInteractiveYesAndAPasswordTypedWithoutEcho() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        let env = world.home.environment.map { "\($0.key)=\($0.value)" }.sorted()
        try start(["new-session", "-d", "-s", session, "-x", "120", "-y", "24", "/usr/bin/env"] + env
                  + ["/bin/sh", "-c", "\(CLI.binary) exec t -n -- whoami; echo EXIT=$?; sleep 60"])
        waitFor("Are you sure you want to continue connecting (yes/no)?")
        XCTAssertTrue(screen().contains(try world.fingerprint(world.sshd)), screen())
        try tmux(["send-keys", "-t", session, "-l", "yes"])
        try tmux(["send-keys", "-t", session, "Enter"])
        waitFor("'s password:")
        try tmux(["send-keys", "-t", session, "-l", TestAccount.password])
        try tmux(["send-keys", "-t", session, "Enter"])
        waitFor("EXIT=0")
        XCTAssertTrue(screen().contains("\(TestAccount.name)\n"), screen())
        XCTAssertFalse(screen().contains(TestAccount.password), "the password was echoed:\n\(screen())")
        XCTAssertTrue(FileManager.default.fileExists(atPath: world.knownHostsPath), "yes pins the key")
    }
}

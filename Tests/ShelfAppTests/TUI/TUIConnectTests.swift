// Connect from the TUI: Enter logs in in the background (curses still up), then leaves curses for the shell on
// that connection and comes back to the same screen with a one-line result — against the test sshd (run a
// command, exit) and against a closed loopback port (the failure shows inside the TUI). An unknown host key is a
// dialog inside the TUI: trusting pins it and connects; refusing sends nothing. A failure's line carries the CLI's
// error and hint. After a connect the search results keep their order until the query changes.
import Foundation
import TestSupport
import XCTest

final class TUIConnectTests: XCTestCase {
    func testEnterRunsTheSessionAndReturnsToTheTUIWithItsResult() throws {
        let home = TempHome()
        // Port 1 on loopback: nothing listens, so ssh fails fast with "Connection refused".
        XCTAssertExit(try home.run("add", "closed", "--host", "127.0.0.1", "--port", "1", "--user", "nobody"), 0)
        XCTAssertExit(try home.run("add", "other", "--host", "other.example.com"), 0)
        let tui = try Tmux(home: home)
        try tui.waitFor(text: "2 hosts")
        try tui.send("Enter")
        // The login runs before curses is left, so the failure shows inside the TUI, in one line.
        try tui.waitFor("the failure in the TUI") {
            $0.contains("not connected: ") && $0.contains("address   nobody@127.0.0.1:1") && $0.contains("○ sync off")
        }
        // The host by its name (#26), the address after it.
        try tui.waitFor(text: "not connected: closed refused the connection ([127.0.0.1]:1: ")
        try tui.send("j")
        try tui.waitFor(text: "address   other.example.com")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// A failed connect's line says what the CLI says for the same failure: its error and its hint.
    func testAFailedConnectShowsTheCLIsErrorAndHint() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "closed", "--host", "127.0.0.1", "--port", "1", "--user", "nobody"), 0)
        let cli = try home.run("exec", "closed", "--no-stdin", "--", "true")
        XCTAssertExit(cli, 255)
        let error = try XCTUnwrap(cli.stderr.firstMatch(of: /sshelf: error: (.*)\n/)?.1, cli.stderr)
        let hint = try XCTUnwrap(cli.stderr.firstMatch(of: /sshelf: hint: (.*)\n/)?.1, cli.stderr)
        let tui = try Tmux(home: home, columns: 220, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor(text: "not connected: \(error); hint: \(hint)")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testEnterOpensAShellOnTheTestSSHDAndComesBack() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        // The remote shell's prompt on the plain terminal (capture-pane trims the space after it).
        try tui.waitFor("the remote prompt") { screen in
            screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") }
                && !screen.contains("○ sync")
        }
        try tui.type("echo tui-$((6*7))")
        try tui.send("Enter")
        try tui.waitFor(text: "tui-42")
        try tui.type("exit 3")
        try tui.send("Enter")
        try tui.waitFor("the TUI after the session") {
            $0.contains("session to t ended with exit 3") && $0.contains("1 host") && $0.contains("address")
        }
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testUnknownHostKeyIsAskedInsideTheTUI() throws {
        let world = try SSHCLIWorld()
        let fingerprint = try world.fingerprint(world.sshd)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")

        // Refused: nothing is sent, no session, the TUI says why.
        try tui.send("Enter")
        try tui.waitFor("the host-key dialog") { $0.contains("Unknown host key") && $0.contains(fingerprint) }
        try tui.send("n")
        try tui.waitFor(text: "not connected: the host key was not trusted")
        // The client said goodbye after the key exchange; nothing of a login came before that.
        world.sshd.waitForConnectionsEnded()
        XCTAssertFalse(world.sshd.log.contains("userauth-request"), "a login was attempted:\n\(world.sshd.log)")
        XCTAssertFalse(world.sshd.log.contains("Accepted publickey"), world.sshd.log)

        // Trusted: pinned on the host record, then the session runs.
        try tui.send("Enter")
        try tui.waitFor("the host-key dialog again") { $0.contains("Unknown host key") && $0.contains(fingerprint) }
        try tui.send("y")
        try tui.waitFor("the remote prompt") { screen in
            screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") }
                && !screen.contains("○ sync")
        }
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(world.sshd.log.contains("userauth-request"), "the log names logins:\n\(world.sshd.log)")
        let show = try world.home.run("show", "t")
        XCTAssertTrue(
            show.stdout.contains("host key       ssh-ed25519 \(try world.fingerprint(world.sshd)) pinned"), show.stdout)
        try tui.send("q")
    }

    /// After a connect the search results keep their order while the user moves (the reload that brings the new
    /// "last connected" does not re-rank them); the next change of the query does.
    func testAConnectDoesNotReorderTheResultsUntilTheQueryChanges() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--rename", "web-3"), 0)
        for name in ["web-1", "web-2"] {
            XCTAssertExit(try world.home.run("add", name, "--host", "\(name).example"), 0)
        }
        let tui = try Tmux(home: world.home, columns: 120, rows: 30)
        try tui.waitFor(text: "3 hosts")
        try tui.send("/")
        try tui.type("web")
        try tui.send("Enter")
        func order(_ screen: String) -> [String] {
            screen.split(separator: "\n").compactMap { line in
                ["web-1", "web-2", "web-3"].first { line.contains("│ \($0) ") }
            }
        }
        try tui.waitFor("the results by name (a tie)") { order($0) == ["web-1", "web-2", "web-3"] }
        try tui.send("j", "j")
        try tui.waitFor(text: "address   \(TestAccount.name)@")
        try tui.send("Enter")
        try tui.waitFor("the remote prompt") { screen in
            screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") }
                && !screen.contains("○ sync")
        }
        try tui.type("exit")
        try tui.send("Enter")
        // Back, with the reload done (web-3's "last" is no longer "never"): the order the user was moving in holds.
        try tui.waitFor("the same order after the reload") { screen in
            screen.contains("session to web-3 ended") && screen.contains("last ")
                && !screen.contains("last      never") && order(screen) == ["web-1", "web-2", "web-3"]
        }
        try tui.send("g", "j", "j")
        try tui.waitFor(text: "address   \(TestAccount.name)@")
        // A new query ranks by who was connected last now: web-3 first.
        try tui.send("/", "BSpace")
        try tui.type("b")
        try tui.waitFor("web-3 ranked first") { order($0) == ["web-3", "web-1", "web-2"] }
        try tui.send("Escape")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

// Connect from the TUI: Enter leaves curses, runs `sshelf connect` as a child process on the real terminal, and
// comes back to the same screen with a one-line result — against the test sshd (run a command, exit) and
// against a closed loopback port (a real failure with a known exit status, 255).
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
        // Back in the TUI, on the same host, with the layout intact and the result on one line.
        try tui.waitFor("the TUI after the session") {
            $0.contains("session to closed ended with exit 255") && $0.contains("address   nobody@127.0.0.1:1")
                && $0.contains("○ sync off")
        }
        try tui.send("j")
        try tui.waitFor(text: "address   other.example.com")
        try tui.send("q")
        try tui.waitFor("exit") { _ in (try? tui.exitStatus()) != nil }
        XCTAssertEqual(try tui.exitStatus(), 0)
    }

    func testEnterOpensAShellOnTheTestSSHDAndComesBack() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        // The remote shell's prompt on the plain terminal (capture-pane trims the space after it).
        try tui.waitFor("the remote prompt") { screen in
            screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") } && !screen.contains("○ sync")
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
        try tui.waitFor("exit") { _ in (try? tui.exitStatus()) != nil }
        XCTAssertEqual(try tui.exitStatus(), 0)
    }
}

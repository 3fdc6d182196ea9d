// Connect from the TUI: Enter leaves curses, runs the session as a child process on the real terminal, and
// comes back to the same screen with a one-line result. Until the SSH engine merges the child is OpenSSH's
// `ssh` (the interim); here it meets a closed loopback port, a real failure with a known exit status (255).
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
        let screen = try tui.waitFor(text: "session to closed ended with exit 255")
        // Back in the TUI, on the same host, with the layout intact.
        XCTAssertTrue(screen.contains("address   nobody@127.0.0.1:1"), screen)
        XCTAssertTrue(screen.contains("○ sync off"), screen)
        try tui.send("j")
        try tui.waitFor(text: "address   other.example.com")
        try tui.send("q")
        try tui.waitFor("exit") { _ in (try? tui.exitStatus()) != nil }
        XCTAssertEqual(try tui.exitStatus(), 0)
    }
}

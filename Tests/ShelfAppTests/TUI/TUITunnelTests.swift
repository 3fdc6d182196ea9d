// The TUI never drops what it is in the middle of, and shows every tunnel whoever runs it, in real tmux: Ctrl-C
// during a connect to a server that never answers cancels the connect like Esc (the TUI stays, and so does a rule it
// runs), and closes a form instead of quitting; a rule `sshelf forward start` serves from another terminal shows as
// running with its live counts, `t` leaves it alone, and it shows "not running" once that process stops.
import Foundation
import TestSupport
import XCTest

final class TUITunnelTests: XCTestCase {
    func testCtrlCCancelsAConnectUnderWayAndNeverQuits() throws {
        let world = try SSHCLIWorld()
        stopHandedOverForwards(world.home)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let target = try ReverseServer()
        let port = try world.addLocalRule(to: target.port)
        // A port that accepts TCP and never answers SSH: the connect hangs in its handshake.
        let mute = try RecordingListener()
        XCTAssertExit(
            try world.home.run("add", "mute", "--host", "127.0.0.1", "--port", String(mute.port), "--user", "u"), 0)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "2 hosts")
        // A tunnel from this TUI, running while the connect is cancelled.
        try tui.send("j", "l", "t")
        try tui.waitFor(text: "active: 0 open, 0 total")
        try tui.send("h", "k", "Enter")
        try tui.waitFor(text: "connecting to mute... (Esc cancels)")
        try eventually(
            "the client's banner at the server", observe: { mute.received }, until: { $0.hasPrefix("SSH-2.0-") })
        try tui.send("C-c")
        try tui.waitFor(text: "not connected: cancelled")
        try eventually("the connection closed", observe: { mute.closed }, until: { $0 })
        XCTAssertNil(try tui.exitStatus(), "Ctrl-C during a connect does not quit")
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, [7, 8, 9])), try Payload.sha256([9, 8, 7]),
            "the TUI's tunnel still runs")

        // In a form, Ctrl-C cancels the form.
        try tui.send("a")
        try tui.waitFor(text: "Add host")
        try tui.send("C-c")
        try tui.waitFor(text: "cancelled; nothing saved")
        XCTAssertNil(try tui.exitStatus(), "Ctrl-C in a form does not quit")

        // With nothing under way, Ctrl-C quits (exit 0); the tunnel is handed over, then stopped here.
        try tui.send("C-c")
        XCTAssertEqual(try tui.waitForExit(), 0)
        let next = try Tmux(home: world.home, columns: 100, rows: 30)
        try next.waitFor(text: "2 hosts")
        try next.send("j", "l")
        try next.waitFor(text: "active: 0 open, 1 total")
        try next.send("t")
        try next.waitFor(text: "not running")
        try next.send("q")
        XCTAssertEqual(try next.waitForExit(), 0)
    }

    func testARuleServedByForwardStartElsewhereShowsAsRunning() throws {
        let world = try SSHCLIWorld()
        stopHandedOverForwards(world.home)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let target = try ReverseServer()
        let port = try world.addLocalRule(to: target.port)
        let tui = try Tmux(home: world.home, columns: 140, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("l")
        try tui.waitFor(text: "not running")

        // Another terminal's `forward start` shows up without a key, with its pid and live counts.
        let cli = try BackgroundCLI(world.home, ["forward", "start", "t"])
        try cli.waitFor("press Ctrl-C")
        try tui.waitFor(text: "active (forward start, pid \(cli.pid)):")
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, [1, 2, 3])), try Payload.sha256([3, 2, 1]))
        try tui.waitFor(text: "1 total, 3 B out, 3 B in")
        // It is that terminal's: t says where to stop it and leaves it running.
        try tui.send("t")
        try tui.waitFor(text: "run by 'sshelf forward start' (pid \(cli.pid)), stopped where it runs")
        close(try TrafficSocket.connect(port: port))
        // Counted by that process before it is stopped (its state reaches the TUI twice a second).
        try tui.waitFor(text: "2 total")

        XCTAssertEqual(try cli.stop(SIGINT), 0, cli.stderr)
        XCTAssertTrue(cli.stderr.contains(": 2 connections, 3 bytes out, 3 bytes in"), cli.stderr)
        try tui.waitFor(text: "not running")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

// Forwards from the TUI against the test sshd: `t` on a rule runs it in the background (a child
// `forward start`), the details pane shows it active with real connection and byte counts while a payload
// moves through it, a second `t` stops it and the port is closed; quitting (or a crash) hands the rule over: it
// keeps moving traffic, the next TUI shows it running and its `t` stops it; a rule listening on a non-loopback
// address asks first.
import Foundation
import TestSupport
import XCTest

final class TUIForwardTests: XCTestCase {
    func testStartMoveDataSeeItActiveStopIt() throws {
        let world = try SSHCLIWorld()
        stopHandedOverForwards(world.home)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let target = try ReverseServer()
        let port = try world.addLocalRule(to: target.port)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("l")
        try tui.waitFor(text: "not running")
        XCTAssertThrowsError(try TrafficSocket.connect(port: port), "nothing listens before t")

        try tui.send("t")
        try tui.waitFor(text: "active: 0 open, 0 total")
        // #26: once the forward is up the title bar says so, no longer "starting -L ...".
        try tui.waitFor("the title bar following the start") {
            $0.contains("forwarding -L 127.0.0.1:\(port)") && !$0.contains("starting -L")
        }
        let payload = Payload.random(1 << 20)
        let reply = try TrafficSocket.roundTrip(port: port, payload)
        XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()))
        try tui.waitFor(text: "active: 0 open, 1 total, 1.0 MB out, 1.0 MB in")
        let held = try TrafficSocket.connect(port: port)
        try tui.waitFor(text: "active: 1 open, 2 total")
        close(held)
        try tui.waitFor(text: "active: 0 open, 2 total")

        try tui.send("t")
        try tui.waitFor(text: "not running")
        XCTAssertThrowsError(try TrafficSocket.connect(port: port), "the port is closed after the second t")

        // Quitting hands a running rule over: it keeps moving traffic, and the terminal says so.
        try tui.send("t")
        try tui.waitFor(text: "active: 0 open, 0 total")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
        // Said on the terminal after curses has gone (tmux keeps it in the pane's history).
        try eventually(
            "the handover said on the terminal",
            observe: {
                try tui.tmux(["capture-pane", "-p", "-S", "-100", "-t", tui.session]).output
            }, until: { $0.contains("1 forward rule started here keeps running") })
        let after = Payload.random(200_000)
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, after)),
            try Payload.sha256(after.reversed()), "the tunnel outlives the TUI")

        // The next TUI shows it running, counts included, and its t stops it.
        let next = try Tmux(home: world.home, columns: 100, rows: 30)
        try next.waitFor(text: "1 host")
        try next.send("l")
        try next.waitFor(text: "active: 0 open, 1 total")
        try next.send("t")
        try next.waitFor(text: "stopped -L 127.0.0.1:\(port)")
        try next.waitFor(text: "not running")
        XCTAssertThrowsError(try TrafficSocket.connect(port: port), "the port is closed after t")
        try next.send("q")
        XCTAssertEqual(try next.waitForExit(), 0)
        XCTAssertFalse(
            try next.tmux(["capture-pane", "-p", "-S", "-100", "-t", next.session]).output
                .contains("keeps running"), "nothing was left running")
    }

    func testACrashedTUIsForwardKeepsRunningAndTheNextTUIStopsIt() throws {
        let world = try SSHCLIWorld()
        stopHandedOverForwards(world.home)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let target = try ReverseServer()
        let port = try world.addLocalRule(to: target.port)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("l")
        try tui.send("t")
        try tui.waitFor(text: "active: 0 open, 0 total")
        // The child publishes in the runtime directory, 0600; its parent is the TUI.
        let runtime = world.home.sshelfHome + "/run"
        let file = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: runtime)
                .first { $0.hasPrefix("forward-start-") && $0.hasSuffix(".json") })
        let attributes = try FileManager.default.attributesOfItem(atPath: runtime + "/" + file)
        XCTAssertEqual((attributes[.posixPermissions] as? Int) ?? 0, 0o600)
        let child = try XCTUnwrap(Int32(file.dropFirst("forward-start-".count).dropLast(".json".count)))
        let stat = try String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        let tuiPID = try XCTUnwrap(Int32(fields[1]))
        XCTAssertEqual(kill(tuiPID, SIGKILL), 0)
        try tui.waitForExit()
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, [1, 2, 3])), try Payload.sha256([3, 2, 1]),
            "the forward outlives the TUI that died")
        let next = try Tmux(home: world.home, columns: 100, rows: 30)
        try next.waitFor(text: "1 host")
        try next.send("l")
        try next.waitFor(text: "active: 0 open, 1 total, 3 B out, 3 B in")
        try next.send("t")
        try next.waitFor(text: "not running")
        XCTAssertThrowsError(try TrafficSocket.connect(port: port), "stopped by the next TUI")
        try eventually("the child's state file removed") {
            !FileManager.default.fileExists(atPath: runtime + "/" + file)
        }
        try next.send("q")
    }

    func testRulesRunByTheSupervisorShowTheirStateAndAreLeftAlone() throws {
        let world = try SSHCLIWorld()
        stopHandedOverForwards(world.home)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        try up.waitFor("t: active")
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("l")
        try tui.waitFor(text: "active (forward up): 0 open, 0 total")
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, [1, 2, 3])), try Payload.sha256([3, 2, 1]))
        try tui.waitFor(text: "active (forward up): 0 open, 1 total, 3 B out, 3 B in")
        try tui.send("t")
        try tui.waitFor(text: "run by 'sshelf forward up'")
        try tui.send("q")
        try tui.waitForExit()
        close(try TrafficSocket.connect(port: port))
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
    }

    func testNonLoopbackBindAsksFirst() throws {
        let world = try SSHCLIWorld()
        stopHandedOverForwards(world.home)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "0.0.0.0:\(port):127.0.0.1:22", "--allow-public-bind"),
            0)
        let connectionsBefore = world.sshd.logCount("Connection from")
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("l")
        try tui.send("t")
        try tui.waitFor(text: "Listen on the network?")
        try tui.send("n")
        try tui.waitFor(text: "not started")
        XCTAssertThrowsError(try TrafficSocket.connect(port: port), "refused: nothing listens")
        XCTAssertEqual(world.sshd.logCount("Connection from"), connectionsBefore, "refused before connecting")

        try tui.send("t")
        try tui.waitFor(text: "Listen on the network?")
        try tui.send("y")
        try tui.waitFor(text: "active: 0 open, 0 total")
        close(try TrafficSocket.connect(port: port))
        try tui.send("t")
        try tui.waitFor(text: "not running")
        try tui.send("q")
    }

    func testAFailedStartShowsTheReason() throws {
        let world = try SSHCLIWorld()
        stopHandedOverForwards(world.home)
        // No trust: the child has no terminal to ask on, so the unknown host key stops it, with the reason.
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:22"), 0)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("l")
        try tui.send("t")
        let screen = try tui.waitFor(text: "failed: ")
        XCTAssertTrue(screen.contains("host key"), screen)
        XCTAssertThrowsError(try TrafficSocket.connect(port: port))
        try tui.send("q")
    }
}

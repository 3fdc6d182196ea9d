// ForwardStartTests: `sshelf forward start` through the real binary, a real sshd and real traffic — a local
// forward carrying megabytes both ways until Ctrl-C, a connection the server cannot open noted with why, a
// non-loopback bind refused without consent (before any connection), and a taken port reported by number while the
// other rules run.
import Foundation
import TestSupport
import XCTest

final class ForwardStartTests: XCTestCase {
    func testLocalForwardRunsUntilCtrlC() throws {
        let world = try SSHCLIWorld()
        let target = try ReverseServer()
        let port = try world.addLocalRule(to: target.port)
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new"])
        try running.waitFor("press Ctrl-C")
        XCTAssertTrue(
            running.stderr.contains("forwarding -L 127.0.0.1:\(port):127.0.0.1:\(target.port)"), running.stderr)
        let payload = Payload.random(4 << 20)
        let reply = try TrafficSocket.roundTrip(port: port, payload)
        XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()))
        XCTAssertEqual(try running.stop(SIGINT), 0, running.stderr)
        XCTAssertTrue(
            running.stderr.contains("1 connection, \(payload.count) bytes out, \(payload.count) bytes in"),
            running.stderr)
        XCTAssertThrowsError(try TrafficSocket.connect(port: port), "the port is closed after Ctrl-C")
    }

    /// The server cannot reach the rule's target: each connection is closed, and why is said on stderr as it
    /// happens (as ssh -L says "open failed"), not only in `forward status`; the summary counts the failures.
    func testAConnectionTheServerCannotOpenIsNotedWithWhy() throws {
        let world = try SSHCLIWorld()
        let closed = try TrafficSocket.freePort()
        let port = try world.addLocalRule(to: closed)
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new"])
        try running.waitFor("press Ctrl-C")
        let socket = try TrafficSocket.connect(port: port)
        XCTAssertEqual(TrafficSocket.readAll(socket), [], "closed without a byte")
        close(socket)
        try running.waitFor(
            "sshelf: -L 127.0.0.1:\(port):127.0.0.1:\(closed): t could not open a connection to 127.0.0.1:\(closed): "
                + "Channel open failure (connect failed)\n")
        XCTAssertEqual(try running.stop(SIGINT), 0, running.stderr)
        XCTAssertTrue(running.stderr.contains("1 connection (1 failed), 0 bytes out, 0 bytes in"), running.stderr)
    }

    func testPublicBindNeedsConsent() throws {
        let world = try SSHCLIWorld()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "0.0.0.0:\(port):127.0.0.1:22", "--allow-public-bind"),
            0)
        let refused = try world.home.run("forward", "start", "t", "--accept-new")
        XCTAssertExit(refused, 2)
        XCTAssertTrue(
            refused.stderr.contains(
                "listens on 0.0.0.0, which is not loopback: port \(port) would be reachable from the network"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--allow-public-bind"), refused.stderr)
        XCTAssertEqual(world.sshd.logCount("Connection from"), 0, "refused before connecting")
        let allowed = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new", "--allow-public-bind"])
        try allowed.waitFor("press Ctrl-C")
        XCTAssertEqual(try allowed.stop(SIGTERM), 0, allowed.stderr)
    }

    /// One rule's port is taken: the others run and carry traffic, the busy one is reported by number with a
    /// hint that moves it, the exit status says not everything ran — and the hint, followed, makes both run.
    func testABusyPortLeavesOutOnlyItsRule() throws {
        let world = try SSHCLIWorld()
        let blocker = try ReverseServer()
        let target = try ReverseServer()
        let free = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "\(blocker.port):127.0.0.1:\(target.port)"), 0)
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(free):127.0.0.1:\(target.port)"), 0)
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new"])
        try running.waitFor("press Ctrl-C")
        XCTAssertTrue(
            running.stderr.contains(
                "sshelf: error: -L 127.0.0.1:\(blocker.port):127.0.0.1:\(target.port) left out: port \(blocker.port) "
                    + "on 127.0.0.1 is already in use"),
            running.stderr)
        XCTAssertTrue(
            running.stderr.contains("forwarding -L 127.0.0.1:\(free):127.0.0.1:\(target.port)"), running.stderr)
        XCTAssertEqual(try TrafficSocket.roundTrip(port: free, Array("still".utf8)), Array("llits".utf8))
        XCTAssertEqual(try running.stop(SIGINT), 1, running.stderr)

        // The hint names the command that gives the busy rule another port; with a free one, both run.
        let fix = /to give the rule another port: (sshelf forward edit [0-9a-f]{8} --local 127\.0\.0\.1:PORT:[^\n]*)/
        let hint = try XCTUnwrap(running.stderr.firstMatch(of: fix)?.1)
        let moved = try TrafficSocket.freePort()
        let words = String(hint).replacingOccurrences(of: "PORT", with: String(moved)).split(separator: " ").dropFirst()
            .map(String.init)
        XCTAssertExit(try world.home.run(words), 0)
        let both = try BackgroundCLI(world.home, ["forward", "start", "t"])
        try both.waitFor("press Ctrl-C")
        XCTAssertFalse(both.stderr.contains("left out"), both.stderr)
        XCTAssertEqual(try TrafficSocket.roundTrip(port: moved, Array("moved".utf8)), Array("devom".utf8))
        XCTAssertEqual(try both.stop(SIGINT), 0, both.stderr)
    }

    /// Every port taken: nothing to run, a run-time failure (exit 1) naming the port, not a connection error.
    func testEveryPortBusyIsAFailureNamingThePort() throws {
        let world = try SSHCLIWorld()
        let blocker = try ReverseServer()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(blocker.port):127.0.0.1:22"), 0)
        let result = try world.home.run("forward", "start", "t", "--accept-new")
        XCTAssertExit(result, 1)
        XCTAssertTrue(result.stderr.contains("port \(blocker.port) on 127.0.0.1 is already in use"), result.stderr)
        XCTAssertTrue(result.stderr.contains("sshelf forward edit "), result.stderr)
    }
}

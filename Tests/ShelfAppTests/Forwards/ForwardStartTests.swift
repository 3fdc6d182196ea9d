// ForwardStartTests: `sshelf forward start` through the real binary, a real sshd and real traffic — a local
// forward carrying megabytes both ways until Ctrl-C, a non-loopback bind refused without consent (before any
// connection), and a taken port reported by number.
import Foundation
import TestSupport
import XCTest

final class ForwardStartTests: XCTestCase {
    func testLocalForwardRunsUntilCtrlC() throws {
        let world = try SSHCLIWorld()
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)"), 0)
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new"])
        XCTAssertTrue(running.waitFor("press Ctrl-C"), running.stderr)
        XCTAssertTrue(
            running.stderr.contains("forwarding -L 127.0.0.1:\(port):127.0.0.1:\(target.port)"), running.stderr)
        let payload = Payload.random(4 << 20)
        let reply = try TrafficSocket.roundTrip(port: port, payload)
        XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()))
        XCTAssertEqual(running.stop(SIGINT), 0, running.stderr)
        XCTAssertTrue(
            running.stderr.contains("1 connections, \(payload.count) bytes out, \(payload.count) bytes in"),
            running.stderr)
        XCTAssertThrowsError(try TrafficSocket.connect(port: port), "the port is closed after Ctrl-C")
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
            refused.stderr.contains("listens on 0.0.0.0, which is not loopback: port \(port) would be reachable from the network"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--allow-public-bind"), refused.stderr)
        XCTAssertEqual(world.sshd.logCount("Connection from"), 0, "refused before connecting")
        let allowed = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new", "--allow-public-bind"])
        XCTAssertTrue(allowed.waitFor("press Ctrl-C"), allowed.stderr)
        XCTAssertEqual(allowed.stop(SIGTERM), 0, allowed.stderr)
    }

    func testPortInUseNamesThePort() throws {
        let world = try SSHCLIWorld()
        let blocker = try ReverseServer()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(blocker.port):127.0.0.1:22"), 0)
        let result = try world.home.run("forward", "start", "t", "--accept-new")
        XCTAssertExit(result, 255)
        XCTAssertTrue(result.stderr.contains("port \(blocker.port) on 127.0.0.1 is already in use"), result.stderr)
    }
}

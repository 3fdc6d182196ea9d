// ForwardUpTests: the `forward up` supervisor through the real binary — autostart rules come up, `forward status`
// reads the 0600 state file, the server is killed (sessions included) and restarted on the same port and the
// forward recovers by itself, `forward stop` ends it; a connection the server cannot open is noted with why; a
// credential the supervisor may not read is reported with the fix.
import Foundation
import TestSupport
import XCTest

final class ForwardUpTests: XCTestCase {
    private func statusJSON(_ world: SSHCLIWorld) throws -> [String: Any] {
        let result = try world.home.run("forward", "status", "--json")
        XCTAssertExit(result, 0)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// Reads `forward status --json` until the rule satisfies `settled` (the supervisor rewrites the file twice a
    /// second); fails here with the last status on timeout.
    @discardableResult
    private func waitForRule(
        _ world: SSHCLIWorld, _ what: String, file: StaticString = #filePath, line: UInt = #line,
        _ settled: @escaping ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        try eventually(
            "the rule in forward status to be \(what)", file: file, line: line, observe: { try statusJSON(world) },
            until: { settled(firstRule($0)) })
    }

    private func waitForState(
        _ world: SSHCLIWorld, _ state: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> [String: Any] {
        try waitForRule(world, state, file: file, line: line) { $0["state"] as? String == state }
    }

    private func firstRule(_ json: [String: Any]) -> [String: Any] {
        ((json["rules"] as? [[String: Any]]) ?? []).first ?? [:]
    }

    func testUpRecoversAfterTheServerRestarts() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "--", "true"), 0)
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        try up.waitFor("t: active")
        let payload = Payload.random(1 << 20)
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, payload)), try Payload.sha256(payload.reversed())
        )

        var json = try waitForState(world, "active")
        json = try waitForRule(world, "counting the connection") {
            $0["totalConnections"] as? Int == 1 && $0["bytesOut"] as? Int == payload.count
        }
        XCTAssertEqual(firstRule(json)["state"] as? String, "active", "\(json)")
        XCTAssertEqual(firstRule(json)["totalConnections"] as? Int, 1, "\(json)")
        XCTAssertEqual(firstRule(json)["bytesOut"] as? Int, payload.count, "\(json)")
        let statePath = world.home.sshelfHome + "/run/forwards.json"
        let mode = try FileManager.default.attributesOfItem(atPath: statePath)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
        let dirMode =
            try FileManager.default.attributesOfItem(atPath: world.home.sshelfHome + "/run")[.posixPermissions]
            as? NSNumber
        XCTAssertEqual(dirMode?.intValue, 0o700)
        let table = try world.home.run("forward", "status")
        XCTAssertTrue(table.stdout.contains("active"), table.stdout)

        try world.sshd.stopWithSessions()
        try up.waitFor("t: retrying")
        // While the server is down the rule cycles through retrying (with the error and the next attempt).
        json = try waitForState(world, "retrying")
        XCTAssertNotNil(firstRule(json)["lastError"] as? String, "\(json)")
        XCTAssertNotNil(firstRule(json)["nextAttempt"] as? String, "\(json)")
        // Between attempts (not during one) the table says when the next one comes.
        try eventually(
            "'next attempt in' in the forward status table", observe: { try world.home.run("forward", "status") },
            until: { $0.stdout.contains("next attempt in") })
        var options = world.sshd.options
        options.port = world.sshd.port
        options.hostKeysFrom = world.sshd.directory
        let restarted = try SSHD.start(options)
        try up.waitFor("t: active", count: 2, deadline: Deadline.long)
        XCTAssertEqual(up.count("t: active"), 2, up.stderr)
        let again = Payload.random(1 << 20)
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, again)), try Payload.sha256(again.reversed()))
        XCTAssertTrue(restarted.waitForLog("direct-tcpip"), restarted.log)

        let second = try world.home.run("forward", "up")
        XCTAssertExit(second, 1)
        XCTAssertTrue(second.stderr.contains("already running"), second.stderr)

        let stop = try world.home.run("forward", "stop")
        XCTAssertExit(stop, 0)
        XCTAssertEqual(try up.waitExit(), 0, up.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: statePath))
        XCTAssertTrue(try world.home.run("forward", "status").stderr.contains("no forward supervisor is running"))
    }

    /// A connection the server cannot open is said on the supervisor's stderr with why, as `forward start` says it.
    func testAConnectionTheServerCannotOpenIsNotedWithWhy() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "--", "true"), 0)
        let closed = try TrafficSocket.freePort()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(closed)", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        try up.waitFor("t: active")
        for _ in 0..<2 {
            let socket = try TrafficSocket.connect(port: port)
            XCTAssertEqual(TrafficSocket.readAll(socket), [], "closed without a byte")
            close(socket)
        }
        let note =
            "sshelf: -L 127.0.0.1:\(port):127.0.0.1:\(closed): t could not open a connection to 127.0.0.1:\(closed)"
        try eventually(
            "both failures noted", observe: { up.stderr },
            until: {
                $0.contains(note + ": Channel open failure (connect failed) (2 connections failed")
                    || $0.components(separatedBy: note).count == 3
            })
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
    }

    func testAnUnknownHostKeyFailsWithTheReasonInsteadOfRetrying() throws {
        let world = try SSHCLIWorld()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:22", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        try up.waitFor("t: failed")
        XCTAssertTrue(up.stderr.contains("is not known"), up.stderr)
        let json = try waitForState(world, "failed")
        XCTAssertTrue((firstRule(json)["lastError"] as? String ?? "").contains("is not known"), "\(json)")
        XCTAssertFalse(up.stderr.contains("retrying"), up.stderr)
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
    }

    /// One autostart rule's port is taken: the supervisor runs the host's other rules, and the busy one is `failed`
    /// with the port named — in its output and in `forward status`.
    func testABusyPortLeavesOutOnlyItsRule() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "--", "true"), 0)
        let blocker = try ReverseServer()
        let target = try ReverseServer()
        let free = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run(
                "forward", "add", "t", "--local", "\(blocker.port):127.0.0.1:\(target.port)",
                "--autostart", "--name", "busy"), 0)
        XCTAssertExit(
            try world.home.run(
                "forward", "add", "t", "--local", "\(free):127.0.0.1:\(target.port)",
                "--autostart", "--name", "free"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        try up.waitFor("left out: port \(blocker.port) on 127.0.0.1 is already in use")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: free, Array("still".utf8)), Array("llits".utf8))
        let json = try eventually(
            "both rules in forward status", observe: { try statusJSON(world) },
            until: {
                let states = (($0["rules"] as? [[String: Any]]) ?? []).compactMap { $0["state"] as? String }.sorted()
                return states == ["active", "failed"]
            })
        let busy = try XCTUnwrap((json["rules"] as? [[String: Any]])?.first { $0["state"] as? String == "failed" })
        XCTAssertTrue((busy["lastError"] as? String ?? "").contains("port \(blocker.port)"), "\(json)")
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
    }
}

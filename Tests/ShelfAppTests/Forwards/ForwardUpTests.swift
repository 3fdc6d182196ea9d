// ForwardUpTests: the `forward up` supervisor through the real binary — autostart rules come up, `forward status`
// reads the 0600 state file, the server is killed (sessions included) and restarted on the same port and the
// forward recovers by itself, `forward stop` ends it; a credential the supervisor may not read is reported with
// the fix.
import Foundation
import TestSupport
import XCTest

final class ForwardUpTests: XCTestCase {
    /// Kills a server and every session process under it (by pid), so clients see the connection drop.
    private func kill(_ server: SSHD) throws {
        let text = try String(contentsOfFile: server.directory + "/sshd.pid", encoding: .utf8)
        guard let main = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("no sshd pid")
        }
        var victims: [Int32] = []
        var frontier = [main]
        while let parent = frontier.popLast() {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry),
                    let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                    status.split(separator: "\n").contains("PPid:\t\(parent)")
                else { continue }
                victims.append(pid)
                frontier.append(pid)
            }
        }
        server.stop()
        for pid in victims { Glibc.kill(pid, SIGKILL) }
    }

    private func statusJSON(_ world: SSHCLIWorld) throws -> [String: Any] {
        let result = try world.home.run("forward", "status", "--json")
        XCTAssertExit(result, 0)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// Reads `forward status --json` until the rule is in one of `states` (the file follows within moments).
    private func waitForState(_ world: SSHCLIWorld, _ states: [String]) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(10)
        var json = try statusJSON(world)
        while !states.contains(firstRule(json)["state"] as? String ?? ""), Date() < deadline {
            usleep(100_000)
            json = try statusJSON(world)
        }
        return json
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
        XCTAssertTrue(up.waitFor("t: active"), up.stderr)
        let payload = Payload.random(1 << 20)
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, payload)), try Payload.sha256(payload.reversed())
        )

        var json = try waitForState(world, ["active"])
        XCTAssertEqual(firstRule(json)["state"] as? String, "active", "\(json)")
        usleep(700_000)  // the state file is refreshed twice a second
        json = try statusJSON(world)
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

        try kill(world.sshd)
        XCTAssertTrue(up.waitFor("t: retrying"), up.stderr)
        // While the server is down the rule cycles through retrying (with the error and the next attempt).
        json = try waitForState(world, ["retrying"])
        XCTAssertEqual(firstRule(json)["state"] as? String, "retrying", "\(json)")
        XCTAssertNotNil(firstRule(json)["lastError"] as? String, "\(json)")
        XCTAssertNotNil(firstRule(json)["nextAttempt"] as? String, "\(json)")
        var retryingTable = try world.home.run("forward", "status")
        let tableDeadline = Date().addingTimeInterval(10)
        while !retryingTable.stdout.contains("next attempt in"), Date() < tableDeadline {
            retryingTable = try world.home.run("forward", "status")
        }
        XCTAssertTrue(retryingTable.stdout.contains("next attempt in"), retryingTable.stdout)
        var options = world.sshd.options
        options.port = world.sshd.port
        options.hostKeysFrom = world.sshd.directory
        let restarted = try SSHD.start(options)
        let deadline = Date().addingTimeInterval(60)
        while up.stderr.components(separatedBy: "t: active").count - 1 < 2, Date() < deadline { usleep(50_000) }
        XCTAssertEqual(up.stderr.components(separatedBy: "t: active").count - 1, 2, up.stderr)
        let again = Payload.random(1 << 20)
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, again)), try Payload.sha256(again.reversed()))
        XCTAssertTrue(restarted.waitForLog("direct-tcpip"), restarted.log)

        let second = try world.home.run("forward", "up")
        XCTAssertExit(second, 1)
        XCTAssertTrue(second.stderr.contains("already running"), second.stderr)

        let stop = try world.home.run("forward", "stop")
        XCTAssertExit(stop, 0)
        XCTAssertEqual(up.waitExit(), 0, up.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: statePath))
        XCTAssertTrue(try world.home.run("forward", "status").stderr.contains("no forward supervisor is running"))
    }

    func testAnUnknownHostKeyFailsWithTheReasonInsteadOfRetrying() throws {
        let world = try SSHCLIWorld()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:22", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        XCTAssertTrue(up.waitFor("t: failed"), up.stderr)
        XCTAssertTrue(up.stderr.contains("is not known"), up.stderr)
        let json = try waitForState(world, ["failed"])
        XCTAssertEqual(firstRule(json)["state"] as? String, "failed", "\(json)")
        XCTAssertTrue((firstRule(json)["lastError"] as? String ?? "").contains("is not known"), "\(json)")
        XCTAssertFalse(up.stderr.contains("retrying"), up.stderr)
        XCTAssertEqual(up.stop(SIGTERM), 0, up.stderr)
    }
}

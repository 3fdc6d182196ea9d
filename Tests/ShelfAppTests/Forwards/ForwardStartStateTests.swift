// ForwardStartStateTests: every `forward start` publishes its rules' live counts in the supervisor's JSON format
// (run/forward-start-PID.json, 0600) while it runs — how the TUI shows rules run from any terminal — and removes the
// file once it stops; `forward status` lists it with its pid; its closing line counts in agreement ("1 connection").
import Foundation
import TestSupport
import XCTest

final class ForwardStartStateTests: XCTestCase {
    func testStateFileFollowsTheForwardAndGoesAway() throws {
        let world = try SSHCLIWorld()
        let target = try ReverseServer()
        let port = try world.addLocalRule(to: target.port)
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new"])
        try running.waitFor("press Ctrl-C")
        let path = world.home.sshelfHome + "/run/forward-start-\(running.pid).json"
        let payload = Payload.random(100_000)
        XCTAssertEqual(
            try Payload.sha256(try TrafficSocket.roundTrip(port: port, payload)),
            try Payload.sha256(payload.reversed()))
        // Rewritten twice a second: wait until it shows the finished connection.
        let rule = try eventually(
            "the state file to count the connection",
            observe: { () -> [String: Any] in
                guard let data = FileManager.default.contents(atPath: path),
                    let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { return [:] }
                return (json["rules"] as? [[String: Any]])?.first ?? [:]
            }, until: { $0["totalConnections"] as? Int == 1 && $0["bytesIn"] as? Int == payload.count })
        XCTAssertEqual(rule["state"] as? String, "active", "\(rule)")
        XCTAssertEqual(rule["totalConnections"] as? Int, 1, "\(rule)")
        XCTAssertEqual(rule["bytesOut"] as? Int, payload.count, "\(rule)")
        XCTAssertEqual(rule["bytesIn"] as? Int, payload.count, "\(rule)")
        XCTAssertEqual(rule["spec"] as? String, "-L 127.0.0.1:\(port):127.0.0.1:\(target.port)")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
                as? [String: Any])
        XCTAssertNil(json["fromTUI"], "typed in a terminal: no TUI may stop it")
        // `forward status` lists it after saying no supervisor runs.
        let status = try world.home.run("forward", "status")
        XCTAssertExit(status, 0)
        XCTAssertTrue(status.stderr.contains("no forward supervisor is running"), status.stderr)
        let line = status.stdout.split(separator: "\n").first { $0.hasPrefix("\(running.pid) ") }.map(String.init) ?? ""
        XCTAssertTrue(
            line.contains("terminal") && line.contains("-L 127.0.0.1:\(port):") && line.contains("active")
                && line.contains("0/1"), status.stdout)
        XCTAssertEqual(try running.stop(SIGTERM), 0, running.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "removed when the forward stops")
        XCTAssertTrue(
            running.stderr.contains(
                ": 1 connection, \(payload.count) bytes out, \(payload.count) bytes in"), running.stderr)
    }
}

// ForwardTUIStateTests: `forward start --tui-state FILE`, the way the TUI runs a rule — FILE holds the rule's
// live counts in the supervisor's JSON format (0600) while it runs, and is gone once it stops.
import Foundation
import TestSupport
import XCTest

final class ForwardTUIStateTests: XCTestCase {
    func testStateFileFollowsTheForwardAndGoesAway() throws {
        let world = try SSHCLIWorld()
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)"), 0)
        let path = world.home.root + "/state.json"
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new", "--tui-state", path])
        try running.waitFor("press Ctrl-C")
        let payload = Payload.random(100_000)
        XCTAssertEqual(try Payload.sha256(try TrafficSocket.roundTrip(port: port, payload)),
                       try Payload.sha256(payload.reversed()))
        // Rewritten twice a second: wait until it shows the finished connection.
        let rule = try eventually("the state file to count the connection", observe: { () -> [String: Any] in
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
        XCTAssertEqual(try running.stop(SIGTERM), 0, running.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "removed when the forward stops")
    }
}

// ForwardRemoteTests: remote forwards (-R) against a real sshd — the server listens, each connection comes back
// through the session to a target here; megabytes both ways by SHA-256, several at once, and a dead local target
// failing one connection only.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class ForwardRemoteTests: XCTestCase {
    func testRemoteForwardMovesMegabytesBothWays() throws {
        let target = try ReverseServer()
        let remotePort = try TrafficSocket.freePort()
        let rule = PortForwardRule(
            kind: .remote, bindPort: remotePort, targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningForwards([rule])
        defer { forwards.stop() }
        XCTAssertTrue(forwards.sshd.waitForLog("tcpip-forward"), forwards.sshd.log)
        let payload = Payload.random(6 << 20)
        let reply = try TrafficSocket.roundTrip(port: remotePort, payload)
        XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()))
        XCTAssertEqual(target.connectionsServed, 1)

        final class Count: @unchecked Sendable {
            let lock = NSLock()
            var good = 0
        }
        let count = Count()
        DispatchQueue.concurrentPerform(iterations: 10) { index in
            let small = Payload.random(8 * (1000 + index))
            if let back = try? TrafficSocket.roundTrip(port: remotePort, small), back == Array(small.reversed()) {
                count.lock.lock()
                count.good += 1
                count.lock.unlock()
            }
        }
        XCTAssertEqual(count.good, 10)
        XCTAssertEqual(try forwards.status { $0.totalConnections == 11 }.totalConnections, 11)
    }

    func testDeadLocalTargetFailsOnlyThatConnection() throws {
        let dead = try TrafficSocket.freePort()
        let remotePort = try TrafficSocket.freePort()
        let rule = PortForwardRule(kind: .remote, bindPort: remotePort, targetHost: "127.0.0.1", targetPort: dead)
        let target = try ReverseServer()
        let livePort = try TrafficSocket.freePort()
        let live = PortForwardRule(kind: .remote, bindPort: livePort, targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningForwards([rule, live])
        defer { forwards.stop() }
        XCTAssertTrue(forwards.sshd.waitForLog("tcpip-forward", count: 2), forwards.sshd.log)
        XCTAssertEqual(try TrafficSocket.roundTrip(port: remotePort, Array("x".utf8)), [])
        XCTAssertEqual(try TrafficSocket.roundTrip(port: livePort, Array("ab".utf8)), Array("ba".utf8))
        XCTAssertEqual(try forwards.status(of: rule.id) { $0.failedConnections == 1 }.failedConnections, 1)
    }

    func testAPortTheServerCannotBindIsAClearError() throws {
        let blocker = try ReverseServer()
        let rule = PortForwardRule(kind: .remote, bindPort: blocker.port, targetHost: "127.0.0.1", targetPort: 9)
        XCTAssertThrowsError(try RunningForwards([rule])) { error in
            XCTAssertTrue("\(error)".contains("refused to listen on its port \(blocker.port)"), "\(error)")
        }
    }
}

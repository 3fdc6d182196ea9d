// ForwardPacketTests: libssh2 1.10 keeps one half-sent packet per session, and a different call that runs next
// completes it and drops its own. Shrinking the session socket's send buffer and the engine's own send buffer (to
// its 64 KiB minimum: two packets) makes half-sent packets happen all the time; many connections then write at once
// and every byte must still arrive, in order, both ways.
import Foundation
import ShelfCore
@testable import ShelfSSH
import TestSupport
import XCTest

final class ForwardPacketTests: XCTestCase {
    /// The test process's TCP socket connected to `port` (the SSH session's), found by its peer address.
    private func sessionSocket(port: Int) -> Int32? {
        for fd in Int32(3)..<Int32(4096) {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            }
            if ok == 0, address.sin_family == sa_family_t(AF_INET), Int(UInt16(bigEndian: address.sin_port)) == port {
                return fd
            }
        }
        return nil
    }

    func testHalfSentPacketsNeverLoseAnotherConnectionsData() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1",
            targetPort: target.port)
        let forwards = try RunningForwards([rule], sendBuffer: ForwardSendBuffer.minimumCapacity)
        defer { forwards.stop() }
        let socket = try XCTUnwrap(sessionSocket(port: forwards.sshd.port))
        var small: Int32 = 4096
        XCTAssertEqual(setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size)), 0)
        let port = forwards.port(rule)
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var good = 0
            var problems: [String] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            let payload = Payload.random(8 * (65536 + index * 4099))
            let reply = (try? TrafficSocket.roundTrip(port: port, payload)) ?? []
            results.lock.lock()
            if reply == Array(payload.reversed()) {
                results.good += 1
            } else {
                results.problems.append(
                    "connection \(index): \(reply.count) of \(payload.count) bytes back, or out of order")
            }
            results.lock.unlock()
        }
        XCTAssertEqual(results.good, 20, results.problems.joined(separator: "\n"))
    }
}

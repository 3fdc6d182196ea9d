// ReachabilityProbeTests: the reachability probe against real sockets — a listener is "up" with a round trip and
// receives not one byte before the probe closes its end; a port nobody listens on is "refused", one whose
// handshake never completes a "timeout"; probes in parallel keep the targets' order.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class ReachabilityProbeTests: XCTestCase {
    func testALiveListenerIsUpAndReadsNothingBeforeTheClose() throws {
        let listener = try RecordingListener()
        let outcome = ReachabilityProbe.probe(ProbeTarget(hostname: "127.0.0.1", port: listener.port), timeout: 10)
        guard case .up(let milliseconds) = outcome else { return XCTFail("not up: \(outcome)") }
        XCTAssertGreaterThanOrEqual(milliseconds, 0)
        XCTAssertLessThan(milliseconds, 10_000)
        // The server sees the connection end (end of file) with nothing read before it: no banner, no byte.
        try eventually("the listener to see the probe close", observe: { listener.closed }, until: { $0 })
        XCTAssertEqual(listener.received, "", "the probe sent bytes")
    }

    func testAClosedPortIsRefused() throws {
        let port = try TestPorts.free()
        XCTAssertEqual(
            ReachabilityProbe.probe(ProbeTarget(hostname: "127.0.0.1", port: port), timeout: 10),
            .down(.refused))
    }

    /// A listener whose accept queue is full drops further handshakes (the kernel ignores their SYN), as a firewall
    /// that drops would: the probe gives up after its timeout and says so.
    func testAServerThatNeverCompletesTheHandshakeIsATimeout() throws {
        let port = try TestPorts.free()
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(server, 0), 0)
        // Fill the accept queue (backlog 0 holds one connection) with handshakes nobody accepts.
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        for _ in 0..<2 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(fd)
        }
        let target = ProbeTarget(hostname: "127.0.0.1", port: port)
        let started = Date()
        XCTAssertEqual(ReachabilityProbe.probe(target, timeout: 0.5), .down(.timeout))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.45, "gave up before its timeout")
    }

    func testProbesInParallelKeepTheTargetsOrder() throws {
        let live = try RecordingListener()
        let closed = try TestPorts.free()
        let results = ReachabilityProbe.probeAll(
            [
                ProbeTarget(hostname: "127.0.0.1", port: closed), ProbeTarget(hostname: "127.0.0.1", port: live.port),
                ProbeTarget(hostname: "localhost", port: closed),
            ],
            timeout: 10, concurrency: 2)
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(results[0], .down(.refused))
        guard case .up = results[1] else { return XCTFail("not up: \(results[1])") }
        XCTAssertEqual(results[2], .down(.refused))
    }
}

// ReachabilityProbeTests: the reachability probe against real sockets — a listener is "up" with a round trip and
// receives not one byte before the probe closes its end; a port nobody listens on is "refused"; probes in parallel
// keep the targets' order.
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
        XCTAssertEqual(ReachabilityProbe.probe(ProbeTarget(hostname: "127.0.0.1", port: port), timeout: 10),
                       .down(.refused))
    }

    func testProbesInParallelKeepTheTargetsOrder() throws {
        let live = try RecordingListener()
        let closed = try TestPorts.free()
        let results = ReachabilityProbe.probeAll(
            [ProbeTarget(hostname: "127.0.0.1", port: closed), ProbeTarget(hostname: "127.0.0.1", port: live.port),
             ProbeTarget(hostname: "localhost", port: closed)],
            timeout: 10, concurrency: 2)
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(results[0], .down(.refused))
        guard case .up = results[1] else { return XCTFail("not up: \(results[1])") }
        XCTAssertEqual(results[2], .down(.refused))
    }
}

// ForwardEngineTests: the forward engine against a real sshd with real TCP traffic — multi-megabyte random
// payloads both ways checked by SHA-256, 50 concurrent connections, half-close, a taken port, and a connection
// to a dead target that fails alone while the forward keeps serving.
import Foundation
import ShelfCore
@testable import ShelfSSH
import TestSupport
import XCTest

/// A logged-in connection and an engine running its rules on a background thread.
final class RunningForwards: @unchecked Sendable {
    let sshd: SSHD
    let world = SSHWorld()
    let connection: SSHConnection
    let engine: ForwardEngine
    private let finished = DispatchSemaphore(value: 0)
    var failure: Error?

    /// `sendBuffer`: the engine's send buffer in bytes (nil: the default).
    init(_ rules: [PortForwardRule], sshd: SSHD? = nil, sendBuffer: Int? = nil) throws {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        self.sshd = try sshd ?? SSHD.start(options)
        if sshd != nil { try self.sshd.authorize(key.publicLine) }
        let identity = world.vaultIdentity(key, type: .ed25519)
        connection = try world.connector.connect([
            world.endpoint(self.sshd, identity: identity, pinned: world.pin(self.sshd))
        ])
        let connection = connection
        if let sendBuffer {
            engine = try ForwardEngine(
                connection: connection, rules: rules, hostName: "target", sendBufferCapacity: sendBuffer)
        } else {
            engine = try ForwardEngine(connection: connection, rules: rules, hostName: "target")
        }
        // Weak: the thread must not release the engine (and with it libssh2 objects) after `finished`.
        Thread { [weak self, finished] in
            self?.runEngine()
            finished.signal()
        }.start()
    }

    private func runEngine() {
        do { try engine.run() } catch { failure = error }
    }

    /// The engine's published status once `settled` holds (it publishes from its loop, so a count can trail the
    /// traffic by one turn); fails with the last status when it never does.
    @discardableResult
    func status(
        of ruleID: UUID? = nil, file: StaticString = #filePath, line: UInt = #line,
        settled: @escaping (ForwardStatus) -> Bool
    ) throws -> ForwardStatus {
        let found = try eventually(
            "the forward's status to settle", file: file, line: line,
            observe: { self.engine.status().first { ruleID == nil || $0.ruleID == ruleID } },
            until: { $0.map(settled) ?? false })
        return try XCTUnwrap(found)
    }

    func port(_ rule: PortForwardRule) -> Int {
        engine.status().first { $0.ruleID == rule.id }?.boundPort ?? 0
    }

    func stop() {
        engine.stop()
        finished.wait()
        connection.close()
    }
}

final class ForwardEngineTests: XCTestCase {
    func testLocalForwardMovesMegabytesBothWays() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningForwards([rule])
        defer { forwards.stop() }
        let payload = Payload.random(8 << 20)
        let reply = try TrafficSocket.roundTrip(port: forwards.port(rule), payload)
        XCTAssertEqual(reply.count, payload.count)
        XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()))
        let status = try forwards.status { $0.totalConnections == 1 && $0.bytesIn == Int64(payload.count) }
        XCTAssertEqual(status.totalConnections, 1)
        XCTAssertEqual(status.bytesOut, Int64(payload.count))
        XCTAssertEqual(status.bytesIn, Int64(payload.count))
        XCTAssertTrue(forwards.sshd.waitForLog("direct-tcpip"), forwards.sshd.log)
    }

    func testFiftyConcurrentConnections() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningForwards([rule])
        defer { forwards.stop() }
        let port = forwards.port(rule)
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var ok = 0
            var problems: [String] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            let payload = Payload.random(8 * (4096 + index * 997))
            do {
                let reply = try TrafficSocket.roundTrip(port: port, payload)
                let good = reply == Array(payload.reversed())
                results.lock.lock()
                if good {
                    results.ok += 1
                } else {
                    results.problems.append("connection \(index): \(reply.count) of \(payload.count) bytes")
                }
                results.lock.unlock()
            } catch {
                results.lock.lock()
                results.problems.append("connection \(index): \(error)")
                results.lock.unlock()
            }
        }
        XCTAssertEqual(results.ok, 50, results.problems.joined(separator: "\n"))
        XCTAssertEqual(target.connectionsServed, 50)
        XCTAssertEqual(try forwards.status { $0.totalConnections == 50 }.totalConnections, 50)
    }

    func testHalfCloseStillDeliversTheReply() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningForwards([rule])
        defer { forwards.stop() }
        let fd = try TrafficSocket.connect(port: forwards.port(rule))
        defer { close(fd) }
        TrafficSocket.writeAll(fd, Array("hello, half-close".utf8))
        // The target answers only after it sees our EOF: the reply arriving proves EOF went through while the
        // other direction stayed open.
        shutdown(fd, Int32(SHUT_WR))
        XCTAssertEqual(String(decoding: TrafficSocket.readAll(fd), as: UTF8.self), "esolc-flah ,olleh")
    }

    func testPortInUseIsAnErrorNamingThePort() throws {
        let blocker = try ReverseServer()
        let rule = PortForwardRule(kind: .local, bindPort: blocker.port, targetHost: "127.0.0.1", targetPort: 9)
        XCTAssertThrowsError(try RunningForwards([rule])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("port \(blocker.port)") && text.contains("already in use"), text)
        }
    }

    func testADeadTargetFailsOneConnectionAndTheForwardKeepsServing() throws {
        let target = try ReverseServer()
        let deadPort = try TrafficSocket.freePort()
        let dead = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: deadPort)
        let live = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningForwards([dead, live])
        defer { forwards.stop() }
        XCTAssertEqual(try TrafficSocket.roundTrip(port: forwards.port(dead), Array("x".utf8)), [])
        XCTAssertEqual(try TrafficSocket.roundTrip(port: forwards.port(live), Array("ab".utf8)), Array("ba".utf8))
        XCTAssertEqual(try TrafficSocket.roundTrip(port: forwards.port(dead), Array("y".utf8)), [])
        XCTAssertEqual(try TrafficSocket.roundTrip(port: forwards.port(live), Array("cd".utf8)), Array("dc".utf8))
        let deadStatus = try forwards.status(of: dead.id) { $0.failedConnections == 2 }
        XCTAssertEqual(deadStatus.failedConnections, 2)
        XCTAssertNotNil(deadStatus.lastError)
        XCTAssertEqual(forwards.engine.status().first { $0.ruleID == live.id }?.failedConnections, 0)
    }

    func testIPv6LoopbackBindAndTarget() throws {
        let target = try ReverseServer(address: "::1")
        let rule = PortForwardRule(
            kind: .local, bindAddress: "::1", bindPort: try TrafficSocket.freePort(),
            targetHost: "::1", targetPort: target.port)
        let forwards = try RunningForwards([rule])
        defer { forwards.stop() }
        let fd = try TrafficSocket.connect(port: forwards.port(rule), address: "::1")
        defer { close(fd) }
        let payload = Payload.random(1 << 20)
        XCTAssertEqual(TrafficSocket.exchange(fd, payload), Array(payload.reversed()))
        XCTAssertThrowsError(
            try TrafficSocket.connect(port: forwards.port(rule), address: "127.0.0.1"), "bound to ::1 only")
    }

    func testStoppingDuringATransferEndsEveryConnection() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningForwards([rule])
        let fds = try (0..<5).map { _ in try TrafficSocket.connect(port: forwards.port(rule)) }
        // Half a transfer each: the target is still waiting for EOF when the engine stops.
        for fd in fds { TrafficSocket.writeAll(fd, Payload.random(64 << 10)) }
        try forwards.status { $0.bytesOut >= 5 * (64 << 10) }
        forwards.stop()
        XCTAssertNil(forwards.failure)
        for fd in fds {
            XCTAssertEqual(TrafficSocket.readAll(fd), [], "the client sees its connection end instead of hanging")
            close(fd)
        }
        XCTAssertEqual(forwards.engine.status().first?.activeConnections, 0)
        XCTAssertThrowsError(try TrafficSocket.connect(port: forwards.port(rule)))
    }
}

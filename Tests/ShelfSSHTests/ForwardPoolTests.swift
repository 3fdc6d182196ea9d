// ForwardPoolTests: a rule with `sessions N` over N real logins to a real sshd — concurrent connections with random
// payloads (SHA-256 checked) land on every session, proven on the server side (each sshd session process holds its
// share of the connections to the target), all bytes arrive, sequential connections take turns, and one session
// lost ends the pool with that error.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

/// N logged-in connections to one sshd and a pool running the rules over them on a background thread.
final class RunningPool: @unchecked Sendable {
    let sshd: SSHD
    let world = SSHWorld()
    let connections: [SSHConnection]
    let pool: ForwardPool
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var ended: Error?

    init(_ rules: [PortForwardRule], sessions: Int) throws {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        sshd = try SSHD.start(options)
        let identity = world.vaultIdentity(key, type: .ed25519)
        let endpoint = world.endpoint(sshd, identity: identity, pinned: world.pin(sshd))
        let connector = world.connector
        connections = try (0..<sessions).map { _ in try connector.connect([endpoint]) }
        pool = try ForwardPool(connections: connections, rules: rules, hostName: "target")
        Thread { [weak self, finished] in
            self?.runPool()
            finished.signal()
        }.start()
    }

    private func runPool() {
        do { try pool.run() } catch {
            lock.lock()
            ended = error
            lock.unlock()
        }
    }

    var failure: Error? {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    func port(_ rule: PortForwardRule) -> Int { pool.status().first { $0.ruleID == rule.id }?.boundPort ?? 0 }

    private var hasEnded = false

    /// Waits for `run()` to return (after a stop or a lost session); false when the wait ran out first.
    func waitForEnd() -> Bool {
        if hasEnded { return true }
        hasEnded = finished.wait(timeout: .now() + Deadline.scaled(Deadline.standard)) == .success
        return hasEnded
    }

    func stop() {
        pool.stop()
        _ = waitForEnd()
        for connection in connections { connection.close() }
    }
}

final class ForwardPoolTests: XCTestCase {
    func testConcurrentConnectionsSpreadOverFourSessionsAndEveryByteArrives() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port,
            sessions: 4)
        let forwards = try RunningPool([rule], sessions: 4)
        defer { forwards.stop() }
        XCTAssertEqual(forwards.pool.sessionCount, 4)
        let port = forwards.port(rule)

        // Eight connections held open at once: the least-loaded choice gives each session two.
        let payloads = (0..<8).map { Payload.random((1 << 20) + $0 * 4099) }
        let fds = try payloads.map { _ in try TrafficSocket.connect(port: port) }
        defer { for fd in fds { close(fd) } }
        for (fd, payload) in zip(fds, payloads) { TrafficSocket.writeAll(fd, Array(payload.prefix(1000))) }
        try eventually("eight open connections", context: { "\(forwards.pool.status())" }) {
            forwards.pool.status().first?.activeConnections == 8
        }
        XCTAssertEqual(forwards.pool.status().first?.connectionsPerSession, [2, 2, 2, 2])

        // On the server: four different sshd session processes, each connected twice to the target.
        let owners = try eventually(
            "eight connections from sshd to the target", observe: { SocketOwners.sshdConnections(toPort: target.port) },
            until: { $0.values.reduce(0, +) == 8 })
        XCTAssertEqual(owners.count, 4, "\(owners)")
        XCTAssertEqual(Set(owners.values), [2], "\(owners)")

        final class Replies: @unchecked Sendable {
            let lock = NSLock()
            var byIndex: [Int: [UInt8]] = [:]
        }
        let replies = Replies()
        DispatchQueue.concurrentPerform(iterations: fds.count) { index in
            let reply = TrafficSocket.exchange(fds[index], Array(payloads[index].dropFirst(1000)))
            replies.lock.lock()
            replies.byIndex[index] = reply
            replies.lock.unlock()
        }
        for (index, payload) in payloads.enumerated() {
            let reply = try XCTUnwrap(replies.byIndex[index])
            XCTAssertEqual(reply.count, payload.count, "connection \(index)")
            XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()), "connection \(index)")
        }
        let total = Int64(payloads.map(\.count).reduce(0, +))
        try eventually("every byte counted and every connection closed", context: { "\(forwards.pool.status())" }) {
            let status = forwards.pool.status().first
            return status?.bytesIn == total && status?.activeConnections == 0
        }
        let status = try XCTUnwrap(forwards.pool.status().first)
        XCTAssertEqual(status.bytesOut, total)
        XCTAssertEqual(status.totalConnections, 8)
        XCTAssertEqual(status.failedConnections, 0)
        XCTAssertEqual(target.connectionsServed, 8)
    }

    func testSequentialConnectionsTakeTurnsAndARuleWithOneSessionStaysOnTheFirst() throws {
        let target = try ReverseServer()
        let spread = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port,
            sessions: 2)
        let single = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port)
        let forwards = try RunningPool([spread, single], sessions: 2)
        defer { forwards.stop() }
        // Each connection ends (and is retired) before the next: every choice sees equal loads and takes turns.
        func idle() -> Bool { forwards.pool.status().allSatisfy { $0.activeConnections == 0 } }
        for index in 0..<4 {
            let payload = Payload.random(64 << 10 | index)
            XCTAssertEqual(try TrafficSocket.roundTrip(port: forwards.port(spread), payload), payload.reversed())
            try eventually("the connection retired", context: { "\(forwards.pool.status())" }, idle)
            XCTAssertEqual(try TrafficSocket.roundTrip(port: forwards.port(single), payload), payload.reversed())
            try eventually("the connection retired", context: { "\(forwards.pool.status())" }, idle)
        }
        try eventually("four connections on each rule", context: { "\(forwards.pool.status())" }) {
            forwards.pool.status().allSatisfy { $0.totalConnections == 4 }
        }
        let statuses = forwards.pool.status()
        XCTAssertEqual(statuses.first { $0.ruleID == spread.id }?.connectionsPerSession, [2, 2])
        XCTAssertNil(statuses.first { $0.ruleID == single.id }?.connectionsPerSession)
    }

    func testADynamicRuleSpreadsItsSocksConnections() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(kind: .dynamic, bindPort: try TrafficSocket.freePort(), sessions: 3)
        let forwards = try RunningPool([rule], sessions: 3)
        defer { forwards.stop() }
        let fds = try (0..<3).map { _ in try TrafficSocket.connect(port: forwards.port(rule)) }
        defer { for fd in fds { close(fd) } }
        for fd in fds {
            TrafficSocket.writeAll(fd, [5, 1, 0])
            XCTAssertEqual(TrafficSocket.readExactly(fd, 2), [5, 0])
            let port = UInt16(target.port)
            TrafficSocket.writeAll(fd, [5, 1, 0, 1, 127, 0, 0, 1, UInt8(port >> 8), UInt8(port & 0xFF)])
            XCTAssertEqual(TrafficSocket.readExactly(fd, 10).prefix(2), [5, 0])
        }
        try eventually("one SOCKS connection on each session", context: { "\(forwards.pool.status())" }) {
            forwards.pool.status().first?.connectionsPerSession == [1, 1, 1]
        }
        for fd in fds {
            let payload = Payload.random(256 << 10)
            XCTAssertEqual(TrafficSocket.exchange(fd, payload), payload.reversed())
        }
    }

    func testLosingOneSessionEndsThePoolWithThatError() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(
            kind: .local, bindPort: try TrafficSocket.freePort(), targetHost: "127.0.0.1", targetPort: target.port,
            sessions: 2)
        let forwards = try RunningPool([rule], sessions: 2)
        defer { forwards.stop() }
        // One held connection per session, so both sessions' sshd processes are connected to the target.
        let fds = try (0..<2).map { _ in try TrafficSocket.connect(port: forwards.port(rule)) }
        defer { for fd in fds { close(fd) } }
        for fd in fds { TrafficSocket.writeAll(fd, Array("hello".utf8)) }
        let owners = try eventually(
            "both sessions' sshd connected to the target",
            observe: { SocketOwners.sshdConnections(toPort: target.port) }, until: { $0.count == 2 })
        let victim = try XCTUnwrap(owners.keys.sorted().last)
        kill(victim, SIGKILL)
        XCTAssertTrue(forwards.waitForEnd(), "the pool kept running after a session was lost")
        let error = try XCTUnwrap(forwards.failure as? SSHError)
        XCTAssertEqual(error.kind, .disconnected, "\(error)")
        XCTAssertThrowsError(try TrafficSocket.connect(port: forwards.port(rule)), "nothing listens after the end")
    }
}

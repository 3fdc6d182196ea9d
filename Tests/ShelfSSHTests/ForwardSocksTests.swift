// ForwardSocksTests: the SOCKS proxy (-D) against a real sshd — megabytes both ways by domain name, IPv4, IPv6
// and SOCKS4a, and bad requests (wrong version, truncated, unsupported command, unreachable target) refused
// cleanly while the proxy keeps serving.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class ForwardSocksTests: XCTestCase {
    private func socks5(_ proxy: Int, address: [UInt8], port: Int) throws -> Int32 {
        let fd = try TrafficSocket.connect(port: proxy)
        TrafficSocket.writeAll(fd, [5, 1, 0])
        XCTAssertEqual(TrafficSocket.readExactly(fd, 2), [5, 0])
        TrafficSocket.writeAll(fd, [5, 1, 0] + address + [UInt8(port >> 8), UInt8(port & 0xFF)])
        return fd
    }

    private func expectThrough(_ fd: Int32, payload: [UInt8], reply head: [UInt8]) throws {
        defer { close(fd) }
        XCTAssertEqual(TrafficSocket.readExactly(fd, head.count), head)
        let reply = TrafficSocket.exchange(fd, payload)
        XCTAssertEqual(try Payload.sha256(reply), try Payload.sha256(payload.reversed()))
    }

    func testSocksByNameIPv4IPv6AndSocks4a() throws {
        let target = try ReverseServer()
        let target6 = try ReverseServer(address: "::1")
        let rule = PortForwardRule(kind: .dynamic, bindPort: try TrafficSocket.freePort())
        let forwards = try RunningForwards([rule])
        defer { forwards.stop() }
        let proxy = forwards.port(rule)
        let ok5: [UInt8] = [5, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        let name = Array("localhost".utf8)
        try expectThrough(
            try socks5(proxy, address: [3, UInt8(name.count)] + name, port: target.port),
            payload: Payload.random(3 << 20), reply: ok5)
        try expectThrough(
            try socks5(proxy, address: [1, 127, 0, 0, 1], port: target.port),
            payload: Payload.random(3 << 20), reply: ok5)
        try expectThrough(
            try socks5(proxy, address: [4] + [UInt8](repeating: 0, count: 15) + [1], port: target6.port),
            payload: Payload.random(1 << 20), reply: ok5)
        let fd = try TrafficSocket.connect(port: proxy)
        TrafficSocket.writeAll(
            fd,
            [4, 1, UInt8(target.port >> 8), UInt8(target.port & 0xFF), 0, 0, 0, 1] + Array("me".utf8) + [0]
                + Array("localhost".utf8) + [0])
        try expectThrough(fd, payload: Payload.random(1 << 20), reply: [0, 0x5A, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(forwards.engine.status().first?.failedConnections, 0)
    }

    func testBadRequestsAreRefusedAndTheProxyKeepsServing() throws {
        let target = try ReverseServer()
        let rule = PortForwardRule(kind: .dynamic, bindPort: try TrafficSocket.freePort())
        let forwards = try RunningForwards([rule])
        defer { forwards.stop() }
        let proxy = forwards.port(rule)

        // Wrong version: SOCKS has no way to say no, so the connection is just closed.
        var fd = try TrafficSocket.connect(port: proxy)
        TrafficSocket.writeAll(fd, Array("GET / HTTP/1.1\r\n\r\n".utf8))
        XCTAssertEqual(TrafficSocket.readAll(fd), [])
        close(fd)

        // Unsupported command (BIND).
        fd = try TrafficSocket.connect(port: proxy)
        TrafficSocket.writeAll(fd, [5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80])
        XCTAssertEqual(TrafficSocket.readAll(fd), [5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0])
        close(fd)

        // Truncated, then the client gives up: nothing opened, nothing sent back beyond the method choice.
        fd = try TrafficSocket.connect(port: proxy)
        TrafficSocket.writeAll(fd, [5, 1, 0, 5, 1, 0, 3, 30, 0x61])
        shutdown(fd, Int32(SHUT_WR))
        XCTAssertEqual(TrafficSocket.readAll(fd), [5, 0])
        close(fd)

        // A target nobody listens on: a SOCKS failure reply, not a hang.
        let dead = try TrafficSocket.freePort()
        fd = try socks5(proxy, address: [1, 127, 0, 0, 1], port: dead)
        XCTAssertEqual(TrafficSocket.readAll(fd), [5, 5, 0, 1, 0, 0, 0, 0, 0, 0])
        close(fd)

        // And the proxy still works.
        try expectThrough(
            try socks5(proxy, address: [1, 127, 0, 0, 1], port: target.port),
            payload: Payload.random(1 << 20), reply: [5, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        let status = try forwards.status { $0.failedConnections == 3 && $0.activeConnections == 0 }
        XCTAssertEqual(status.failedConnections, 3)
        XCTAssertEqual(status.activeConnections, 0)
    }
}

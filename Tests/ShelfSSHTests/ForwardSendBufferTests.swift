// ForwardSendBufferTests: the forward engine's send buffer on a real socket pair — packets wait until the pass
// ends (one write carries them all, in order), a full buffer says "would block" and takes the packet again once
// the socket drains, and a dead peer is reported to every later send.
import Foundation
@testable import ShelfSSH
import XCTest

final class ForwardSendBufferTests: XCTestCase {
    private func pair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EIO) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }

    private func readable(_ fd: Int32) -> Int {
        var available: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &available)
        return Int(available)
    }

    private func drain(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return result }
            result += chunk[0..<count]
        }
    }

    private func packet(_ index: Int, size: Int = 30_000) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
    }

    func testPacketsWaitForTheEndOfThePassAndLeaveTogetherInOrder() throws {
        let (mine, peer) = try pair()
        defer { close(mine); close(peer) }
        let buffer = ForwardSendBuffer(socket: mine)
        var sent: [UInt8] = []
        for index in 0..<7 {
            let bytes = packet(index)
            XCTAssertEqual(bytes.withUnsafeBytes { buffer.take($0.baseAddress!, count: $0.count) }, bytes.count)
            sent += bytes
        }
        XCTAssertEqual(readable(peer), 0, "nothing leaves before the flush at the end of the pass")
        XCTAssertTrue(buffer.flush())
        XCTAssertTrue(buffer.isEmpty)
        XCTAssertEqual(drain(peer), sent)
    }

    func testAFullBufferWouldBlockUntilTheSocketDrains() throws {
        let (mine, peer) = try pair()
        defer { close(mine); close(peer) }
        var small: Int32 = 4096
        setsockopt(mine, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let buffer = ForwardSendBuffer(socket: mine, capacity: ForwardSendBuffer.minimumCapacity)
        var sent: [UInt8] = []
        var refused = 0
        var received: [UInt8] = []
        var index = 0
        while sent.count < 1 << 20 {
            let bytes = packet(index, size: 20_000)
            let taken = bytes.withUnsafeBytes { buffer.take($0.baseAddress!, count: $0.count) }
            if taken == -Int(EAGAIN) {
                refused += 1
                received += drain(peer)  // the reader catches up; the same packet is offered again
                continue
            }
            XCTAssertEqual(taken, bytes.count)
            sent += bytes
            index += 1
        }
        while !buffer.flush() { received += drain(peer) }
        received += drain(peer)
        XCTAssertGreaterThan(refused, 0, "a 64 KiB buffer over a 4 KiB socket fills up")
        XCTAssertEqual(received, sent)
    }

    func testADeadPeerIsReportedToEveryLaterSend() throws {
        let (mine, peer) = try pair()
        defer { close(mine) }
        close(peer)
        let buffer = ForwardSendBuffer(socket: mine)
        let bytes = packet(0)
        XCTAssertEqual(bytes.withUnsafeBytes { buffer.take($0.baseAddress!, count: $0.count) }, bytes.count)
        XCTAssertFalse(buffer.flush())
        XCTAssertEqual(buffer.failure, EPIPE)
        XCTAssertEqual(bytes.withUnsafeBytes { buffer.take($0.baseAddress!, count: $0.count) }, -Int(EPIPE))
    }
}

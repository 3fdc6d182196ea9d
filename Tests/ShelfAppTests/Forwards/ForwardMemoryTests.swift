// ForwardMemoryTests: backpressure, measured. A target pushes 200 MB as fast as it can through `forward start`
// to a client that first does not read at all and then reads slowly; the sshelf process's resident memory
// (VmRSS, sampled throughout) must stay under a fixed bound — no assertion on time.
import Foundation
import TestSupport
import XCTest

final class ForwardMemoryTests: XCTestCase {
    static let total = 200 << 20
    static let block = Payload.random(1 << 20)

    /// What the flood target has written, and whether it is waiting for room to write more (the backpressure has
    /// reached it).
    final class Flood: @unchecked Sendable {
        private let lock = NSLock()
        private var written = 0
        private var waiting = false
        var state: (written: Int, waiting: Bool) {
            lock.lock()
            defer { lock.unlock() }
            return (written, waiting)
        }
        func update(written: Int? = nil, waiting: Bool) {
            lock.lock()
            if let written { self.written = written }
            self.waiting = waiting
            lock.unlock()
        }
    }

    /// Accepts one connection and writes `total` bytes (the same random megabyte over and over), then closes.
    /// Writes without blocking, so `flood` can tell when the socket is full and it waits for room.
    private func floodServer(_ flood: Flood) throws -> (port: Int, listener: Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        listen(listener, 4)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        Thread {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            var sent = 0
            while sent < Self.total {
                let offset = sent % Self.block.count
                let count = Self.block.withUnsafeBytes {
                    send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
                if count > 0 {
                    sent += count
                    flood.update(written: sent, waiting: false)
                } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                    flood.update(waiting: true)
                    var room = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = Glibc.poll(&room, 1, -1)
                } else {
                    break
                }
            }
            close(fd)
        }.start()
        return (Int(UInt16(bigEndian: address.sin_port)), listener)
    }

    private static func rss(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    func testSlowReaderKeepsMemoryBounded() throws {
        let world = try SSHCLIWorld()
        let flood = Flood()
        let (targetPort, listener) = try floodServer(flood)
        defer { close(listener) }
        let port = try world.addLocalRule(to: targetPort)
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new"])
        try running.waitFor("press Ctrl-C")
        let pid = running.pid
        let baseline = Self.rss(pid)
        var highest = baseline

        let fd = try TrafficSocket.connect(port: port)
        defer { close(fd) }
        var small: Int32 = 64 * 1024
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        // Not reading: the target writes (far more than our receive buffer) until every buffer between it and us
        // is full and it has to wait for room, seen at two polls in a row with nothing written in between. A
        // forward that buffered without bound would let it write all 200 MB instead.
        var previous = -1
        try eventually("the target to be held back by the forward", poll: 0.25, context: { "\(flood.state)" }) {
            highest = max(highest, Self.rss(pid))
            let now = flood.state
            defer { previous = now.written }
            return now.waiting && now.written == previous && now.written >= 1 << 20
        }
        var received = 0
        var mismatches = 0
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var position = 0
        var reads = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            for index in 0..<count where chunk[index] != Self.block[(position + index) % Self.block.count] {
                mismatches += 1
                break
            }
            position += count
            received += count
            reads += 1
            if reads % 16 == 0 { highest = max(highest, Self.rss(pid)) }
            // The scenario, not a wait: a reader slower than the target keeps the backpressure on throughout.
            if reads % 64 == 0 { usleep(1_000) }
        }
        XCTAssertEqual(received, Self.total)
        XCTAssertEqual(mismatches, 0)
        XCTAssertGreaterThan(baseline, 0)
        // 200 MB went through; the process may grow by the SSH window and its buffers, not by what it carried.
        XCTAssertLessThan(highest - baseline, 40 << 20, "baseline \(baseline >> 20) MiB, peak \(highest >> 20) MiB")
        XCTAssertEqual(try running.stop(SIGINT), 0, running.stderr)
    }
}

// ForwardMemoryTests: backpressure, measured. A target pushes 200 MB as fast as it can through `forward start`
// to a client that first does not read at all and then reads slowly; the sshelf process's resident memory
// (VmRSS, sampled throughout) must stay under a fixed bound — no assertion on time.
import Foundation
import TestSupport
import XCTest

final class ForwardMemoryTests: XCTestCase {
    static let total = 200 << 20
    static let block = Payload.random(1 << 20)

    /// Accepts one connection and writes `total` bytes (the same random megabyte over and over), then closes.
    private func floodServer() throws -> (port: Int, listener: Int32) {
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
            for _ in 0..<(Self.total >> 20) { TrafficSocket.writeAll(fd, Self.block) }
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
        let (targetPort, listener) = try floodServer()
        defer { close(listener) }
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(targetPort)"), 0)
        let running = try BackgroundCLI(world.home, ["forward", "start", "t", "--accept-new"])
        XCTAssertTrue(running.waitFor("press Ctrl-C"), running.stderr)
        let pid = running.process.processIdentifier
        let baseline = Self.rss(pid)

        final class Peak: @unchecked Sendable {
            let lock = NSLock()
            var value = 0
            var done = false
        }
        let peak = Peak()
        let sampler = Thread {
            while true {
                let now = Self.rss(pid)
                peak.lock.lock()
                peak.value = max(peak.value, now)
                let done = peak.done
                peak.lock.unlock()
                if done { return }
                usleep(20_000)
            }
        }
        sampler.start()

        let fd = try TrafficSocket.connect(port: port)
        defer { close(fd) }
        var small: Int32 = 64 * 1024
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        sleep(2)  // not reading: the writer runs into the window and the forward's bounded buffers
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
            if reads % 64 == 0 { usleep(1_000) }  // a slow reader
        }
        peak.lock.lock()
        peak.done = true
        let highest = peak.value
        peak.lock.unlock()
        XCTAssertEqual(received, Self.total)
        XCTAssertEqual(mismatches, 0)
        XCTAssertGreaterThan(baseline, 0)
        // 200 MB went through; the process may grow by the SSH window and its buffers, not by what it carried.
        XCTAssertLessThan(highest - baseline, 40 << 20, "baseline \(baseline >> 20) MiB, peak \(highest >> 20) MiB")
        XCTAssertEqual(running.stop(SIGINT), 0, running.stderr)
    }
}

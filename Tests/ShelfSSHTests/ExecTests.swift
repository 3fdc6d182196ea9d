// ExecTests: remote commands over a real sshd — exit statuses, stdout and stderr kept apart, a multi-megabyte
// binary output checked by hash, stdin forwarded binary-safe, and a connection reused for several commands.
import Foundation
import ShelfCore
import ShelfSSH
import TestSupport
import XCTest

final class ExecTests: XCTestCase {
    var sshd: SSHD!
    var world: SSHWorld!
    var connection: SSHConnection!

    override func setUpWithError() throws {
        (sshd, world, connection) = try SSHWorld.connectedToNewServer()
    }

    override func tearDown() {
        SSHWorld.end(&connection, &sshd, &world)
    }

    func testExitStatusAndStreamsKeptApart() throws {
        let (status, out, err) = try SSHWorld.run(connection, "echo out; echo err >&2; exit 7")
        XCTAssertEqual(status, .status(7))
        XCTAssertEqual(status.exitCode, 7)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "out\n")
        XCTAssertEqual(String(decoding: err, as: UTF8.self), "err\n")
        // The same connection serves later commands (a warm session): no new handshake or login.
        connection.keepAlive()
        let (ok, _, _) = try SSHWorld.run(connection, "true")
        XCTAssertEqual(ok, .status(0))
        XCTAssertTrue(sshd.waitForLog("Accepted publickey"))
        XCTAssertEqual(sshd.logCount("Accepted publickey"), 1)
    }

    func testSignalEndsWithExitCode255() throws {
        let (status, _, _) = try SSHWorld.run(connection, "kill -TERM $$")
        XCTAssertEqual(status, .signal("TERM"))
        XCTAssertEqual(status.exitCode, 255)
    }

    func testMultiMegabyteBinaryOutputArrivesIntact() throws {
        let path = "/tmp/sshelf-exec-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var chunks = 0
        var received = [UInt8]()
        let status = try connection.exec(
            "head -c 6000000 /dev/urandom | tee \(path)",
            stdout: {
                chunks += 1
                received += $0
            }, stderr: { _ in })
        XCTAssertEqual(status, .status(0))
        XCTAssertEqual(received.count, 6_000_000)
        XCTAssertGreaterThan(chunks, 1, "delivered as it arrived, not in one piece")
        let expected = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(sha256(received), sha256([UInt8](expected)))
    }

    func testStdinIsForwardedBinarySafe() throws {
        let input = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let path = NSTemporaryDirectory() + "sshelf-in-" + UUID().uuidString.prefix(8)
        try Data(input).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var out = [UInt8]()
        let status = try connection.exec("cat", input: fd, stdout: { out += $0 }, stderr: { _ in })
        XCTAssertEqual(status, .status(0))
        XCTAssertEqual(out, input)
    }

    private func sha256(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "sshelf-hash-" + UUID().uuidString.prefix(8)
        try? Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return (try? Shell.run(TestTool.sha256sum.path, [path]).split(separator: " ").first.map(String.init)) ?? "?"
    }
}

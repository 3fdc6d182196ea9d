// KeepaliveMemoryTests: a long-lived session's memory does not grow with its keepalives. libssh2 keeps every answer
// to a keepalive that asks for one in the session's packet list until the session ends; sshelf's held connections
// ask with Session.probe instead, whose answer libssh2 frees. A day of probes at 15 s (5,760) against the real sshd
// leaves libssh2's held blocks flat, and the measure itself is shown to catch the pile-up of keepalive replies.
import Foundation
@testable import ShelfSSH
import TestSupport
import XCTest

final class KeepaliveMemoryTests: XCTestCase {
    var sshd: SSHD!
    var world: SSHWorld!
    var connection: SSHConnection!

    override func setUpWithError() throws {
        (sshd, world, connection) = try SSHWorld.connectedToNewServer()
    }

    override func tearDown() {
        SSHWorld.end(&connection, &sshd, &world)
    }

    /// 24 hours of a keepalive every 15 s, each one answered, with libssh2's memory for the session counted before
    /// and after: what it holds stays within a few blocks (a reply kept per probe would be 5,760 more).
    func testADayOfProbesLeavesTheSessionsMemoryFlat() throws {
        let session = connection.target
        _ = session.probe(timeout: 10)
        let before = session.context.heldBlocks
        let residentBefore = try residentKiB()
        for round in 1...(24 * 3600 / 15) {
            let received = session.context.received
            XCTAssertEqual(session.probe(timeout: 10), .answered, "probe \(round)")
            XCTAssertGreaterThan(session.context.received, received, "probe \(round) was answered by the server")
            if session.context.heldBlocks > before + 16 { break }
        }
        XCTAssertLessThanOrEqual(session.context.heldBlocks - before, 16, "libssh2 held blocks grew over the day")
        // The process as a whole: a reply kept per probe would be several hundred KiB; allow for allocator noise.
        XCTAssertLessThan(try residentKiB() - residentBefore, 2048, "resident memory grew over the day")
        // The connection still works after it.
        let (status, out, _) = try SSHWorld.run(connection, "echo still")
        XCTAssertEqual(status, .status(0))
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "still\n")
    }

    /// What the probes replace: keepalives asking for a reply (libssh2 sends at most one every 2 s), each answer
    /// kept by libssh2 once read — the measure above sees them pile up (and, asking for no reply, it sees nothing).
    func testAnsweredKeepaliveRepliesPileUpInLibssh2() throws {
        let session = connection.target
        session.startKeepalives(interval: 2)
        session.askKeepaliveReplies()
        let reader = try session.openSessionChannel()
        defer { reader.close() }
        let before = session.context.heldBlocks
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        let piled = try waitUntil(deadline: Deadline.standard, poll: 0.05) {
            _ = session.keepaliveTick()
            // Reading any channel makes libssh2 read the transport: the reply arrives and is kept.
            session.setBlocking(false)
            defer { session.setBlocking(true) }
            _ = try reader.read(stream: 0, into: buffer)
            return session.context.heldBlocks >= before + 3
        }
        XCTAssertTrue(
            piled, "libssh2 holds \(session.context.heldBlocks - before) more blocks (3 kept replies expected)")
    }

    private func residentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw skipped("no VmRSS in /proc/self/status") }
        return kib
    }
}

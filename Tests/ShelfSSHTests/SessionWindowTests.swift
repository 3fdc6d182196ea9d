// SessionWindowTests: a session's bulk output through sshelf's own client, as `sshelf connect HOST < script` runs it
// (the shell without a terminal, its output to a file): the session channel opens with OpenSSH's 2 MiB receive
// window — a deeper one let sshd read ahead into a buffer it reallocated over and over, ten times ssh's CPU for the
// same output (docs/PERFORMANCE.md, "A session's throughput") — and 48 MB, two dozen windows' worth, arrive whole and
// in order through the window adjusts the loop's reads send. And the loop never sleeps on bytes libssh2 already took
// off the socket: stdout's packets that arrive while stderr is read are read before poll() (with the server silent
// after them, a sleep there lasted the whole poll timeout).
import Foundation
@testable import ShelfSSH
import TestSupport
import XCTest

final class SessionWindowTests: XCTestCase {
    var sshd: SSHD!
    var world: SSHWorld!
    var connection: SSHConnection!
    var folder: String!

    override func setUpWithError() throws {
        (sshd, world, connection) = try SSHWorld.connectedToNewServer()
        folder = NSTemporaryDirectory() + "sshelf-window-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The test account's shell writes the expected copy here.
        _ = chmod(folder, 0o777)
    }

    override func tearDown() {
        SSHWorld.end(&connection, &sshd, &world)
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    func testSessionChannelOpensWithOpenSSHsWindow() throws {
        let session = connection.target
        session.setBlocking(true)
        let channel = try session.openSessionChannel()
        let window = channel.receiveWindow
        XCTAssertEqual(window.initial, 2 * 1024 * 1024, "the receive window asked for when the channel opened")
        XCTAssertEqual(window.open, 2 * 1024 * 1024, "nothing read yet: the whole window is open")
        channel.close()
    }

    func testBulkOutputOfAShellWithoutATerminalArrivesWholeAndInOrder() throws {
        let expected = folder + "/expected"
        let script = folder + "/script"
        let received = folder + "/received"
        let errors = folder + "/errors"
        // Numbered lines first (order shows at a glance in a failure), then random bytes: 48 MB in all.
        let command =
            "{ seq 1 1000000; head -c 41111111 /dev/urandom; } | tee \(expected); echo done >&2; exit 3\n"
        try Data(command.utf8).write(to: URL(fileURLWithPath: script))
        let input = open(script, O_RDONLY | O_CLOEXEC)
        let output = open(received, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let stderr = open(errors, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(input)
            close(output)
            close(stderr)
        }
        var options = ShellOptions(term: "xterm", input: input, output: output, escapeEnabled: false)
        options.requestTerminal = false
        options.errors = stderr
        let exit = try connection.runShell(options)
        XCTAssertEqual(exit, .status(3))
        XCTAssertEqual(try String(contentsOfFile: errors, encoding: .utf8), "done\n")
        let size = (try FileManager.default.attributesOfItem(atPath: received)[.size] as? Int) ?? 0
        XCTAssertEqual(size, 6_888_896 + 41_111_111)
        XCTAssertGreaterThan(size, 20 * 2 * 1024 * 1024, "many windows' worth, so many adjusts")
        XCTAssertEqual(try digest(received), try digest(expected))
    }

    /// The command prints A, waits for a byte, prints B, waits for another. The test's hook sends the first byte in a
    /// round whose stdout read found nothing, and waits (deadline 10 s) until B's packet is on the socket, so the
    /// stderr read after it takes B in; B's arrival then sends the second byte, and the command ends.
    func testOutputTakenInWhileStderrIsReadIsReadBeforeSleeping() throws {
        let session = connection.target
        session.setBlocking(true)
        let channel = try session.openSessionChannel()
        try channel.exec("printf A; head -c 1 >/dev/null; printf B; head -c 1 >/dev/null; exit 4")
        session.setBlocking(false)
        defer { session.setBlocking(true) }
        var liveness = Liveness()
        liveness.interval = 2
        var pump = ChannelPump(session: session, channel: channel, input: nil, liveness: liveness)
        var out: [UInt8] = []
        var armed = false, sent = 0
        func send() {
            let byte: [UInt8] = [0x0A]
            let taken = byte.withUnsafeBytes { try? channel.write($0) }
            XCTAssertEqual(taken, 1)
            sent += 1
        }
        pump.betweenStreams = {
            guard out == Array("A".utf8), sent == 0 else { return }
            // The round that read A continues without sleeping: send in the next one, whose stdout read found nothing.
            guard armed else {
                armed = true
                return
            }
            send()
            var ready = pollfd(fd: session.socket, events: Int16(POLLIN), revents: 0)
            XCTAssertEqual(poll(&ready, 1, 10_000), 1, "B's packet arrived")
        }
        try pump.run(
            stdout: {
                out += $0
                if out == Array("AB".utf8) && sent == 1 { send() }
            }, stderr: { _ in })
        session.setBlocking(true)
        channel.close()
        XCTAssertEqual(channel.exit(), .status(4))
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "AB")
        XCTAssertGreaterThanOrEqual(pump.pollSkips, 1, "a round took B off the socket while stderr was read")
        XCTAssertEqual(pump.idleTimeouts, 0, "no poll slept through its timeout with B inside libssh2")
    }

    private func digest(_ path: String) throws -> String {
        try Shell.run(TestTool.sha256sum.path, [path]).split(separator: " ").first.map(String.init) ?? "?"
    }
}

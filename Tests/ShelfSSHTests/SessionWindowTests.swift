// SessionWindowTests: a session's bulk output through sshelf's own client, as `sshelf connect HOST < script` runs it
// (the shell without a terminal, its output to a file): the session channel opens with OpenSSH's 2 MiB receive
// window — a deeper one let sshd read ahead into a buffer it reallocated over and over, ten times ssh's CPU for the
// same output (docs/PERFORMANCE.md, "A session's throughput") — and 48 MB, two dozen windows' worth, arrive whole and in
// order through the window adjusts the loop's reads send.
import Foundation
@testable import ShelfSSH
import TestSupport
import XCTest
import CLibSSH2

final class SessionWindowTests: XCTestCase {
    var sshd: SSHD!
    var world: SSHWorld!
    var connection: SSHConnection!
    var folder: String!

    override func setUpWithError() throws {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        sshd = try SSHD.start(options)
        world = SSHWorld()
        connection = try world.connector.connect([
            world.endpoint(sshd, identity: world.vaultIdentity(key, type: .ed25519), pinned: world.pin(sshd))
        ])
        folder = NSTemporaryDirectory() + "sshelf-window-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The test account's shell writes the expected copy here.
        _ = chmod(folder, 0o777)
    }

    override func tearDown() {
        connection?.close()
        connection = nil
        sshd?.stop()
        sshd = nil
        world = nil
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    func testSessionChannelOpensWithOpenSSHsWindow() throws {
        let session = connection.target
        session.setBlocking(true)
        let channel = try session.openSessionChannel()
        var initial: UInt = 0
        let window = libssh2_channel_window_read_ex(channel.raw, nil, &initial)
        XCTAssertEqual(initial, 2 * 1024 * 1024, "the receive window asked for when the channel opened")
        XCTAssertEqual(window, 2 * 1024 * 1024, "nothing read yet: the whole window is open")
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

    private func digest(_ path: String) throws -> String {
        try Shell.run(TestTool.sha256sum.path, [path]).split(separator: " ").first.map(String.init) ?? "?"
    }
}

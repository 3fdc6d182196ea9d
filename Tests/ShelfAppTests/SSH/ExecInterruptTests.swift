// ExecInterruptTests: Ctrl-C (SIGINT to sshelf) during `sshelf exec` without a PTY. On libssh2 1.11 it reaches the
// remote command as INT (a "signal" channel request: the command's trap runs and its exit status is sshelf's); on
// 1.10, which cannot send signals, sshelf ends as before. Runs against the real sshd on both libraries.
import Foundation
import TestSupport
import XCTest

final class ExecInterruptTests: XCTestCase {
    func testCtrlCReachesTheRemoteCommandWhereTheLibraryCanSendSignals() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let newer = try world.home.run("version", "--verbose").stdout
            .contains("  yes Ctrl-C reaches the remote command")
        // Bounded (60 s), so a command that never hears of the interrupt does not outlive the test for long.
        let command =
            "trap 'echo got-int; exit 7' INT; echo ready; for i in $(seq 600); do sleep 0.1; done; "
            + "echo not-interrupted"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["exec", "t", "--no-stdin", "--", command]
        process.environment = world.home.environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let output = LockedText()
        out.fileHandleForReading.readabilityHandler = { output.append($0.availableData) }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        try eventually("the remote command to start", context: { output.text }) { output.text.contains("ready\n") }
        kill(process.processIdentifier, SIGINT)
        try eventually("sshelf exec to end", deadline: 30, context: { output.text }) { !process.isRunning }
        try eventually("the output to be read", context: { output.text }) { output.closed }
        if newer {
            XCTAssertEqual(process.terminationReason, .exit)
            XCTAssertEqual(
                process.terminationStatus, 7,
                "the remote command's status after its INT trap: \(output.text)")
            XCTAssertEqual(output.text, "ready\ngot-int\n")
        } else {
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "1.10: SIGINT ends sshelf as before")
            XCTAssertFalse(output.text.contains("got-int"), output.text)
        }
    }
}

/// Text a pipe's handler appends to while the test reads it.
private final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    func append(_ chunk: Data) {
        lock.lock()
        if chunk.isEmpty { ended = true } else { data.append(chunk) }
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    var closed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }
}

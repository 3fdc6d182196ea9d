// BackgroundCLI: runs a long-lived `sshelf` command (forward start / up) in a TempHome, waits for what it prints
// on stderr, and stops it with a real signal; its output is collected for the assertions.
import Foundation
import TestSupport
import XCTest

final class BackgroundCLI: @unchecked Sendable {
    let process = Process()
    let arguments: [String]
    private let errPipe = Pipe(), outPipe = Pipe()
    private let lock = NSLock()
    private var errData = Data()
    private var errEnded = false

    init(_ home: TempHome, _ arguments: [String]) throws {
        self.arguments = arguments
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        process.environment = home.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outPipe
        process.standardError = errPipe
        errPipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let chunk = handle.availableData
            lock.lock()
            if chunk.isEmpty {
                errEnded = true
                handle.readabilityHandler = nil
            } else {
                errData.append(chunk)
            }
            lock.unlock()
        }
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errData, as: UTF8.self)
    }

    private var stderrEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return errEnded
    }

    /// How often `text` occurs on stderr so far.
    func count(_ text: String) -> Int { stderr.components(separatedBy: text).count - 1 }

    /// Waits until `text` has shown up `count` times on stderr; fails here (with the stderr so far) when the
    /// deadline passes or the process ends first.
    func waitFor(_ text: String, count wanted: Int = 1, deadline: TimeInterval = Deadline.standard,
                 file: StaticString = #filePath, line: UInt = #line) throws {
        let what = "'\(text)' \(wanted)× on the stderr of sshelf \(arguments.joined(separator: " "))"
        try eventually(what, deadline: deadline, file: file, line: line, context: { "stderr:\n" + tail(stderr) }) {
            count(text) >= wanted || !process.isRunning
        }
        guard count(text) >= wanted else {
            XCTFail("sshelf \(arguments.joined(separator: " ")) exited (\(process.terminationStatus)) before \(what):\n"
                    + stderr, file: file, line: line)
            throw WaitTimedOut(what: what)
        }
    }

    /// Sends `signal` and waits for the exit status (and the rest of stderr).
    func stop(_ signal: Int32 = SIGINT, file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        kill(process.processIdentifier, signal)
        return try waitExit(file: file, line: line)
    }

    /// Waits for the process to end and its stderr to reach end-of-file, and returns the exit status.
    func waitExit(file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        try eventually("sshelf \(arguments.joined(separator: " ")) to exit and close stderr", file: file, line: line,
                       context: { "stderr:\n" + tail(stderr) }) { !process.isRunning && stderrEnded }
        return process.terminationStatus
    }
}

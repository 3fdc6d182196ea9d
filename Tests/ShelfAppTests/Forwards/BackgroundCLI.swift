// BackgroundCLI: runs a long-lived `sshelf` command (forward start / up) in a TempHome, waits for a port to
// accept connections, and stops it with a real signal; its output is collected for the assertions.
import Foundation
import TestSupport
import XCTest

final class BackgroundCLI: @unchecked Sendable {
    let process = Process()
    private let errPipe = Pipe(), outPipe = Pipe()
    private let lock = NSLock()
    private var errData = Data()

    /// `stdin`: text the command reads on its standard input (for `--password-fd 0`), then end of file.
    init(_ home: TempHome, _ arguments: [String], stdin: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        process.environment = home.environment
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        process.standardOutput = outPipe
        process.standardError = errPipe
        errPipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let chunk = handle.availableData
            lock.lock()
            errData.append(chunk)
            lock.unlock()
        }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            input.fileHandleForWriting.closeFile()
        }
    }

    deinit { if process.isRunning { process.terminate() } }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errData, as: UTF8.self)
    }

    /// Waits until `text` shows up on stderr (or the process ends); false on timeout.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            if !process.isRunning { return stderr.contains(text) }
            usleep(20_000)
        }
        return false
    }

    /// Sends `signal` and waits for the exit status.
    func stop(_ signal: Int32 = SIGINT) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        usleep(50_000)
        return process.terminationStatus
    }

    func waitExit() -> Int32 {
        process.waitUntilExit()
        usleep(50_000)
        return process.terminationStatus
    }
}

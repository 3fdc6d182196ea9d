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

    /// With `fd3`, that text (and a newline) is readable on descriptor 3, as a script hands over a secret; the shell
    /// that sets it up execs sshelf, so signals still reach sshelf itself.
    init(_ home: TempHome, _ arguments: [String], fd3: String? = nil) throws {
        if let fd3 {
            let file = try home.write(fd3 + "\n", to: "fd3-\(UUID().uuidString.prefix(6))")
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$0\" \"$@\" 3<'\(file)'", CLI.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = arguments
        }
        process.environment = home.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outPipe
        process.standardError = errPipe
        errPipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let chunk = handle.availableData
            lock.lock()
            errData.append(chunk)
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

// BackgroundCLI: runs a long-lived `sshelf` command (forward start / up) in a TempHome, waits for what it prints
// on stderr, and stops it with a real signal. Its stderr goes to a file, read as it grows: once the process is
// reaped, everything it wrote is there (a pipe's end-of-file can go missing in Foundation's handlers).
import Foundation
import TestSupport
import XCTest

final class BackgroundCLI: @unchecked Sendable {
    let arguments: [String]
    private let process: SpawnedProcess
    private let errorsPath: String

    /// With `fd3`, that text (and a newline) is readable on descriptor 3, as a script hands over a secret; the shell
    /// that sets it up execs sshelf, so signals still reach sshelf itself. `stdin`: text the command reads on its
    /// standard input (for `--password-fd 0`), from a file in the home.
    init(_ home: TempHome, _ arguments: [String], fd3: String? = nil, stdin: String? = nil) throws {
        self.arguments = arguments
        let name = "/background-" + UUID().uuidString.prefix(8)
        errorsPath = home.root + name + ".stderr"
        let input = try stdin.map { text in try home.write(text, to: String(name.dropFirst()) + ".stdin") }
        if let fd3 {
            let file = try home.write(fd3 + "\n", to: "fd3-\(UUID().uuidString.prefix(6))")
            process = try SpawnedProcess(
                TestTool.sh.path, ["-c", "exec \"$0\" \"$@\" 3<'\(file)'", CLI.binary] + arguments,
                environment: home.environment, input: input, errors: errorsPath)
        } else {
            process = try SpawnedProcess(
                CLI.binary, arguments, environment: home.environment, input: input, errors: errorsPath)
        }
    }

    deinit { unlink(errorsPath) }

    var pid: pid_t { process.pid }

    var stderr: String { (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "" }

    /// How often `text` occurs on stderr so far.
    func count(_ text: String) -> Int { stderr.components(separatedBy: text).count - 1 }

    private var command: String { "sshelf " + arguments.joined(separator: " ") }

    /// Waits until `text` has shown up `count` times on stderr; fails here (with the stderr so far) when the
    /// deadline passes or the process ends first.
    func waitFor(
        _ text: String, count wanted: Int = 1, deadline: TimeInterval = Deadline.standard,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let what = "'\(text)' \(wanted)× on the stderr of \(command)"
        try eventually(what, deadline: deadline, file: file, line: line, context: { diagnosis() }) {
            count(text) >= wanted || !process.isRunning
        }
        guard count(text) >= wanted else {
            XCTFail(
                "\(command) exited (\(process.exitStatus ?? -1)) before \(what):\n\(stderr)", file: file, line: line)
            throw WaitTimedOut(what: what)
        }
    }

    /// Sends `signal` and waits for the exit status.
    func stop(_ signal: Int32 = SIGINT, file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        kill(process.pid, signal)
        return try waitExit(file: file, line: line)
    }

    /// Waits for the process to end and returns its exit status; on timeout the failure shows what the process's
    /// threads are doing.
    func waitExit(file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        try eventually(
            "\(command) to exit", file: file, line: line, observe: { process.exitStatus },
            until: { $0 != nil }, context: { diagnosis() }) ?? -1
    }

    private func diagnosis() -> String {
        "stderr:\n" + tail(stderr) + (process.isRunning ? "\n" + ProcessTree.describe(process.pid) : "\n(exited)")
    }
}

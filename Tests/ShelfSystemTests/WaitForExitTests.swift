// WaitForExitTests: ChildProcess.waitForExit(deadline:) — a child of ours is reaped with its status (128 + signal for
// a killed one), a process still running at the deadline answers nil, and a process that is not our child (a
// daemon found by its pid, here a shell's background job) is watched until it is gone. Real processes; the only
// waiting is on a pipe the test closes.
import Foundation
import ShelfSystem
import TestSupport
import XCTest

final class WaitForExitTests: XCTestCase {
    /// `sh -c script` with `stdin` as its input and its output into a pipe the test reads.
    private func spawn(_ script: String, stdin: Int32) throws -> (pid: pid_t, output: Int32) {
        var out: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&out), 0)
        defer { close(out[1]) }
        guard
            case .success(let pid) = ChildProcess.spawn(
                [TestTool.sh.path, "-c", script], stdin: stdin,
                stdout: out[1], stderr: out[1])
        else { throw HarnessError("sh did not start") }
        return (pid, out[0])
    }

    /// A pipe whose read end a process blocks on until the test closes the write end.
    private func gate() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        return (fds[0], fds[1])
    }

    func testAChildIsReapedWithItsExitStatus() throws {
        let gate = gate()
        defer { close(gate.write) }
        let (pid, output) = try spawn("exit 3", stdin: gate.read)
        close(gate.read)
        defer { close(output) }
        XCTAssertEqual(ChildProcess.waitForExit(pid, deadline: Date().addingTimeInterval(Deadline.standard)), 3)
    }

    func testAChildRunningAtTheDeadlineIsNilThenItsSignalIsTheStatus() throws {
        let gate = gate()
        defer { close(gate.write) }
        let (pid, output) = try spawn("read line", stdin: gate.read)
        close(gate.read)
        defer { close(output) }
        XCTAssertNil(ChildProcess.waitForExit(pid, deadline: Date().addingTimeInterval(0.2)), "it waits for input")
        kill(pid, SIGKILL)
        XCTAssertEqual(ChildProcess.waitForExit(pid, deadline: Date().addingTimeInterval(Deadline.standard)), 128 + 9)
    }

    func testAProcessThatIsNotOurChildIsWatchedUntilItIsGone() throws {
        let gate = gate()
        // A background job's stdin is /dev/null unless redirected: it reads the gate through descriptor 3.
        let (shell, output) = try spawn("exec 3<&0; read line <&3 & echo $!", stdin: gate.read)
        defer { close(output) }
        close(gate.read)
        XCTAssertEqual(ChildProcess.waitForExit(shell, deadline: Date().addingTimeInterval(Deadline.standard)), 0)
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(output, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        let job = try XCTUnwrap(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), text)
        XCTAssertNil(ChildProcess.waitForExit(job, deadline: Date().addingTimeInterval(0.2)), "the job still runs")
        close(gate.write)  // its `read` ends: the job exits, and its parent (not us) reaps it
        XCTAssertEqual(ChildProcess.waitForExit(job, deadline: Date().addingTimeInterval(Deadline.standard)), 0)
    }
}

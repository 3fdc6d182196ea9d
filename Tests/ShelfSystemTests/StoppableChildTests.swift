// StoppableChildTests: a child that misses its first SIGTERM (as OpenSSH 9.2's ssh can, between its quit check and
// its poll) still ends, by the signal sent again; one that ignores SIGTERM for good is killed once the patience is
// spent. The children are shells with a trap standing in for that race, which cannot be caused on purpose. A
// watchdog ends (SIGUSR1) a child the code under test failed to end: a regression fails on the status, never hangs.
import Foundation
import ShelfSystem
import TestSupport
import XCTest

final class StoppableChildTests: XCTestCase {
    /// Starts `sh -c script` and returns once it printed "ready" (its traps are set).
    private func start(_ script: String) throws -> StoppableChild {
        var out: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&out), 0)
        defer { close(out[0]) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        let spawned = ChildProcess.spawn(
            [TestTool.sh.path, "-c", script + "; echo ready; while :; do sleep 0.05; done"], stdin: input,
            stdout: out[1], stderr: out[1])
        close(out[1])
        guard case .success(let pid) = spawned else { throw HarnessError("sh did not start") }
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(read(out[0], &buffer, buffer.count), 6, "the shell says ready once its trap is set")
        let watchdog = pid
        DispatchQueue.global().asyncAfter(deadline: .now() + Deadline.scaled(Deadline.standard)) {
            kill(watchdog, SIGUSR1)  // a status of its own: 128 + SIGUSR1 says the code under test did not end it
        }
        return StoppableChild(pid: pid)
    }

    func testAChildThatMissesTheFirstSignalEndsByTheNext() throws {
        // The first TERM only takes the trap away; the second ends the shell.
        let child = try start("trap 'trap - TERM' TERM")
        XCTAssertFalse(child.wasStopped)
        child.stop(SIGTERM, every: .milliseconds(50))
        XCTAssertTrue(child.wasStopped)
        XCTAssertEqual(child.wait(), 128 + SIGTERM, "ended by a SIGTERM sent again, not by the watchdog")
    }

    func testAChildThatIgnoresTheSignalIsKilledOncePatienceIsSpent() throws {
        let child = try start("trap '' TERM")
        child.stop(SIGTERM, every: .milliseconds(50), killAfter: .milliseconds(300))
        XCTAssertEqual(child.wait(), 128 + SIGKILL)
    }
}

// AgentLimitsTests: the agent's rules against a client that misbehaves, on a clock the test moves — connections
// (a cap per process, the idle-longest making way when all places are taken, idle ones closed, one in a request never)
// and the back-off on wrong unlock passphrases (growing per wrong answer, none after a right one, tries taking turns
// so parallel guesses are no faster). No waiting: the clock stands still until the test moves it.
import Foundation
import XCTest

@testable import ShelfServices

final class AgentLimitsTests: XCTestCase {
    /// A monotonic clock that moves only when told; `wait` moves it by the time waited, and records it.
    final class StillClock: @unchecked Sendable {
        private let start = ContinuousClock.now
        private let lock = NSLock()
        private var elapsed: Duration = .zero
        private(set) var waits: [Duration] = []

        func now() -> ContinuousClock.Instant { lock.withLock { start + elapsed } }
        func advance(_ duration: Duration) { lock.withLock { elapsed += duration } }
        func wait(_ duration: Duration) {
            lock.withLock {
                waits.append(duration)
                elapsed += duration
            }
        }
    }

    // MARK: connections

    func testOneProcessCannotTakeEveryPlace() {
        let clock = StillClock()
        var admission = AgentAdmission(perClient: 4, total: 8, idle: .seconds(300), now: clock.now)
        for fd in Int32(10)..<14 {
            XCTAssertEqual(admission.admit(fd, pid: 100), .admit(closing: nil))
            clock.advance(.seconds(1))
        }
        // Its fifth closes its own idle-longest (the first), not anyone else's.
        XCTAssertEqual(admission.admit(14, pid: 100), .admit(closing: 10))
        XCTAssertEqual(admission.admit(20, pid: 200), .admit(closing: nil), "another process still gets in")
        XCTAssertEqual(admission.count, 5)

        // A connection in the middle of a request is never closed; with all of its own busy, the process is refused.
        for fd in Int32(11)...14 { admission.began(fd) }
        guard case .refuse(let reason) = admission.admit(15, pid: 100) else {
            return XCTFail("a fifth connection while four are busy")
        }
        XCTAssertTrue(reason.contains("4 connections open"), reason)
        XCTAssertEqual(admission.admit(21, pid: 300), .admit(closing: nil), "others are not")
    }

    func testWhenEveryPlaceIsTakenTheConnectionIdleLongestMakesWay() {
        let clock = StillClock()
        var admission = AgentAdmission(perClient: 4, total: 4, idle: .seconds(300), now: clock.now)
        for (fd, pid) in [(Int32(10), Int32(1)), (11, 2), (12, 3), (13, 4)] {
            XCTAssertEqual(admission.admit(fd, pid: pid), .admit(closing: nil))
            clock.advance(.seconds(1))
        }
        // 10 is the oldest, but it is answering a request; 11 answered one just now: 12 has waited longest.
        admission.began(10)
        admission.answered(11)
        XCTAssertEqual(admission.admit(14, pid: 5), .admit(closing: 12))
        for fd in [Int32(11), 13, 14] { admission.began(fd) }
        guard case .refuse = admission.admit(15, pid: 6) else { return XCTFail("every place is in a request") }
        admission.removed(13)
        XCTAssertEqual(admission.admit(15, pid: 6), .admit(closing: nil), "a place came free")
    }

    func testIdleConnectionsAreClosedOnceTheirTimeHasPassed() {
        let clock = StillClock()
        var admission = AgentAdmission(perClient: 16, total: 64, idle: .seconds(300), now: clock.now)
        _ = admission.admit(10, pid: 1)
        _ = admission.admit(11, pid: 1)
        _ = admission.admit(12, pid: 2)
        clock.advance(.seconds(200))
        admission.began(11)
        admission.answered(11)  // a request answered: its idle time starts again
        admission.began(12)  // a request under way (a confirmation, say)
        clock.advance(.seconds(99))
        XCTAssertEqual(admission.expired(), [], "a second before its time")
        clock.advance(.seconds(1))
        XCTAssertEqual(admission.expired(), [10], "300 s idle")
        XCTAssertEqual(admission.expired(), [], "closed once")
        clock.advance(.seconds(3600))
        XCTAssertEqual(admission.expired(), [11], "never the one in a request")
        XCTAssertEqual(admission.count, 1)
    }

    // MARK: unlock back-off

    func testEachWrongPassphraseMakesTheNextTryWaitLongerAndARightOneEndsIt() {
        let clock = StillClock()
        let backoff = UnlockBackoff(now: clock.now, wait: clock.wait)
        XCTAssertEqual(backoff.attempt { false }, .init(accepted: false, waited: .zero, failures: 1, next: .seconds(1)))
        XCTAssertEqual(
            backoff.attempt { false }, .init(accepted: false, waited: .seconds(1), failures: 2, next: .seconds(2)))
        XCTAssertEqual(backoff.attempt { false }.next, .seconds(4))
        // Time that has passed counts: a try 3 s into a 4 s back-off waits the last second.
        clock.advance(.seconds(3))
        XCTAssertEqual(backoff.attempt { true }, .init(accepted: true, waited: .seconds(1), failures: 0, next: .zero))
        XCTAssertEqual(backoff.attempt { false }.failures, 1, "a right answer starts the count again")
        XCTAssertEqual(clock.waits, [.seconds(1), .seconds(2), .seconds(1)], "no wait after the right one")

        XCTAssertEqual(UnlockBackoff.delay(afterFailures: 0), .zero)
        XCTAssertEqual(UnlockBackoff.delay(afterFailures: 5), .seconds(16))
        XCTAssertEqual(UnlockBackoff.delay(afterFailures: 9), .seconds(256))
        XCTAssertEqual(UnlockBackoff.delay(afterFailures: 10), .seconds(300), "at most 5 min")
        XCTAssertEqual(UnlockBackoff.delay(afterFailures: 64), .seconds(300))
    }

    /// Guesses sent over many connections at once take turns: each waits out the back-off of the ones before it.
    func testParallelGuessesAreNoFasterThanOneAfterAnother() {
        let clock = StillClock()
        let backoff = UnlockBackoff(now: clock.now, wait: clock.wait)
        _ = backoff.attempt { false }
        final class Counts: @unchecked Sendable {
            let lock = NSLock()
            var values: [Int] = []
        }
        let counts = Counts()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let outcome = backoff.attempt { false }
            counts.lock.withLock { counts.values.append(outcome.failures) }
        }
        XCTAssertEqual(counts.values.sorted(), Array(2...9), "one at a time, each counted")
        XCTAssertEqual(clock.waits, (1...8).map { UnlockBackoff.delay(afterFailures: $0) }, "every try waited its turn")
    }
}

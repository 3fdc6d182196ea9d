// LockTests: the POSIX lock and condition that stand in for NSLock and NSCondition keep their promises: a held
// lock is not taken (and a timed take gives up), a free one is; a waiting thread wakes on a signal or its deadline;
// a broadcast wakes every waiting thread.
import Foundation
import XCTest
@testable import ShelfCore

final class LockTests: XCTestCase {
    func testATimedTakeGivesUpWhileAnotherThreadHoldsTheLock() {
        let lock = Lock()
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            lock.lock()
            held.signal()
            release.wait()
            lock.unlock()
            done.signal()
        }
        XCTAssertEqual(held.wait(timeout: .now() + 30), .success)
        let start = ContinuousClock.now
        XCTAssertFalse(lock.lock(within: .milliseconds(50)), "held by the other thread")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(45), "it waited its time first")
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(lock.lock(within: .milliseconds(50)), "free now")
        lock.unlock()
        XCTAssertEqual(lock.withLock { 7 }, 7)
    }

    func testAConditionWakesOnASignalOrItsDeadline() {
        let condition = Condition()
        condition.lock()
        XCTAssertFalse(condition.wait(until: Date().addingTimeInterval(0.05)), "nobody signals: the deadline passes")
        condition.unlock()

        let ready = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var signalled = false
        Thread.detachNewThread {
            ready.wait()
            condition.lock()
            signalled = true
            condition.signal()
            condition.unlock()
        }
        condition.lock()
        ready.signal()
        let deadline = Date().addingTimeInterval(60)
        while !signalled && Date() < deadline { condition.wait(until: deadline) }
        XCTAssertTrue(signalled)
        condition.unlock()
    }

    func testABroadcastWakesEveryWaiter() {
        final class Counts: @unchecked Sendable {
            var waiting = 0
            var go = false
            var woken = 0
        }
        let condition = Condition()
        let counts = Counts()
        for _ in 0..<4 {
            Thread.detachNewThread {
                condition.lock()
                counts.waiting += 1
                condition.broadcast()
                while !counts.go { condition.wait() }
                counts.woken += 1
                condition.unlock()
            }
        }
        let deadline = Date().addingTimeInterval(60)
        condition.lock()
        while counts.waiting < 4 && Date() < deadline { condition.wait(until: deadline) }
        // One broadcast, no signal: all four must wake. The woken say nothing: the wait looks again every 50 ms.
        counts.go = true
        condition.broadcast()
        while counts.woken < 4 && Date() < deadline { condition.wait(until: Date().addingTimeInterval(0.05)) }
        XCTAssertEqual(counts.woken, 4)
        condition.unlock()
    }
}

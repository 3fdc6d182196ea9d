// WarmIdleTests: a warm keeper's idle timer on a clock the test moves — it expires exactly when the idle time has
// passed since the last request, a request starts it again, and the keeper never sleeps past its deadline or its
// next keepalive. No waiting: the clock stands still until the test advances it.
import Foundation
import XCTest

@testable import ShelfServices

final class WarmIdleTests: XCTestCase {
    /// A monotonic clock that moves only when told.
    final class StillClock: @unchecked Sendable {
        private let start = ContinuousClock.now
        var elapsed: Duration = .zero
        func now() -> ContinuousClock.Instant { start + elapsed }
    }

    func testTheKeeperIsIdleOnlyOnceItsTimeHasPassedSinceTheLastRequest() {
        let clock = StillClock()
        var idle = WarmIdle(idle: .seconds(600), now: clock.now)
        XCTAssertFalse(idle.expired)
        XCTAssertEqual(idle.remaining, .seconds(600))

        clock.elapsed = .seconds(599)
        XCTAssertFalse(idle.expired, "a second before its time")
        XCTAssertEqual(idle.remaining, .seconds(1))

        // A request starts the idle time again.
        idle.used()
        clock.elapsed = .seconds(599 + 599)
        XCTAssertFalse(idle.expired, "599 s after the last request")
        clock.elapsed = .seconds(599 + 600)
        XCTAssertTrue(idle.expired, "600 s after the last request")
        clock.elapsed = .seconds(5000)
        XCTAssertEqual(idle.remaining, .zero, "never negative")
    }

    func testTheKeeperSleepsNoLongerThanItsDeadlineAndItsNextKeepalive() {
        let clock = StillClock()
        let idle = WarmIdle(idle: .seconds(2), now: clock.now)
        XCTAssertEqual(idle.wait(keepalive: .seconds(30)), .seconds(2), "the idle deadline is nearer")
        clock.elapsed = .milliseconds(1500)
        XCTAssertEqual(idle.wait(keepalive: .seconds(30)), .milliseconds(500))
        XCTAssertEqual(idle.wait(keepalive: .milliseconds(200)), .milliseconds(200), "a keepalive is due first")
        XCTAssertEqual(
            WarmIdle(idle: .seconds(600), now: clock.now).wait(keepalive: .seconds(30)), .seconds(5),
            "and it looks at its socket path at least every 5 s")
        clock.elapsed = .seconds(3)
        XCTAssertEqual(idle.wait(keepalive: .seconds(30)), .milliseconds(1), "expired: poll returns at once")
        XCTAssertEqual(WarmIdle.milliseconds(.milliseconds(500)), 500)
        XCTAssertEqual(WarmIdle.milliseconds(.nanoseconds(1)), 1, "rounded up, never a busy zero")
    }
}

// SyncScheduleTests: the background sync's rules, shared by the user service and the TUI, on a clock the test
// moves (no waiting): a local change debounced and a burst held to 10 s, a run asked for at once kept at once, the
// git poll (and SSHELF_SYNC_POLL_SECONDS), the folder safety net, the doubling backoff a burst of edits does not cut
// short, a remote change during a run, and local changes left by a run.
import Foundation
import ShelfCore
@testable import ShelfSync
import XCTest

final class SyncScheduleTests: XCTestCase {
    /// A clock the test moves by hand.
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_800_000_000)
        func advance(_ seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }
    }

    func schedule(_ clock: Clock, _ environment: [String: String] = [:]) -> SyncSchedule {
        SyncSchedule(environment: environment) { clock.now }
    }

    func seconds(_ schedule: SyncSchedule, _ clock: Clock) throws -> TimeInterval {
        try XCTUnwrap(schedule.due, "a run is due").timeIntervalSince(clock.now)
    }

    func testNothingIsDueUntilAsked() {
        let clock = Clock()
        let schedule = schedule(clock)
        XCTAssertNil(schedule.due)
        XCTAssertFalse(schedule.isDue)
    }

    func testALocalChangeIsDebouncedAndABurstHeldToTenSeconds() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        let first = clock.now
        schedule.request(.localChange)
        XCTAssertEqual(try seconds(schedule, clock), 2)
        XCTAssertEqual(schedule.reason, "a local change")
        XCTAssertFalse(schedule.isDue)
        // An edit every 1.5 s keeps moving the run, up to 10 s after the first.
        for _ in 0..<6 {
            clock.advance(1.5)
            schedule.request(.localChange)
        }
        XCTAssertEqual(schedule.due, first.addingTimeInterval(10))
        XCTAssertFalse(schedule.isDue)
        clock.advance(1)
        XCTAssertTrue(schedule.isDue)
        let begun = schedule.begin()
        XCTAssertEqual(begun.asked, first.addingTimeInterval(10))
        XCTAssertEqual(begun.why, "a local change")
        XCTAssertNil(schedule.due)
        XCTAssertTrue(schedule.running)
    }

    func testARunAskedForAtOnceStaysAtOnce() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        schedule.request(.now("sync turned on"))
        schedule.request(.localChange)
        XCTAssertTrue(schedule.isDue)
        XCTAssertEqual(schedule.reason, "sync turned on")
        XCTAssertEqual(try seconds(schedule, clock), 0)
    }

    func testAGitRemoteIsPolledAndAFolderGetsASafetyNet() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        schedule.request(.now("start"))
        _ = schedule.begin()
        schedule.finished(.synced(changedDuringRun: false), transport: .git)
        XCTAssertEqual(try seconds(schedule, clock), 60)
        XCTAssertEqual(schedule.reason, "poll the git remote")
        XCTAssertFalse(schedule.running)

        clock.advance(60)
        _ = schedule.begin()
        schedule.finished(.synced(changedDuringRun: false), transport: .folder)
        XCTAssertEqual(try seconds(schedule, clock), 300)
        XCTAssertEqual(schedule.reason, "safety net for a folder that sends no events")

        var polled = self.schedule(clock, ["SSHELF_SYNC_POLL_SECONDS": "7"])
        _ = polled.begin()
        polled.finished(.synced(changedDuringRun: false), transport: .git)
        XCTAssertEqual(try seconds(polled, clock), 7)
        for bad in ["0", "soon", "-5", ""] {
            XCTAssertEqual(SyncSchedule.gitPoll(["SSHELF_SYNC_POLL_SECONDS": bad]), 60, bad)
        }
    }

    func testARunThatFellBackIsRetriedWithADoublingBackoffThatEditsDoNotCutShort() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        var waits: [TimeInterval] = []
        for _ in 0..<9 {
            _ = schedule.begin()
            schedule.finished(.fellBack, transport: .git)
            waits.append(try seconds(schedule, clock))
            // A burst of edits while backing off goes with the retry.
            schedule.request(.localChange)
            XCTAssertEqual(try seconds(schedule, clock), waits.last)
            clock.advance(try seconds(schedule, clock))
        }
        XCTAssertEqual(waits, [30, 60, 120, 240, 480, 960, 1800, 1800, 1800])
        XCTAssertEqual(schedule.failures, 9)
        XCTAssertEqual(schedule.reason, "retry after a failure (backoff 1800 s)")

        // A run asked for at once (SIGUSR1, `vault unlock`, `S`) does not wait for the backoff.
        schedule.request(.now("asked"))
        XCTAssertTrue(schedule.isDue)
        _ = schedule.begin()
        schedule.finished(.synced(changedDuringRun: false), transport: .git)
        XCTAssertEqual(schedule.failures, 0)
        XCTAssertEqual(try seconds(schedule, clock), 60)
        schedule.request(.localChange)
        XCTAssertEqual(try seconds(schedule, clock), 2, "after a good run, an edit is debounced again")
    }

    func testAFolderRemoteChangeDuringARunAsksForOneMoreRun() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        schedule.remoteChanged()
        XCTAssertTrue(schedule.isDue)
        XCTAssertEqual(schedule.reason, "the folder remote changed")
        _ = schedule.begin()
        schedule.remoteChanged()
        XCTAssertNil(schedule.due, "not during the run")
        schedule.finished(.synced(changedDuringRun: false), transport: .folder)
        XCTAssertTrue(schedule.isDue)
        XCTAssertEqual(schedule.reason, "the folder remote changed during the last run")
        // After a quiet run it settles on the safety net.
        _ = schedule.begin()
        schedule.finished(.synced(changedDuringRun: false), transport: .folder)
        XCTAssertEqual(try seconds(schedule, clock), 300)

        // A run that fell back keeps its backoff: the change goes with the retry.
        _ = schedule.begin()
        schedule.remoteChanged()
        schedule.finished(.fellBack, transport: .folder)
        XCTAssertEqual(try seconds(schedule, clock), 30)
    }

    func testLocalChangesLeftByARunAskForAnotherAfterTheDebounce() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        _ = schedule.begin()
        schedule.finished(.synced(changedDuringRun: true), transport: .git)
        XCTAssertEqual(try seconds(schedule, clock), 2)
        XCTAssertEqual(schedule.reason, "local changes made during the last run")
    }

    func testARunAskedForDuringARunIsKept() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        _ = schedule.begin()
        schedule.request(.now("asked by another sshelf"))
        clock.advance(5)
        schedule.finished(.synced(changedDuringRun: false), transport: .git)
        XCTAssertTrue(schedule.isDue)
        XCTAssertEqual(schedule.reason, "asked by another sshelf")
    }

    func testARunTheUserServiceTookKeepsThePoll() throws {
        let clock = Clock()
        var schedule = schedule(clock)
        _ = schedule.begin()
        schedule.finished(.fellBack, transport: .git)
        clock.advance(30)
        _ = schedule.begin()
        schedule.finished(.handedOver, transport: .git)
        XCTAssertEqual(schedule.failures, 0)
        XCTAssertEqual(try seconds(schedule, clock), 60)
    }

    func testASkippedRunLeavesNothingDue() {
        let clock = Clock()
        var schedule = schedule(clock)
        schedule.request(.now("start"))
        _ = schedule.begin()
        schedule.remoteChanged()
        schedule.skipped()
        XCTAssertFalse(schedule.running)
        XCTAssertNil(schedule.due)
    }
}

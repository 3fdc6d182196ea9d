// The status line's sync part follows the vault: a lock change makes the last report stale at once ("syncing"),
// until a run that started after the change has ended — a run already under way may have read the vault before it.
// And a note never repeats the fallback reason (a revoked device used to read "revoked" twice and lose the vault part).
import Foundation
@testable import ShelfTUIApp
@testable import ShelfUI
import XCTest

final class SyncStatusFreshnessTests: XCTestCase {
    let paused = "vault locked (credential track paused while config keeps syncing)"

    func lockedReport() -> SyncIndicator { .localFallback(reason: paused) }

    func indicator(_ freshness: VaultFreshness, running: Bool = false, report: SyncIndicator?) -> SyncIndicator {
        StatusSource.syncIndicator(running: running, remoteMissing: nil, vaultChanged: freshness.stale, last: report)
    }

    func testALockChangeMakesTheVaultReasonStaleUntilARunStartedAfterItEnds() {
        var freshness = VaultFreshness()
        let locked = lockedReport()
        XCTAssertEqual(indicator(freshness, report: locked), .localFallback(reason: paused))

        // A run was already under way when the vault was unlocked: its end does not make the old reason true again.
        freshness.runStarted()
        freshness.vaultChanged()
        XCTAssertEqual(indicator(freshness, report: locked), .syncing, "the line changes at once")
        freshness.runEnded()
        XCTAssertEqual(
            indicator(freshness, report: locked), .syncing, "that run may have read the vault before the change")

        // The run asked for by the change: its report is what the line shows once it ends.
        freshness.runStarted()
        XCTAssertEqual(indicator(freshness, running: true, report: locked), .syncing)
        freshness.runEnded()
        let synced = SyncIndicator.synced(at: Date(timeIntervalSince1970: 1_800_000_060))
        XCTAssertEqual(indicator(freshness, report: synced), synced)
        XCTAssertEqual(
            indicator(freshness, report: locked), .localFallback(reason: paused), "no change since: the report stands")
    }

    func testAMissingRemoteAndNoReportYet() {
        XCTAssertEqual(
            StatusSource.syncIndicator(
                running: false, remoteMissing: "sync folder /x not found", vaultChanged: false,
                last: lockedReport()),
            .localFallback(reason: "sync folder /x not found"))
        XCTAssertEqual(
            StatusSource.syncIndicator(running: false, remoteMissing: nil, vaultChanged: false, last: nil), .syncing)
    }

    func testANoteNeverRepeatsTheFallbackReason() {
        let revoked = SyncIndicator.localFallback(reason: "revoked by laptop on 2026-12-01")
        XCTAssertEqual(SyncFileNotes.notes(0, membership: "revoked", notice: nil, beside: revoked), [])
        XCTAssertEqual(
            SyncFileNotes.notes(0, membership: "revoked", notice: nil, beside: .off),
            [SyncNote("this device was revoked from the sync group", .error)])
        let waiting = SyncIndicator.localFallback(reason: "waiting to be enrolled (invited by laptop)")
        XCTAssertEqual(
            SyncFileNotes.notes(1, membership: "waiting", notice: nil, beside: waiting),
            [SyncNote("1 merge conflict: C lists them", .warning)])
    }

    /// The revoked device's whole line at 100 columns: the reason once, and the vault's state still there.
    func testARevokedDeviceKeepsTheVaultPartOnTheLine() {
        var state = UIState(rows: 24, columns: 100)
        let reason = "revoked by a-rather-long-laptop-name on 2026-12-01T10:00:00Z"
        state.status = StatusModel(
            sync: .localFallback(reason: reason), vault: .unlocked,
            syncNotes: SyncFileNotes.notes(
                2, membership: "revoked", notice: nil,
                beside: .localFallback(reason: reason)))
        var canvas = Canvas(rows: 1, columns: 100)
        StatusLine.draw(state, in: Rect(row: 0, column: 0, height: 1, width: 100), on: &canvas)
        let line = canvas.line(0)
        XCTAssertEqual(line.components(separatedBy: "revoked").count - 1, 1, line)
        XCTAssertTrue(line.contains("vault unlocked"), line)
    }
}

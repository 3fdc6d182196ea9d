// ServiceSyncScheduleTests: when the user service's background sync runs next, and why (ServiceSync) — a local change
// debounced, a run asked for at once kept at once, and a run that fell back retried with a doubling backoff that a
// burst of local edits does not cut short. The failing remote is a folder that cannot exist (no network, no sshd).
import Foundation
import ShelfCore
import ShelfOperations
@testable import ShelfServices
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class ServiceSyncScheduleTests: XCTestCase {
    func service(_ home: TempHome) -> ServiceSync {
        let workspace = Workspace(environment: home.environment) { _ in }
        return ServiceSync(workspace: workspace, log: { _ in }, changed: {}, woke: {})
    }

    func home() -> TempHome {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        return home
    }

    func testALocalChangeIsDebounced() throws {
        let sync = service(home())
        let before = Date()
        sync.request(.localChange)
        let after = Date()
        let snapshot = sync.snapshot()
        let next = try XCTUnwrap(snapshot.nextAttempt)
        XCTAssertGreaterThanOrEqual(next, before.addingTimeInterval(SyncSchedule.debounce))
        XCTAssertLessThanOrEqual(next, after.addingTimeInterval(SyncSchedule.debounce))
        XCTAssertEqual(snapshot.nextReason, "a local change")
        XCTAssertEqual(snapshot.state, "off", "no sync set up, nothing run yet")
    }

    func testARunAskedForAtOnceStaysAtOnce() throws {
        let sync = service(home())
        sync.request(.now("sync turned on"))
        sync.request(.localChange)
        let snapshot = sync.snapshot()
        XCTAssertEqual(snapshot.nextReason, "sync turned on")
        XCTAssertLessThanOrEqual(try XCTUnwrap(snapshot.nextAttempt), Date())
    }

    func testARunThatFellBackIsRetriedWithADoublingBackoff() throws {
        let home = home()
        let store = try Store(path: DataLocations.resolve(environment: home.environment).store)
        try store.write {
            try SyncSettings(transport: .folder, location: "/dev/null/no-such-remote").save(to: $0)
        }
        let sync = service(home)
        defer { sync.stop() }
        sync.start()
        try eventually("the first run", observe: sync.snapshot) { $0.runs == 1 && !sync.isRunning }
        var snapshot = sync.snapshot()
        XCTAssertEqual(snapshot.failures, 1, "\(snapshot)")
        XCTAssertEqual(snapshot.nextReason, "retry after a failure (backoff 30 s)")
        XCTAssertEqual(snapshot.transport, "folder")

        sync.request(.localChange)
        XCTAssertEqual(
            sync.snapshot().nextReason, "retry after a failure (backoff 30 s)",
            "an edit while backing off goes with the retry")

        sync.request(.now("asked"))
        try eventually("the second run", observe: sync.snapshot) { $0.runs == 2 && !sync.isRunning }
        snapshot = sync.snapshot()
        XCTAssertEqual(snapshot.failures, 2, "\(snapshot)")
        XCTAssertEqual(snapshot.nextReason, "retry after a failure (backoff 60 s)")
    }
}

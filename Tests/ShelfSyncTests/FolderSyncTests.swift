// Folder and git sync between enrolled devices with real stores and vaults: edits on different devices in different
// orders converge; concurrent edits of different fields of one host both survive; a concurrent edit of the same
// field keeps the later one and records a conflict; deletion is final and reports the edit it discarded; unknown
// fields survive.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class FolderSyncTests: XCTestCase {
    func testThreeDevicesConvergeWhateverTheOrder() throws {
        let remote = try makeFolder()
        try threeDevices { device in try device.enable(folder: remote) }
    }

    /// The same edits through a bare git repository (file URL): each device commits only its own files.
    func testThreeDevicesConvergeThroughGit() throws {
        let repository = try makeBareRepository("git3")
        try threeDevices { device in try device.enable(git: repository.url) }
    }

    func threeDevices(_ enable: (Device) throws -> Void) throws {
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try enable(device) }
        let group = HostGroup(name: "prod")
        try a.store.write { try $0.save(group) }
        let web = try a.add("web", group: group.id)
        try formGroup([a, b, c])
        let db = try b.add("db")
        _ = try c.add("cache")
        c.sync(); a.sync(); b.sync(); c.sync()
        XCTAssertNotNil(try c.store.host(id: web.id), "enrolled devices receive what was there before they joined")

        // Different edits on different devices: rename, move, edit, delete, new group.
        try b.edit(web.id) { $0.name = "web-renamed" }
        try c.edit(db.id) {
            $0.groupID = group.id
            $0.port = 2222
        }
        let cacheOnA = try XCTUnwrap(try a.host("cache"))
        try a.store.write { try $0.deleteHost(cacheOnA.id) }
        try b.store.write { try $0.save(HostGroup(name: "staging")) }

        b.sync(); a.sync(); c.sync(); b.sync(); a.sync()
        let states = try [a.state(), b.state(), c.state()]
        XCTAssertEqual(states[0], states[1])
        XCTAssertEqual(states[1], states[2])
        XCTAssertEqual(try a.store.hosts().map(\.name).sorted(), ["db", "web-renamed"])
        XCTAssertEqual(try c.store.host(id: db.id)?.port, 2222)
        XCTAssertEqual(Set(try b.store.groups().map(\.name)), ["prod", "staging"])
        XCTAssertNil(try c.host("cache"))
    }

    /// The bug reported as a new user: A sets the user, B sets the port; after sync both changes are everywhere.
    func testConcurrentEditsOfDifferentFieldsBothSurvive() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        let host = try a.add("web", hostname: "web.example")
        try formGroup([a, b])
        try a.edit(host.id) { $0.user = "alice" }
        try b.edit(host.id) { $0.port = 2200 }
        a.sync(); b.sync(); a.sync()
        for device in [a, b] {
            let merged = try XCTUnwrap(try device.store.host(id: host.id))
            XCTAssertEqual(merged.user, "alice", device.name)
            XCTAssertEqual(merged.port, 2200, device.name)
        }
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertEqual(try a.store.conflicts().count, 0, "different fields are not a conflict")
        XCTAssertEqual(try b.store.conflicts().count, 0)
    }

    func testSameFieldConflictKeepsTheLaterEditAndIsRecorded() throws {
        let (remote, a, b, host) = try concurrentUserEdits()
        let fromA = a.sync()
        b.sync()
        a.sync()
        for device in [a, b] {
            XCTAssertEqual(try device.store.host(id: host.id)?.user, "bob", "the later stamp wins on \(device.name)")
        }
        XCTAssertEqual(fromA.conflicts, 0)
        for device in [a, b] {
            let conflicts = try device.store.conflicts()
            XCTAssertEqual(conflicts.count, 1, "\(device.name): \(conflicts)")
            let conflict = try XCTUnwrap(conflicts.first)
            XCTAssertEqual(conflict.field, "user")
            XCTAssertEqual(conflict.kept, "\"bob\"")
            XCTAssertEqual(conflict.keptBy, b.id)
            XCTAssertEqual(conflict.lost, "\"alice\"")
            XCTAssertEqual(conflict.lostBy, a.id)
            XCTAssertEqual(conflict.name, "web")
            XCTAssertFalse(conflict.seen)
        }
        XCTAssertEqual(a.sync().conflicts, 1, "the report counts unseen conflicts for the status line")
        // The remote gone: the run falls back, and its status still counts the unseen conflict and knows this
        // device's place in the group.
        try FileManager.default.moveItem(atPath: remote, toPath: remote + ".away")
        let away = a.sync(expect: .localFallback)
        XCTAssertEqual(away.conflicts, 1)
        XCTAssertEqual(away.membership, "member")
        try FileManager.default.moveItem(atPath: remote + ".away", toPath: remote)
        XCTAssertEqual(try SyncRunner.markConflictsSeen(store: a.store, locations: a.locations), 1)
        XCTAssertEqual(
            SyncRunner.lastReport(a.locations)?.conflicts, 0, "the saved status drops them at once, not at the next run"
        )
        XCTAssertEqual(a.sync().conflicts, 0)

        // A later edit that saw the other one is no conflict.
        b.store.now = { Date(timeIntervalSince1970: 2_000_000_200) }
        try b.edit(host.id) { $0.user = "carol" }
        b.sync(); a.sync()
        XCTAssertEqual(try a.store.host(id: host.id)?.user, "carol")
        XCTAssertEqual(try a.store.conflicts().count, 1)
    }

    /// A device enrolled after two others' edits conflicted takes in both values in one run: it lists that conflict
    /// (already seen: neither value was ever on its screen) but does not count it for its status line; its own
    /// edits still conflict as before.
    func testADeviceCatchingUpRecordsOthersOldConflictsAsSeen() throws {
        let (remote, a, b, host) = try concurrentUserEdits()
        let c = try Device("c")
        try c.enable(folder: remote)
        a.sync(); b.sync(); a.sync()
        XCTAssertEqual(try a.store.unseenConflictCount(), 1, "the device whose edit lost counts it")

        let code = try a.invite()
        a.sync()
        try c.join(code)
        a.sync()
        let caughtUp = c.sync()
        XCTAssertEqual(try c.store.host(id: host.id)?.user, "bob")
        let listed = try c.store.conflicts()
        XCTAssertFalse(listed.isEmpty, "the catch-up met both edits")
        XCTAssertTrue(listed.allSatisfy(\.seen), "\(listed)")
        XCTAssertTrue(
            listed.contains { $0.field == "user" && $0.kept == "\"bob\"" && $0.lost == "\"alice\"" }, "\(listed)")
        XCTAssertEqual(caughtUp.conflicts, 0)
        XCTAssertEqual(c.sync().conflicts, 0)

        // Its own edit, concurrent with another's, is a conflict it counts.
        c.store.now = { Date(timeIntervalSince1970: 2_000_000_300) }
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_400) }
        try c.edit(host.id) { $0.user = "carol" }
        try a.edit(host.id) { $0.user = "dave" }
        a.sync()
        XCTAssertEqual(c.sync().conflicts, 1)
        XCTAssertEqual(try c.store.host(id: host.id)?.user, "dave")
    }

    /// Deletion is final: an edit made without seeing it is discarded everywhere, and recorded as a conflict where
    /// it is discarded, so nothing vanishes silently. A deleted record cannot be saved again locally either.
    func testDeletionIsFinalAndTheDiscardedEditIsReported() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        let host = try a.add("web", hostname: "web.example")
        try formGroup([a, b])
        // B's edit reaches the remote first; A deletes without having seen it.
        try b.edit(host.id) { $0.notes = "edited on B, never seen by A" }
        b.sync()
        try a.store.write { try $0.deleteHost(host.id) }
        a.sync(); b.sync()
        XCTAssertNil(try a.store.host(id: host.id))
        XCTAssertNil(try b.store.host(id: host.id), "the later edit does not resurrect the host")
        XCTAssertEqual(try a.state(), try b.state())
        for device in [a, b] {
            let conflict = try XCTUnwrap(try device.store.conflicts().first { $0.field == "notes" }, device.name)
            XCTAssertEqual(conflict.why, "deleted")
            XCTAssertTrue(conflict.lost.contains("never seen by A"))
            XCTAssertEqual(conflict.lostBy, b.id)
            XCTAssertEqual(conflict.keptBy, a.id)
        }
        // The other order: the deletion arrives before the edit leaves B, and B reports what it discarded.
        let second = try a.add("second", hostname: "second.example")
        a.sync(); b.sync()
        try a.store.write { try $0.deleteHost(second.id) }
        try b.edit(second.id) { $0.user = "discarded" }
        a.sync(); b.sync(); a.sync()
        XCTAssertNil(try b.store.host(id: second.id))
        XCTAssertTrue(
            try b.store.conflicts().contains { $0.field == "user" && $0.why == "deleted" && $0.lost == "\"discarded\"" }
        )
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertThrowsError(try b.store.write { try $0.save(host) }) {
            XCTAssertTrue("\($0)".contains("was deleted"), "\($0)")
        }
    }

    func testUnknownFieldsFromANewerDeviceAreKept() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        var host = ShelfCore.Host(name: "future", hostname: "f.example")
        host.extra = ["colour": .string("teal")]
        try a.store.write { try $0.save(host) }
        try formGroup([a, b])
        let received = try XCTUnwrap(try b.host("future"))
        XCTAssertEqual(received.extra["colour"], .string("teal"))
        try b.edit(host.id) { $0.port = 2200 }
        b.sync(); a.sync()
        XCTAssertEqual(
            try a.store.host(id: host.id)?.extra["colour"], .string("teal"), "an edit elsewhere keeps the unknown field"
        )
        XCTAssertEqual(try a.store.host(id: host.id)?.port, 2200)
    }
}

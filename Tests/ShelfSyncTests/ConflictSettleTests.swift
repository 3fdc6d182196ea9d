// Settling a merge conflict: taking the other value, or the kept one, is an edit made on the settling device that
// every device takes on its next sync, with no new conflict anywhere; a set clash settles the one value; a deleted
// record's conflict cannot take a side; a conflict settles once.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class ConflictSettleTests: XCTestCase {
    /// Devices a and b, a host `web` edited on both without either seeing the other (b's "bob" later, kept), synced.
    func conflicted() throws -> (a: Device, b: Device, host: ShelfCore.Host) {
        let (_, a, b, host) = try concurrentUserEdits()
        a.sync(); b.sync(); a.sync()
        for device in [a, b] { XCTAssertEqual(try device.store.host(id: host.id)?.user, "bob") }
        return (a, b, host)
    }

    func testTakingTheOtherValueSyncsToEveryDevice() throws {
        let (a, b, host) = try conflicted()
        let conflict = try XCTUnwrap(try a.store.conflicts().first)
        XCTAssertEqual(conflict.lost, #""alice""#)
        try a.store.write { try $0.settleConflict(conflict.id, take: .other) }
        XCTAssertEqual(try a.store.host(id: host.id)?.user, "alice", "taken here at once")
        XCTAssertEqual(try a.store.conflict(conflict.id)?.settled, "other")
        XCTAssertEqual(try a.store.unseenConflictCount(), 0)
        a.sync(); b.sync()
        XCTAssertEqual(try b.store.host(id: host.id)?.user, "alice", "and synced like any edit")
        XCTAssertEqual(try b.store.conflicts().count, 1, "without a new conflict: the choice was made knowing both")
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertThrowsError(
            try a.store.write { try $0.settleConflict(conflict.id, take: .kept) }, "a conflict settles once")
    }

    func testKeepingTheKeptValueStampsItAfterBoth() throws {
        let (a, b, host) = try conflicted()
        let conflict = try XCTUnwrap(try a.store.conflicts().first)
        let before = try XCTUnwrap(try a.store.clock(.host, host.id)?.group("user"))
        try a.store.write { try $0.settleConflict(conflict.id, take: .kept) }
        let after = try XCTUnwrap(try a.store.clock(.host, host.id)?.group("user"))
        XCTAssertEqual(try a.store.host(id: host.id)?.user, "bob")
        XCTAssertTrue(after.outranks(before) && after.succeeds(before), "stamped anew, knowing the kept value")
        XCTAssertEqual(after.stamp.device, a.id)
        a.sync(); b.sync()
        XCTAssertEqual(try b.store.clock(.host, host.id)?.group("user").stamp, after.stamp, "the choice travels")
        XCTAssertEqual(try b.store.host(id: host.id)?.user, "bob")
        XCTAssertEqual(try b.store.conflicts().count, 1)
        XCTAssertEqual(try a.state(), try b.state())
    }

    func testASetClashSettlesItsOneValue() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        let host = try a.add("db", hostname: "db.example")
        try a.edit(host.id) { $0.tags = ["pg", "old"] }
        try formGroup([a, b])
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_000) }
        b.store.now = { Date(timeIntervalSince1970: 2_000_000_100) }
        try a.edit(host.id) { $0.tags = ["pg", "old", "new"] }
        try b.edit(host.id) { $0.tags = ["pg"] }
        try b.edit(host.id) { $0.tags = ["pg", "old"] }
        try a.edit(host.id) { $0.tags = ["pg", "new"] }
        a.sync(); b.sync(); a.sync()
        // a removed "old" at its time, b removed and re-added it later: b's add wins; "new" survives.
        XCTAssertEqual(Set(try XCTUnwrap(try a.store.host(id: host.id)).tags), ["pg", "new", "old"])
        let conflict = try XCTUnwrap(try a.store.conflicts().first { $0.field == "tags" })
        XCTAssertEqual(conflict.kept, #"{"added":"old"}"#)
        XCTAssertEqual(conflict.lost, #"{"removed":"old"}"#)
        try a.store.write { try $0.settleConflict(conflict.id, take: .other) }
        a.sync(); b.sync()
        for device in [a, b] {
            XCTAssertEqual(Set(try XCTUnwrap(try device.store.host(id: host.id)).tags), ["pg", "new"], device.name)
        }
        XCTAssertEqual(try a.state(), try b.state())
    }

    func testADeletedRecordsConflictTakesNoSide() throws {
        let (a, b, host) = try conflicted()
        try b.store.write { try $0.deleteHost(host.id) }
        b.sync(); a.sync()
        let conflict = try XCTUnwrap(try a.store.conflicts().first)
        XCTAssertThrowsError(try a.store.write { try $0.settleConflict(conflict.id, take: .other) }) { error in
            XCTAssertTrue("\(error)".contains("deletion is final"), "\(error)")
        }
        XCTAssertThrowsError(try a.store.write { try $0.settleConflict(999, take: .other) }) { error in
            XCTAssertTrue("\(error)".contains("no merge conflict number 999"), "\(error)")
        }
    }
}

// ConflictItemsTests: the merge conflicts of a local store as the TUI's list and `sync conflicts` word them
// (ConflictItems) — who kept which side and when, why, new or seen, settled or not, and which can be settled — and a
// conflict settled on this store listed as settled with the side it took. No remote: the conflicts are recorded
// into the store as a sync run records them.
import Foundation
import ShelfCore
import ShelfServices
@testable import ShelfStore
import TestSupport
import XCTest

final class ConflictItemsTests: XCTestCase {
    let otherDevice = "0f1e2d3c-4b5a-4968-8776-655443322110"
    /// 2026-01-02 03:04:05 UTC, in milliseconds (a stamp's wall time).
    let keptAt: Int64 = 1_767_323_045_000

    func scratch() throws -> (TempHome, Store, ShelfCore.Host) {
        let home = TempHome()
        let store = try Store(path: DataLocations.resolve(environment: home.environment).store)
        let host = ShelfCore.Host(name: "web", hostname: "10.0.0.1", user: "alice")
        try store.write { try $0.save(host) }
        return (home, store, host)
    }

    func record(_ store: Store, _ host: ShelfCore.Host, why: FieldConflict.Why = .concurrent, lost: String) throws {
        let me = try store.deviceID
        try store.write { store in
            try store.recordConflict(
                FieldConflict(
                    group: "user", kept: "\"alice\"", keptBy: me, lost: lost, lostBy: otherDevice, why: why,
                    keptAt: keptAt, lostAt: keptAt + 60_000),
                kind: .host, id: host.id, name: host.name, at: Date(timeIntervalSince1970: 1_767_323_100))
        }
    }

    func testAConflictIsWordedWithItsSidesWritersAndWhy() throws {
        let (_, store, host) = try scratch()
        try record(store, host, lost: "\"bob\"")
        let items = try ConflictItems.load(store)
        XCTAssertEqual(items.count, 1)
        let item = try XCTUnwrap(items.first)
        XCTAssertEqual(item.record, "host web")
        XCTAssertEqual(item.field, "user")
        XCTAssertTrue(item.kept.contains("alice") && item.other.contains("bob"), "\(item)")
        XCTAssertEqual(item.keptBy, "this device, 2026-01-02 03:04")
        XCTAssertEqual(item.otherBy, "device 0f1e2d3c, 2026-01-02 03:05", "a device not in the roster by its id")
        XCTAssertEqual(item.why, ConflictWords.why("concurrent"))
        XCTAssertTrue(item.isNew)
        XCTAssertNil(item.settled)
        XCTAssertTrue(item.settleable)
    }

    func testADeletionOrAnUndoneSideCannotBeSettled() throws {
        let (_, store, host) = try scratch()
        try record(store, host, why: .deleted, lost: "\"bob\"")
        try record(store, host, why: .revoked, lost: "(undone)")
        XCTAssertEqual(try ConflictItems.load(store).map(\.settleable), [false, false])
    }

    func testASettledConflictIsListedWithTheSideItTook() throws {
        let (_, store, host) = try scratch()
        try record(store, host, lost: "\"bob\"")
        let id = try XCTUnwrap(try store.conflicts().first?.id)
        try store.write { try $0.settleConflict(id, take: .other) }
        XCTAssertEqual(try store.host(id: host.id)?.user, "bob", "the side taken is written as a local edit")
        let item = try XCTUnwrap(try ConflictItems.load(store).first)
        XCTAssertEqual(item.settled, "other, by this device")
        XCTAssertFalse(item.isNew, "settling marks it seen")
        XCTAssertThrowsError(try store.write { try $0.settleConflict(id, take: .kept) }) { error in
            XCTAssertTrue("\(error)".contains("was settled already"), "\(error)")
        }
        XCTAssertEqual(try store.host(id: host.id)?.user, "bob")
    }

    func testHostileNamesAreShownSafe() throws {
        let (_, store, _) = try scratch()
        let hostile = ShelfCore.Host(name: "evil", hostname: "10.0.0.9")
        try store.write { try $0.save(hostile) }
        var named = hostile
        named.name = "evil\u{1B}[2J"
        try record(store, named, lost: "\"\u{1B}]0;owned\u{07}\"")
        let item = try XCTUnwrap(try ConflictItems.load(store).first)
        for text in [item.record, item.other] {
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, text.debugDescription)
        }
    }
}

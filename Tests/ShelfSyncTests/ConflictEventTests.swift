// Conflict events (issue 33): a settlement travels as a signed event of its own. A device that receives it shows the
// conflict settled by that device with that value — a device that never saw the conflict itself included — and every
// device ends with the same conflicts in the same states. A forged settlement (signed with another key than its
// author's), and an entry carrying one replayed or rolled back by the remote, are refused and named; nothing changes.
import Foundation
import ShelfCore
import ShelfStore
import ShelfVault
@testable import ShelfSync
import TestSupport
import XCTest

final class ConflictEventTests: XCTestCase {
    func testASettlementReachesEveryDeviceAndIsTheSameStateEverywhere() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        let host = try a.add("web", hostname: "web.example")
        try formGroup([a, b, c])
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_000) }
        b.store.now = { Date(timeIntervalSince1970: 2_000_000_100) }
        try a.edit(host.id) { $0.user = "alice" }
        try b.edit(host.id) { $0.user = "bob" }
        a.sync(); b.sync(); a.sync()
        let onA = try XCTUnwrap(try a.store.conflicts().first)
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_200) }
        try a.store.write { try $0.settleConflict(onA.id, take: .other) }
        for _ in 0..<2 { for device in [a, b, c] { device.sync() } }
        for device in [a, b, c] {
            let listed = try device.store.conflicts()
            XCTAssertEqual(listed.count, 1, "\(device.name): \(listed)")
            let conflict = try XCTUnwrap(listed.first)
            XCTAssertEqual(conflict.state, "settled", "\(device.name)")
            XCTAssertEqual(conflict.settled, "other", "\(device.name)")
            XCTAssertEqual(conflict.settledBy, a.id, "\(device.name): settled by a")
            XCTAssertEqual(try device.store.host(id: host.id)?.user, "alice", "\(device.name)")
            if device !== a {
                XCTAssertThrowsError(try device.store.write { try $0.settleConflict(conflict.id, take: .kept) }) {
                    XCTAssertTrue("\($0)".contains("was settled already on device \(a.id.prefix(8))"), "\($0)")
                }
            }
        }
        XCTAssertEqual(try conflictStates(a), try conflictStates(b))
        XCTAssertEqual(try conflictStates(a), try conflictStates(c))
        // Nothing more to say: a quiet group writes nothing (the events went out once).
        for device in [a, b, c] { XCTAssertEqual(device.sync().pushed, 0, device.name) }
        for device in [a, b, c] {
            XCTAssertEqual(try device.store.unpublishedConflictEvents().count, 0, device.name)
        }
    }

    /// b, with its own key, writes an entry carrying a settlement that claims a settled the conflict.
    func testAForgedSettlementIsRefusedAndNamed() throws {
        let (_, a, b, _) = try concurrentUserEdits()
        a.sync(); b.sync(); a.sync()
        let open = try XCTUnwrap(try a.store.conflicts().first)
        let forger = try Forger(b)
        let kept = ConflictEvent.Side(
            value: open.kept, by: open.keptBy, at: Int64((open.keptAt?.timeIntervalSince1970 ?? 0) * 1000))
        let lost = ConflictEvent.Side(
            value: open.lost, by: open.lostBy, at: Int64((open.lostAt?.timeIntervalSince1970 ?? 0) * 1000))
        let event = ConflictEvent(
            action: .settled, kind: open.kind, record: open.record, name: open.name, field: open.field, why: open.why,
            kept: kept, lost: lost, author: a.id, wall: 2_000_000_500_000, counter: 0, seq: 1, took: kept)
        let text = event.text
        let signature = forger.keys.sign(ConflictEvents.message(text, group: forger.group)).hex
        let head = try b.store.peer(b.id).head
        try forger.write(
            records: [ConflictEvents.record(event, text: text, signature: signature)], seq: head + 1, device: b.id,
            previous: SyncCrypto.digest(try forger.existing(b.id, head)), snapshot: true)
        let report = a.sync()
        let named = report.skipped.filter {
            $0.contains("entry \(head + 1) from b (\(b.id.prefix(8)))")
                && $0.contains(
                    "carries a conflict event signed as \(a.id.prefix(8)), refused: it does not verify with its "
                        + "signer's key (forged or altered)")
        }
        XCTAssertEqual(named.count, 1, "\(report.skipped)")
        let after = try XCTUnwrap(try a.store.conflicts().first)
        XCTAssertEqual(after.state, "open", "the forged settlement changed nothing")
        XCTAssertEqual(try a.store.conflicts().count, 1)
    }

    /// The entry carrying a's settlement, replayed under a new number and then rolled back by the remote.
    func testAReplayedOrRolledBackSettlementIsRefusedAndNamed() throws {
        let (remote, a, b, host) = try concurrentUserEdits()
        a.sync(); b.sync(); a.sync()
        let onA = try XCTUnwrap(try a.store.conflicts().first)
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_200) }
        try a.store.write { try $0.settleConflict(onA.id, take: .other) }
        a.sync()
        let layout = RemoteLayout(root: remote)
        let settling = try a.store.peer(a.id).head
        let bytes = try Data(contentsOf: URL(fileURLWithPath: layout.entryPath(a.id, settling)))
        b.sync()
        XCTAssertEqual(try b.store.conflicts().first?.settledBy, a.id)

        // Replayed under the next number: refused, named; the state stands.
        try bytes.write(to: URL(fileURLWithPath: layout.entryPath(a.id, settling + 1)))
        let replayed = b.sync(expect: .localFallback)
        XCTAssertTrue(
            replayed.reason?.contains("tampered entry \(settling + 1) from a (\(a.id.prefix(8)))") == true,
            replayed.reason ?? "")
        XCTAssertEqual(try b.store.conflicts().first?.state, "settled")

        // Rolled back: the entry carrying the settlement removed after b verified it. Refused, named; b keeps it.
        try FileManager.default.removeItem(atPath: layout.entryPath(a.id, settling + 1))
        try FileManager.default.removeItem(atPath: layout.entryPath(a.id, settling))
        let rolledBack = b.sync(expect: .localFallback)
        XCTAssertTrue(
            rolledBack.reason?.contains("rollback detected: a (\(a.id.prefix(8)))'s entries end at") == true,
            rolledBack.reason ?? "")
        let conflict = try XCTUnwrap(try b.store.conflicts().first)
        XCTAssertEqual(conflict.state, "settled")
        XCTAssertEqual(conflict.settledBy, a.id)
        XCTAssertEqual(try b.store.host(id: host.id)?.user, "alice")
    }
}

// Conflict states that travel (issue 33): one conflict is listed once however often the entries carrying it are read
// again; two devices settling one conflict differently without seeing each other's choice end with the same value
// (the later choice) and the conflict shown disputed on both, each choice named — never a silent reversal — until
// one device settles it again knowing both.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class ConflictStateTests: XCTestCase {
    /// C sets h2's port, A sets it too, C syncs, C edits h2's user, C syncs: A lists the port conflict once.
    func testAConflictIsListedOnceHoweverOftenItsEntriesAreRead() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        let host = try a.add("h2")
        try formGroup([a, b, c])
        try c.edit(host.id) { $0.port = 2201 }
        try a.edit(host.id) { $0.port = 2202 }
        a.sync()
        c.sync()
        try c.edit(host.id) { $0.user = "carol" }
        c.sync()
        for _ in 0..<2 { for device in [a, b, c] { device.sync() } }
        for device in [a, b, c] {
            let ports = try device.store.conflicts().filter { $0.field == "endpoint" }
            XCTAssertLessThanOrEqual(ports.count, 1, "\(device.name): \(ports)")
        }
        let listed = try [a, c].map { try $0.store.conflicts().filter { $0.field == "endpoint" }.count }
        XCTAssertEqual(listed.reduce(0, +) > 0, true, "the port conflict is listed: \(listed)")
        XCTAssertEqual(try a.state(), try c.state())
    }

    func testTwoDifferentSettlesAreADisputeShownAlikeOnBothDevices() throws {
        let (_, a, b, host) = try concurrentUserEdits()
        a.sync(); b.sync(); a.sync()
        let onA = try XCTUnwrap(try a.store.conflicts().first)
        let onB = try XCTUnwrap(try b.store.conflicts().first)
        // Each settles without seeing the other's choice, a while later: A takes alice, B keeps bob.
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_200) }
        b.store.now = { Date(timeIntervalSince1970: 2_000_000_300) }
        try a.store.write { try $0.settleConflict(onA.id, take: .other) }
        try b.store.write { try $0.settleConflict(onB.id, take: .kept) }
        for _ in 0..<2 { a.sync(); b.sync() }
        let user = try a.store.host(id: host.id)?.user
        XCTAssertEqual(user, try b.store.host(id: host.id)?.user, "one value on both")
        XCTAssertEqual(user, "bob", "the later choice (B's) stands, by the merge's own rule")
        for device in [a, b] {
            let users = try device.store.conflicts().filter { $0.field == "user" }
            XCTAssertEqual(
                users.count, 1, "\(device.name): the clash of the settles is that conflict's dispute: \(users)")
            let conflict = try XCTUnwrap(users.first)
            XCTAssertEqual(conflict.state, "disputed", "\(device.name)")
            XCTAssertNil(conflict.settled, "\(device.name): a dispute is offered again")
            XCTAssertEqual(conflict.stands, "kept", "\(device.name)")
            XCTAssertEqual(
                conflict.choices.map { "\($0.by) \($0.took)" }, ["\(a.id) other", "\(b.id) kept"], "\(device.name)")
            XCTAssertFalse(conflict.seen, "\(device.name): a dispute is new again")
        }
        XCTAssertEqual(try conflictStates(a), try conflictStates(b))
        XCTAssertEqual(try a.state(), try b.state())

        // A settles it again, knowing both choices: settled by A everywhere, alice on both.
        a.store.now = { Date(timeIntervalSince1970: 2_000_000_400) }
        try a.store.write { try $0.settleConflict(onA.id, take: .other) }
        for _ in 0..<2 { a.sync(); b.sync() }
        for device in [a, b] {
            let conflict = try XCTUnwrap(try device.store.conflicts().first)
            XCTAssertEqual(conflict.state, "settled", "\(device.name)")
            XCTAssertEqual(conflict.settled, "other", "\(device.name)")
            XCTAssertEqual(conflict.settledBy, a.id, "\(device.name)")
            XCTAssertEqual(try device.store.host(id: host.id)?.user, "alice", "\(device.name)")
            XCTAssertEqual(try device.store.conflicts().count, 1, "\(device.name)")
        }
        XCTAssertEqual(try conflictStates(a), try conflictStates(b))
    }
}

/// A device's conflicts as they must read on every device once synced: what, and the state its events give it.
func conflictStates(_ device: Device) throws -> [String] {
    try device.store.conflicts().map { c in
        "\(c.identity) \(c.kind) \(c.record) \(c.field) \(c.why) \(c.state) \(c.settled ?? "-") "
            + "\(c.settledBy ?? "-") \(c.stands ?? "-") \(c.choices.map { "\($0.by) \($0.took)" })"
    }.sorted()
}

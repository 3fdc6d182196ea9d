// StoreBulk's insert of new hosts (an import's): the same rows and the same change stamps as saving each host — one
// stamp covering every field group, later than any before, queued for sync — in id order, with the name index
// rebuilt when a large batch is not in name order; hosts made on another core as they go in get the same; never an
// overwrite of an id that exists or was deleted. And the hosts table keeps only the indexes its queries use.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class StoreBulkInsertTests: XCTestCase {
    var home: TempHome!
    override func setUp() { home = TempHome() }

    func store(_ name: String) throws -> Store { try Store(path: home.sshelfHome + "/\(name)/store.sqlite") }

    func hosts(_ count: Int) -> [ShelfCore.Host] {
        // Random ids, names in no particular order: the rebuild path for a large batch.
        (0..<count).map { ShelfCore.Host(name: "h-\(($0 * 7919) % count)", hostname: "10.0.\($0 / 256).\($0 % 256)") }
    }

    func testNewHostsGetTheRowsAndStampsSavingEachWouldGiveThem() throws {
        let fleet = hosts(Store.indexRebuildMinimum + 500)
        let bulk = try store("bulk")
        let one = try store("one")
        let before = try one.write { store in try store.nextStamp() }
        try bulk.bulkWrite { store in try store.insert(newHosts: fleet) }
        try one.write { store in try store.save(hosts: fleet) }
        XCTAssertEqual(try bulk.hosts(), try one.hosts(), "the same rows")
        XCTAssertEqual(try bulk.outboxCount(), fleet.count, "every new host queued for sync")
        var stamps: [ClockStamp] = []
        for host in fleet {
            let made = try XCTUnwrap(try bulk.clock(.host, host.id))
            let saved = try XCTUnwrap(try one.clock(.host, host.id))
            XCTAssertNil(made.tombstone)
            XCTAssertEqual(Set(made.groups.keys), Set(saved.groups.keys), "every field group stamped, as a save does")
            let stamp = try XCTUnwrap(made.groups.values.first?.stamp)
            XCTAssertTrue(made.groups.values.allSatisfy { $0.stamp == stamp }, "one stamp for the whole new record")
            XCTAssertEqual(stamp.device, try bulk.deviceID)
            XCTAssertGreaterThan(stamp, before)
            stamps.append(stamp)
        }
        XCTAssertEqual(Set(stamps).count, fleet.count, "no two records share a stamp")
        let later = try bulk.write { store in try store.nextStamp() }
        XCTAssertTrue(stamps.allSatisfy { $0 < later }, "the clock moved past every stamp given")
        // The name index was dropped for the rows and built again: it is there, and used.
        let plan = try bulk.queryPlan(Store.firstHostsQuery)
        XCTAssertTrue(plan.contains { $0.contains("USING INDEX hosts_by_folded_name") }, "\(plan)")
    }

    /// Hosts made one by one on another core as the rows before them go in (an import's second pass): each made once,
    /// in order; the ones not made leave no row and no stamp; the texts, empty texts, NULLs and numbers bound from the
    /// maker's packed rows are the values saving each host writes.
    func testHostsMadeAsTheyGoInAreStoredAsSavingEachWould() throws {
        let fleet = hosts(3 * 2_048 + 100).enumerated().map { k, host in
            var host = host
            host.user = k % 3 == 0 ? "" : "deploy"
            host.groupID = k % 2 == 0 ? nil : UUID()
            host.options = k % 5 == 0 ? ["ServerAliveInterval 30"] : []
            return host
        }
        let order = fleet.indices.sorted { Store.idPrecedes(fleet[$0].id, fleet[$1].id) }
        let kept = order.enumerated().filter { $0.offset % 7 != 3 }.map { fleet[$0.element] }
        let calls = CallLog()
        let streamed = try store("streamed")
        let one = try store("one")
        try streamed.bulkWrite { store in
            try store.insert(newHostsInOrder: order.count) { k in
                calls.add(k)
                return k % 7 == 3 ? nil : fleet[order[k]]
            }
        }
        try one.write { store in try store.save(hosts: kept) }
        XCTAssertEqual(calls.all, Array(order.indices), "each host made once, in order")
        XCTAssertEqual(try streamed.hosts(), try one.hosts(), "the same rows")
        for sql in [
            "SELECT count(*) FROM hosts WHERE group_id IS NULL", "SELECT count(*) FROM hosts WHERE user = ''",
            "SELECT count(*) FROM hosts WHERE options = ''", "SELECT count(*) FROM hosts WHERE notes = ''",
            "SELECT count(*) FROM hosts WHERE typeof(created_at) = 'real' AND typeof(port) = 'integer'",
        ] {
            XCTAssertEqual(try streamed.db.scalarInt(sql), try one.db.scalarInt(sql), sql)
        }
        XCTAssertEqual(try streamed.outboxCount(), kept.count, "every host stored is queued for sync, no other")
        XCTAssertEqual(try streamed.db.scalarInt("SELECT count(*) FROM record_clock"), kept.count, "and stamped")
        XCTAssertNil(try streamed.clock(.host, fleet[order[3]].id), "a host not made has no stamp")
    }

    func testAnIDThatExistsOrWasDeletedIsRefusedNotOverwritten() throws {
        let store = try store("refuse")
        let kept = ShelfCore.Host(name: "kept", hostname: "k")
        let gone = ShelfCore.Host(name: "gone", hostname: "g")
        try store.write { store in
            try store.save(hosts: [kept, gone])
            try store.deleteHost(gone.id)
        }
        for clash in [kept, gone] {
            var again = clash
            again.hostname = "changed"
            XCTAssertThrowsError(
                try store.bulkWrite { store in
                    try store.insert(newHosts: [ShelfCore.Host(name: "fresh", hostname: "f"), again])
                }
            ) { error in XCTAssertEqual((error as? StoreError)?.kind, .constraint, "\(error)") }
        }
        XCTAssertEqual(try store.hosts().map(\.hostname), ["k"], "nothing written, nothing overwritten")
    }

    func testTheHostsTableKeepsOnlyTheIndexesItsQueriesUse() throws {
        let store = try store("indexes")
        try store.write { store in
            // The store itself does not hold the unique-name rule (the operations do): two names differing in case.
            try store.save(hosts: [
                ShelfCore.Host(name: "web", hostname: "a"), ShelfCore.Host(name: "Web", hostname: "b"),
            ])
        }
        let indexes = try store.db.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'hosts' AND sql IS NOT NULL"
        ) { $0.text(0) }
        // And the partial index of the few hosts with aliases (what finding a host by an alias reads).
        XCTAssertEqual(indexes, ["hosts_by_folded_name", "hosts_with_aliases"])
        let aliasPlan = try store.queryPlan("SELECT \(HostRow.columns) FROM hosts WHERE aliases != '' ORDER BY id")
        XCTAssertTrue(aliasPlan.contains { $0.contains("hosts_with_aliases") }, "\(aliasPlan)")
        // What `hosts(named:)` and `hosts(sameNameAs:)` run: through the case-insensitive name index, no sort.
        let plan = try store.queryPlan(
            "SELECT \(HostRow.columns) FROM hosts WHERE name = 'web' COLLATE NOCASE ORDER BY id")
        XCTAssertTrue(plan.contains { $0.contains("USING INDEX hosts_by_folded_name (name=?)") }, "\(plan)")
        XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        XCTAssertEqual(try store.hosts(named: "Web").map(\.hostname), ["b"], "an exact name first")
        XCTAssertEqual(Set(try store.hosts(named: "WEB").map(\.hostname)), ["a", "b"], "else ignoring case")
    }
}

/// The indexes `make` was called with, from whichever thread called it.
final class CallLog: @unchecked Sendable {
    private var calls: [Int] = []
    private let lock = NSLock()
    func add(_ k: Int) {
        lock.lock()
        calls.append(k)
        lock.unlock()
    }
    var all: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return calls
    }
}

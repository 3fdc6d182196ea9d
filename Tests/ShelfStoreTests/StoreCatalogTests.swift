// StoreCatalog: the catalog cache is used only while the store's catalog token says it is current — any
// write to the hosts table (any connection, any path: save, delete, sync apply, raw SQL) changes the token —
// is private, survives damage by being rebuilt, and the first screenful is read through the name index.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class StoreCatalogTests: XCTestCase {
    var home: TempHome!
    var path: String { home.sshelfHome + "/data/store.sqlite" }

    override func setUp() { home = TempHome() }

    func seeded(_ count: Int = 50) throws -> Store {
        let store = try Store(path: path)
        try store.write { store in
            try store.save(hosts: (0..<count).map { ShelfCore.Host(name: "host-\($0)", hostname: "10.0.0.\($0)") })
        }
        return store
    }

    func cacheInode() -> UInt64? {
        var info = stat()
        return stat(path + ".catalog", &info) == 0 ? UInt64(info.st_ino) : nil
    }

    func testTheCacheIsReusedWhileCurrentAndPrivate() throws {
        let store = try seeded()
        XCTAssertNil(try store.cachedHostTable(), "no cache before the first load")
        let first = try store.hostTable()
        XCTAssertEqual(first.count, 50)
        let inode = try XCTUnwrap(cacheInode())
        var info = stat()
        XCTAssertEqual(stat(path + ".catalog", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let again = try XCTUnwrap(try store.cachedHostTable(), "current: served from the cache")
        XCTAssertEqual(again.token, first.token)
        _ = try store.hostTable()
        XCTAssertEqual(cacheInode(), inode, "not rewritten while current")
    }

    func testEveryWriteToHostsMakesTheCacheStale() throws {
        let store = try seeded()
        _ = try store.hostTable()
        let other = try Store(path: path)  // another process's connection
        let added = ShelfCore.Host(name: "added", hostname: "new.example")
        let writes: [(String, () throws -> Void)] = [
            ("save from another connection", { try other.save(added) }),
            (
                "update",
                {
                    var h = added; h.user = "root"; try other.save(h)
                }
            ),
            ("raw SQL", { try other.db.run("UPDATE hosts SET last_connected_at = 5 WHERE name = 'host-1'") }),
            ("delete", { try other.deleteHost(added.id) }),
            (
                "sync apply",
                {
                    let host = ShelfCore.Host(name: "synced", hostname: "s.example")
                    let stamp = ClockStamp(wall: Int64.max / 2, counter: 0, device: "other-device")
                    let record = SyncRecord(
                        kind: .host, id: host.id, clock: .uniform(GroupStamp(stamp: stamp), kind: .host),
                        body: try SyncRecordCodec.body(host))
                    XCTAssertEqual(try other.apply(record, from: "other-device", at: Date()), .applied)
                }
            ),
        ]
        for (what, write) in writes {
            let before = try store.hostTable()
            try write()
            XCTAssertNil(try store.cachedHostTable(), "\(what) leaves the cache stale")
            let after = try store.hostTable()
            XCTAssertNotEqual(after.token, before.token, what)
            XCTAssertEqual((0..<after.count).map { after.host(at: $0) }, try store.hosts(), what)
        }
    }

    func testADamagedOrForeignCacheIsRebuilt() throws {
        let store = try seeded()
        _ = try store.hostTable()
        for damage in [Data(), Data("garbage".utf8), Data(repeating: 0xFF, count: 100_000)] {
            try damage.write(to: URL(fileURLWithPath: path + ".catalog"))
            XCTAssertNil(try store.cachedHostTable())
            XCTAssertEqual(try store.hostTable().count, 50)
            XCTAssertNotNil(try store.cachedHostTable(), "rebuilt and written again")
        }
    }

    func testWithoutItsTriggersTheTokenIsNotTrustedAndNoCacheIsUsed() throws {
        let store = try seeded()
        _ = try store.hostTable()
        try store.db.execute("DROP TRIGGER catalog_after_host_update")
        XCTAssertNil(try store.catalogToken())
        XCTAssertNil(try store.cachedHostTable())
        try store.db.run("UPDATE hosts SET name = 'renamed' WHERE name = 'host-1'")
        let table = try store.hostTable()
        XCTAssertTrue((0..<table.count).map(table.name).contains("renamed"), "rebuilt from the rows, not the old cache")
    }

    func testABulkWriteChangesTheTokenOnceAndKeepsItsTriggers() throws {
        let store = try seeded()
        let before = try XCTUnwrap(try store.catalogToken())
        try store.bulkWrite { store in
            try store.save(hosts: (0..<100).map { ShelfCore.Host(name: "bulk-\($0)", hostname: "b") })
        }
        let after = try XCTUnwrap(try store.catalogToken(), "the triggers are back")
        XCTAssertNotEqual(after, before)
        XCTAssertEqual(try store.hostTable().count, 150)
        struct Stop: Error {}
        XCTAssertThrowsError(
            try store.bulkWrite { store in
                try store.save(ShelfCore.Host(name: "rolled-back", hostname: "r"))
                throw Stop()
            })
        XCTAssertEqual(try store.catalogToken(), after, "a failed bulk write changes nothing, triggers included")
        try other(store).save(ShelfCore.Host(name: "later", hostname: "l"))
        XCTAssertNotEqual(try store.catalogToken(), after, "the triggers work again after a bulk write")
    }

    func other(_ store: Store) throws -> Store { try Store(path: path) }

    func testListOrderIsCaseInsensitiveNameThenID() throws {
        let store = try Store(path: path)
        let names = ["beta", "Alpha", "alpha", "Gamma", "delta"]
        try store.write { store in try store.save(hosts: names.map { ShelfCore.Host(name: $0, hostname: "h") }) }
        let table = try store.hostTable()
        let listed = (0..<table.count).map(table.name)
        XCTAssertEqual(listed.map { $0.lowercased() }, ["alpha", "alpha", "beta", "delta", "gamma"])
        XCTAssertEqual(try store.hosts().map(\.name), listed, "the same order as every other list")
    }

    func testTheFirstScreenfulIsReadThroughTheNameIndex() throws {
        let store = try seeded(300)
        let plan = try store.queryPlan(Store.firstHostsQuery)
        XCTAssertTrue(plan.contains { $0.contains("USING INDEX hosts_by_folded_name") }, "\(plan)")
        XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "no sort of every row: \(plan)")
        let first = try store.firstHosts(limit: 40)
        let whole = try store.hostTable()
        XCTAssertEqual((0..<first.count).map(first.host(at:)), (0..<40).map(whole.host(at:)))
    }
}

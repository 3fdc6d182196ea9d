// How the store lays its tables out for bulk writes: the sync outbox keeps its rows in its primary key's b-tree
// (WITHOUT ROWID: one b-tree, not a rowid table and an index), and an older store migrates to that without losing or
// changing a row or a stamp; the newest stamp is still found through its index; a new store has 16 KiB pages;
// SQLite keeps no memory statistics (their global mutex around every allocation).
import Foundation
import ShelfCore
import ShelfSQLite
@testable import ShelfStore
import TestSupport
import XCTest

final class StoreLayoutTests: XCTestCase {
    var home: TempHome!
    var path: String { home.sshelfHome + "/data/store.sqlite" }
    override func setUp() { home = TempHome() }

    /// Every row of the stamp tables, in key order, all columns.
    func stampRows(_ store: Store) throws -> [[SQLValue]] {
        try store.db.connection.rows(
            "SELECT kind, id, wall, counter, device, deleted, clock, history FROM record_clock ORDER BY kind, id")
            + store.db.connection.rows("SELECT 'outbox', kind, id FROM sync_outbox ORDER BY kind, id")
    }

    func hasRowid(_ store: Store, _ table: String) -> Bool {
        (try? store.db.connection.rows("SELECT rowid FROM \(table) LIMIT 1")) != nil
    }

    func testTheOutboxIsKeyedByItsPrimaryKeyAndOlderStoresMigrateEveryRow() throws {
        let before: [[SQLValue]]
        do {
            // The schema before the outbox step (the steps after it add host columns, so groups are written here:
            // their rows are the same in both schemas, and their stamps and outbox rows are what this step moves).
            let older = try Store(path: path, migrateTo: 9)  // the step before outboxWithoutRowid
            XCTAssertTrue(hasRowid(older, "sync_outbox"), "the schema before this step had a rowid table")
            let groups = (0..<50).map { HostGroup(name: "g\($0)") }
            try older.write { store in
                for group in groups { try store.save(group) }
                try store.deleteGroup(groups[7].id)  // a tombstone
                var edited = groups[3]
                edited.notes = "changed"  // a second stamp, with history
                try store.save(edited)
                try store.save(HostGroup(name: "prod"))
            }
            try older.write { store in
                let sent = try groups[20..<30].map { group in
                    (RecordKind.group, group.id, try XCTUnwrap(try store.clock(.group, group.id)?.latest))
                }
                try store.clearOutbox(sent: sent)
            }
            before = try stampRows(older)
            XCTAssertEqual(try older.outboxCount(), 41, "51 groups queued, 10 of them sent")
        }
        let store = try Store(path: path)
        XCTAssertEqual(store.schemaVersion, Store.latestVersion)
        XCTAssertEqual(try stampRows(store), before, "every stamp and every queued record kept as it was")
        XCTAssertFalse(hasRowid(store, "sync_outbox"), "the outbox lives in its key's b-tree")
        let outboxIndexes = try store.db.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sync_outbox'"
        ) { $0.text(0) }
        XCTAssertEqual(outboxIndexes, [], "no index beside the outbox for its own key")
        let plan = try store.queryPlan(
            "SELECT wall, counter, device FROM record_clock ORDER BY wall DESC, counter DESC, device DESC LIMIT 1")
        XCTAssertTrue(
            plan.contains { $0.contains("record_clock_by_stamp") },
            "the newest stamp is found through its index: \(plan)")
        XCTAssertEqual(try store.db.query("PRAGMA integrity_check") { $0.text(0) }, ["ok"])
        // Stamping goes on where it left off: a new save is later than every stamp migrated.
        let newest = try XCTUnwrap(before.compactMap { $0[2].int }.max())
        try store.write { store in try store.save(ShelfCore.Host(name: "after", hostname: "a.example")) }
        XCTAssertGreaterThanOrEqual(try store.db.scalarInt("SELECT max(wall) FROM record_clock"), newest)
    }

    func testANewStoreHasLargePagesAndAnOlderOneKeepsItsOwn() throws {
        let store = try Store(path: path)
        XCTAssertEqual(try store.db.scalarInt("PRAGMA page_size"), Store.pageSize)
        XCTAssertEqual(
            try store.db.query("PRAGMA journal_mode") { $0.text(0) }, ["wal"],
            "WAL: readers keep reading while an import writes")
        let olderPath = home.sshelfHome + "/old/store.sqlite"
        try PrivateDirectory.make(home.sshelfHome + "/old")
        do {
            XCTAssertTrue(
                FileManager.default.createFile(atPath: olderPath, contents: nil, attributes: [.posixPermissions: 0o600])
            )
            let raw = try Database(path: olderPath)
            try raw.execute("PRAGMA page_size=4096; PRAGMA journal_mode=WAL; CREATE TABLE t(x); DROP TABLE t;")
        }
        let older = try Store(path: olderPath)
        XCTAssertEqual(try older.db.scalarInt("PRAGMA page_size"), 4096, "an existing file is never rewritten for this")
        XCTAssertEqual(older.schemaVersion, Store.latestVersion)
    }

    func testSQLiteKeepsNoMemoryStatistics() throws {
        let store = try Store(path: path)
        try store.write { store in try store.save(ShelfCore.Host(name: "web", hostname: "web.example")) }
        XCTAssertEqual(try store.hosts().count, 1)
        XCTAssertEqual(
            SQLiteDatabase.memoryCounted(), 0, "SQLite counted its memory: the statistics (and their mutex) are on")
    }
}

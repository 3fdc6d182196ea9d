// StoreBulk: a write transaction sized for bulk work (imports of 100,000 hosts). SQLite's page cache grows so
// each page is written once, at commit, instead of spilling to the WAL mid-transaction and being read back.
// And the catalog triggers step aside for the transaction: a statement that fires a trigger keeps a statement
// journal (a copy of every page it changes, so that statement alone can be rolled back), which made each
// host's upsert copy a dozen pages; instead the token is changed once at the end. Dropping and re-creating the
// triggers happens inside the same transaction, so no other connection ever sees the table without them, and
// a failure rolls them back with everything else.
import Foundation

extension Store {
    /// Pages of cache for a bulk write: 128 MiB, taken only as pages are touched, back to SQLite's default after.
    static let bulkCacheKiB = 128 * 1024

    /// Runs `body` in one write transaction (as `write`) with a large page cache and one catalog token change.
    public func bulkWrite<T>(_ body: (Store) throws -> T) throws -> T {
        try db.execute("PRAGMA cache_size=-\(Store.bulkCacheKiB)")
        defer { try? db.execute("PRAGMA cache_size=-2000") }
        return try write { store in
            let triggers = try store.catalogToken() != nil
            if triggers {
                try store.db.execute(Store.catalogTriggers.map { "DROP TRIGGER \($0);" }.joined())
            }
            let result = try body(store)
            if triggers {
                try store.db.execute(Store.catalogTriggerSQL
                                     + "UPDATE catalog_version SET token = randomblob(16) WHERE id = 1;")
            }
            return result
        }
    }
}

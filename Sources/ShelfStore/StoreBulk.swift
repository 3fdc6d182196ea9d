// StoreBulk: a write transaction sized for bulk work (imports of 100,000 hosts): SQLite's page cache grows
// so each page is written once, at commit, instead of spilling to the WAL mid-transaction and being read back,
// and statement journals (which every upsert with a trigger keeps) stay in memory instead of costing a dozen
// small writes to a temporary file per row.
import Foundation

extension Store {
    /// Pages of cache for a bulk write: 128 MiB, taken only as pages are touched, back to SQLite's default after.
    static let bulkCacheKiB = 128 * 1024

    /// Runs `body` in one write transaction (as `write`) with a large page cache.
    public func bulkWrite<T>(_ body: (Store) throws -> T) throws -> T {
        try db.execute("PRAGMA cache_size=-\(Store.bulkCacheKiB); PRAGMA temp_store=MEMORY")
        defer { try? db.execute("PRAGMA cache_size=-2000; PRAGMA temp_store=DEFAULT") }
        return try write(body)
    }
}

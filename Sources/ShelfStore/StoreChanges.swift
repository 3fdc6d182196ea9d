// StoreChanges: whether another connection (another sshelf process, or another thread's connection) committed
// a change since the last look — SQLite's data version, read from shared memory without touching the tables, so a
// watcher can ask several times a second for nothing.
import FoundationEssentials

extension Store {
    /// Changes whenever a connection other than this one commits to the file; the same value means nothing new.
    public func dataVersion() throws(StoreError) -> Int { try db.scalarInt("PRAGMA data_version") }
}

// StoreChanges: whether another connection (another sshelf process, or another thread's connection) committed
// a change since the last look — SQLite's data version, read from shared memory without touching the tables, so a
// watcher can ask several times a second for nothing; and a long-lived connection's cache given back when it idles.
import FoundationEssentials

extension Store {
    /// Changes whenever a connection other than this one commits to the file; the same value means nothing new.
    public func dataVersion() throws(StoreError) -> Int { try db.scalarInt("PRAGMA data_version") }

    /// The connection's page cache given back (SQLite's shrink_memory): for a long-lived connection that is idle
    /// after a burst (the user service's, after a sync run); the next read fills it again from the file.
    public func releaseCache() { try? db.execute("PRAGMA shrink_memory") }
}

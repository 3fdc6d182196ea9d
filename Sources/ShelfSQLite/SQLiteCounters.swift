// SQLiteCounters: how many statements this process has prepared, so tests can guard that bulk work runs on
// a fixed set of prepared statements (not one per row) without timing anything.
import Foundation

public enum SQLiteCounters {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var prepared = 0

    static func countPrepare() {
        lock.lock()
        prepared += 1
        lock.unlock()
    }

    public static var statementsPrepared: Int {
        lock.lock()
        defer { lock.unlock() }
        return prepared
    }
}

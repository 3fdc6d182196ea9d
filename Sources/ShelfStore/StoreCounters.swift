// StoreCounters: how many write transactions this process committed (and, from ShelfSQLite, statements it
// prepared), so tests can guard the shape of bulk work (an import is one transaction over a fixed set of
// statements) without timing anything.
import FoundationEssentials
import ShelfCore
import ShelfSQLite

final class StoreCounters: @unchecked Sendable {
    static let shared = StoreCounters()
    private let lock = Lock()
    private var commits = 0

    func countCommit() {
        lock.lock()
        commits += 1
        lock.unlock()
    }

    static func snapshot() -> (prepared: Int, commits: Int) {
        shared.lock.lock()
        defer { shared.lock.unlock() }
        return (SQLiteCounters.statementsPrepared, shared.commits)
    }
}

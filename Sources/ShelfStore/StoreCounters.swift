// StoreCounters: how many statements this process prepared and how many write transactions it committed, so
// tests can guard the shape of bulk work (an import is one transaction over a fixed set of statements)
// without timing anything.
import Foundation

final class StoreCounters: @unchecked Sendable {
    static let shared = StoreCounters()
    private let lock = NSLock()
    private var prepared = 0
    private var commits = 0

    func countPrepare() {
        lock.lock()
        prepared += 1
        lock.unlock()
    }

    func countCommit() {
        lock.lock()
        commits += 1
        lock.unlock()
    }

    static func snapshot() -> (prepared: Int, commits: Int) {
        shared.lock.lock()
        defer { shared.lock.unlock() }
        return (shared.prepared, shared.commits)
    }
}

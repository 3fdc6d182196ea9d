// SQLiteCounters: how many statements this process has prepared, so tests can guard that bulk work runs on
// a fixed set of prepared statements (not one per row) without timing anything.
import Synchronization

public enum SQLiteCounters {
    private static let prepared = Atomic<Int>(0)

    static func countPrepare() { prepared.add(1, ordering: .relaxed) }

    public static var statementsPrepared: Int { prepared.load(ordering: .relaxed) }
}

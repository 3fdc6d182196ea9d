// ProbeScheduler: which reachability probes to run, and when — the targets of the rows on screen plus a margin,
// each again `interval` after its last result, never more than `limit` at once. Pure: the caller passes the time.
import FoundationEssentials

public struct ProbeScheduler<Target: Hashable & Sendable>: Sendable {
    /// Seconds between two probes of one target.
    public let interval: TimeInterval
    /// Probes under way at most (a probe of a target that left the screen counts until it ends).
    public let limit: Int
    /// The targets to keep fresh, most wanted first.
    public private(set) var wanted: [Target] = []
    public private(set) var running: Set<Target> = []
    /// When each target's last probe ended; kept for `interval` after it leaves the screen, so scrolling back
    /// within that time shows its result without probing again.
    private var finishedAt: [Target: Date] = [:]

    public init(interval: TimeInterval = 30, limit: Int = 16) {
        self.interval = interval
        self.limit = max(1, limit)
    }

    /// The rows worth probing in a list of `count` rows whose rows `first..<first+rows` are on screen: those on
    /// screen top to bottom, then up to `margin` below them (where scrolling usually goes), then up to `margin`
    /// above, nearest first.
    public static func window(count: Int, first: Int, rows: Int, margin: Int) -> [Int] {
        let start = max(0, min(first, count))
        let end = min(count, start + max(0, rows))
        let below = Array(end..<min(count, end + max(0, margin)))
        let above = Array((max(0, start - max(0, margin))..<start).reversed())
        return Array(start..<end) + below + above
    }

    /// The targets to keep fresh from now on, most wanted first (duplicates count once). Returns the targets whose
    /// results should be forgotten: off the list and last probed `interval` ago or longer.
    @discardableResult
    public mutating func track(_ targets: [Target], now: Date) -> [Target] {
        var seen: Set<Target> = []
        wanted = targets.filter { seen.insert($0).inserted }
        let stale = finishedAt.filter { !seen.contains($0.key) && now.timeIntervalSince($0.value) >= interval }
            .map(\.key)
        for target in stale { finishedAt[target] = nil }
        return stale
    }

    /// The probes to start now — wanted targets never probed or whose last probe ended `interval` ago, not under
    /// way, most wanted first, no more than `limit` minus those under way. They count as running until `finished`.
    public mutating func start(now: Date) -> [Target] {
        var free = limit - running.count
        var started: [Target] = []
        for target in wanted where free > 0 && !running.contains(target) && isDue(target, now: now) {
            running.insert(target)
            started.append(target)
            free -= 1
        }
        return started
    }

    /// A probe ended (whatever it found): the target is due again `interval` from now.
    public mutating func finished(_ target: Target, now: Date) {
        running.remove(target)
        finishedAt[target] = now
    }

    /// When the next probe falls due: now when one is due and there is room, else the earliest time a wanted target
    /// not under way falls due; nil when none is wanted or all are under way.
    public func nextDue(now: Date) -> Date? {
        var earliest: Date?
        for target in wanted where !running.contains(target) {
            let due = finishedAt[target].map { $0.addingTimeInterval(interval) } ?? now
            earliest = min(earliest ?? due, due)
        }
        return earliest
    }

    /// Whether the target has had a probe end (its result is worth keeping).
    public func hasResult(_ target: Target) -> Bool { finishedAt[target] != nil }

    private func isDue(_ target: Target, now: Date) -> Bool {
        guard let last = finishedAt[target] else { return true }
        return now.timeIntervalSince(last) >= interval
    }
}

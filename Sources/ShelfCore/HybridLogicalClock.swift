// HybridLogicalClock: stamps every change so the same record edited on two devices orders the same way
// everywhere: physical milliseconds, a counter for events within one millisecond (or behind a clock that went
// backwards), then the device id as the final tie-break.
import FoundationEssentials

public struct ClockStamp: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public var wall: Int64
    public var counter: Int
    public var device: String

    public init(wall: Int64, counter: Int, device: String) {
        self.wall = wall
        self.counter = counter
        self.device = device
    }

    public static func < (a: ClockStamp, b: ClockStamp) -> Bool {
        if a.wall != b.wall { return a.wall < b.wall }
        if a.counter != b.counter { return a.counter < b.counter }
        return a.device < b.device
    }

    public var description: String { "\(wall).\(counter)@\(device)" }
}

public enum HybridLogicalClock {
    /// A device's clock may not run ahead of the latest stamp it has seen by more than this; a record from a
    /// device whose clock is far in the future would otherwise win every merge for that long.
    public static let maxDrift: Int64 = 24 * 3600 * 1000

    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The next local stamp: never below `last` (so local order is kept even if the wall clock steps back).
    public static func next(after last: ClockStamp?, now: Date, device: String) -> ClockStamp {
        let physical = milliseconds(now)
        guard let last, last.wall >= physical else { return ClockStamp(wall: physical, counter: 0, device: device) }
        return ClockStamp(wall: last.wall, counter: last.counter + 1, device: device)
    }

    /// The clock after receiving `remote`: later local stamps sort after everything seen.
    public static func receive(_ remote: ClockStamp, last: ClockStamp?) -> ClockStamp {
        guard let last else { return remote }
        return max(last, remote)
    }
}

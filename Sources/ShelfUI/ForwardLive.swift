// ForwardLive: what one forward rule is doing right now, as the details pane shows it — read by the app from
// the state files of every process that runs rules: the `forward up` supervisor and each `forward start` (the
// TUI's own, an earlier TUI's, or one typed in another terminal). Plain values (ShelfUI stays pure): the app maps
// the published state onto them.
import FoundationEssentials
import ShelfCore

public struct ForwardLive: Sendable, Equatable {
    public enum Phase: String, Sendable, Equatable { case starting, active, retrying, failed }
    /// Who runs the rule: a `forward start` the TUI started with `t` (this TUI or an earlier one: `t` stops it), the
    /// `forward up` supervisor (`sshelf forward stop`), or a `forward start` typed in a terminal (stopped there).
    public enum Runner: Sendable, Equatable {
        case tui
        case supervisor
        case command(pid: Int32)
    }

    public var phase: Phase
    public var runner: Runner
    public var boundPort: Int?
    public var activeConnections: Int
    public var totalConnections: Int
    public var bytesOut: Int64
    public var bytesIn: Int64
    /// Why it is retrying or failed, or the last connection error while active.
    public var lastError: String?
    public var nextAttempt: Date?

    public init(
        phase: Phase, runner: Runner, boundPort: Int? = nil, activeConnections: Int = 0,
        totalConnections: Int = 0, bytesOut: Int64 = 0, bytesIn: Int64 = 0, lastError: String? = nil,
        nextAttempt: Date? = nil
    ) {
        self.phase = phase
        self.runner = runner
        self.boundPort = boundPort
        self.activeConnections = activeConnections
        self.totalConnections = totalConnections
        self.bytesOut = bytesOut
        self.bytesIn = bytesIn
        self.lastError = lastError
        self.nextAttempt = nextAttempt
    }

    /// True while the TUI's own child runs it (a failed one can be started again).
    public var isRunByTUI: Bool { runner == .tui && phase != .failed }

    /// The state line under the rule, e.g. "active: 2 open, 5 total, 1.2 MB out, 340 B in".
    public func words(now: Date) -> String {
        let by =
            switch runner {
            case .tui: ""
            case .supervisor: " (forward up)"
            case .command(let pid): " (forward start, pid \(pid))"
            }
        switch phase {
        case .starting:
            return "starting\(by)..."
        case .active:
            var text =
                "active\(by): \(activeConnections) open, \(totalConnections) total, "
                + "\(Self.bytes(bytesOut)) out, \(Self.bytes(bytesIn)) in"
            if let lastError { text += "; last error: \(lastError)" }
            return text
        case .retrying:
            let wait = nextAttempt.map { " in \(max(0, Int($0.timeIntervalSince(now).rounded(.up)))) s" } ?? ""
            return "retrying\(wait)\(by): \(lastError ?? "connection lost")"
        case .failed:
            return "failed\(by): \(lastError ?? "unknown reason")"
        }
    }

    /// Byte counts in the user's words: 340 B, 12.5 KB, 1.2 MB, 3.0 GB (powers of 1024).
    public static func bytes(_ count: Int64) -> String {
        let units = ["KB", "MB", "GB", "TB"]
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return "\(TextFormat.fixed(value, places: 1)) \(units[unit])"
    }
}

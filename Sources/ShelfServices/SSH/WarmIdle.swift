// WarmIdle: when a warm keeper has been idle long enough to exit, and how long it may sleep before it looks again —
// measured on a monotonic clock that is injected, so a test moves time instead of waiting for it (and a wall-clock
// step, NTP or a suspend's, never ends a keeper early or keeps it late).
import FoundationEssentials

struct WarmIdle {
    /// How long the keeper lives without a request.
    let idle: Duration
    private let now: () -> ContinuousClock.Instant
    private var lastUse: ContinuousClock.Instant

    init(idle: Duration, now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.idle = idle
        self.now = now
        lastUse = now()
    }

    /// A request was served: the idle time starts again.
    mutating func used() { lastUse = now() }

    /// Time left before the keeper is idle for good; zero once it is.
    var remaining: Duration { max(.zero, idle - (now() - lastUse)) }

    var expired: Bool { remaining == .zero }

    /// How long to sleep in `poll` before looking again: never past the idle deadline, nor past `keepalive`
    /// (what the connection's watch allows: the next keepalive, or when the server's silence would be too long), nor
    /// past `longest`; at least a millisecond.
    func wait(keepalive: Duration, longest: Duration = .seconds(5)) -> Duration {
        max(.milliseconds(1), min(remaining, keepalive, longest))
    }

    /// `wait` in whole milliseconds, rounded up, for `poll`.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}

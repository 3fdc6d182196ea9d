// UnlockBackoff: how long a try at the agent's unlock passphrase (`ssh-add -X`: the lock passphrase, or the vault's)
// waits after wrong ones — 1 s after the first, doubling with each wrong answer in a row up to 5 min, none again
// after a right one: `PassphraseTries`' delay, the one `vault unlock` and the TUI wait between their tries. Tries
// take turns, so clients guessing over many connections at once guess no faster than one.
// Time is a monotonic clock that is injected, and so is the wait: a test moves the clock instead of sleeping.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations

public final class UnlockBackoff: @unchecked Sendable {
    static let first = PassphraseTries.first
    static let longest = PassphraseTries.longest

    /// What one try came to, for the agent's log.
    struct Outcome: Equatable {
        var accepted: Bool
        /// How long the try waited for its turn.
        var waited: Duration
        /// Wrong answers in a row, this one included (0 after a right one).
        var failures: Int
        /// How long the next try will wait, counted from this answer.
        var next: Duration
    }

    private let now: () -> ContinuousClock.Instant
    private let wait: (Duration) -> Void
    /// Held for a whole try, the wait included: one try at a time.
    private let turn = Lock()
    private var failures = 0
    private var notBefore: ContinuousClock.Instant

    public init(
        now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now },
        wait: @escaping (Duration) -> Void = { duration in
            let (seconds, attoseconds) = duration.components
            var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var left = timespec()
            while nanosleep(&time, &left) == -1 && errno == EINTR { time = left }
        }
    ) {
        self.now = now
        self.wait = wait
        notBefore = now()
    }

    /// The wait after `failures` wrong answers in a row.
    static func delay(afterFailures failures: Int) -> Duration {
        PassphraseTries.delay(afterWrong: failures)
    }

    /// Runs `check` (does the passphrase open the lock?) when this try's turn has come: after the tries before it,
    /// and no sooner than the back-off of the wrong answers before it ends.
    func attempt(_ check: () -> Bool) -> Outcome {
        turn.lock()
        defer { turn.unlock() }
        let waited = max(.zero, notBefore - now())
        if waited > .zero { wait(waited) }
        let accepted = check()
        failures = accepted ? 0 : min(failures + 1, 64)
        let next = Self.delay(afterFailures: failures)
        notBefore = now() + next
        return Outcome(accepted: accepted, waited: waited, failures: failures, next: next)
    }
}

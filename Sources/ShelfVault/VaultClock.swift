// VaultClock: the vault's sense of time — the wall-clock time stamped on items (with its fraction of a second: a
// value set twice within one second must tell which write came last, and sync compares these times) and the
// monotonic clock the idle relock measures. Production reads the system's; a test sets its own (or
// SSHELF_TEST_NOW for the binary) so that nothing has to wait for a second to pass.
import FoundationEssentials
import ShelfCore

public struct VaultClock: Sendable {
    /// The time stamped on an item when it is written (`updated_at`).
    public var now: @Sendable () -> Date
    /// An instant on a monotonic clock, for the idle timeout of `whenUnlocked…` keys.
    public var instant: @Sendable () -> ContinuousClock.Instant

    public init(now: @escaping @Sendable () -> Date, instant: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.now = now
        self.instant = instant
    }

    public static let system = VaultClock(now: { Date() }, instant: { ContinuousClock.now })

    /// An item's `updated_at` as stored: seconds with their fraction (a REAL), or whole seconds (an INTEGER, as
    /// vaults written before kept them).
    static func seconds(_ value: DatabaseValue) -> TimeInterval {
        switch value {
        case .real(let seconds): seconds
        case .int(let seconds): TimeInterval(seconds)
        default: 0
        }
    }

    /// Test suites only (`SSHELF_TEST_NOW=SECONDS`, Unix time): items are stamped with exactly that time, so a
    /// test orders writes by the value it passes instead of by waiting. The vault session's idle timeout reads it too
    /// (so a test moves a session across processes); the in-process fallback's idle timeout keeps the system clock.
    public static let testNowVariable = "SSHELF_TEST_NOW"

    static func from(environment: [String: String]) -> VaultClock {
        guard let text = environment[testNowVariable], let seconds = Int64(text) else { return .system }
        let fixed = Date(timeIntervalSince1970: TimeInterval(seconds))
        return VaultClock(now: { fixed }, instant: { ContinuousClock.now })
    }
}

/// A clock that stands still until a test moves it: `advance(by:)` moves both the item time and the idle clock,
/// so "a second later" and "an idle hour later" take no time at all.
public final class ManualVaultClock: @unchecked Sendable {
    private let lock = Lock()
    private var offset: Duration = .zero
    private let startDate: Date
    private let startInstant = ContinuousClock.now

    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { startDate = start }

    public func advance(by duration: Duration) {
        lock.lock()
        offset += duration
        lock.unlock()
    }

    private var elapsed: Duration {
        lock.lock()
        defer { lock.unlock() }
        return offset
    }

    public var clock: VaultClock {
        VaultClock(
            now: { [self] in
                let (seconds, attoseconds) = elapsed.components
                return startDate.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
            },
            instant: { [self] in startInstant + elapsed })
    }
}

// SyncSchedule: when the next background sync run is due, and why — the one set of rules the user service
// (ServiceSync) and the TUI (BackgroundSync) both follow. A local change is debounced (2 s after the last one, at
// most 10 s after the first); a run asked for at once stays at once; after a run that got through, a git remote is
// polled (60 s, SSHELF_SYNC_POLL_SECONDS) and a folder remote gets a 5 min safety net (a share that sends no
// inotify events); a run that fell back is retried after 30 s, doubling up to 30 min, and a burst of local edits
// does not cut that short. Pure: the faces own the thread and the waiting, this owns the times, read from an
// injected clock so the rules are tested without waiting.
import FoundationEssentials

public struct SyncSchedule: Sendable {
    public enum Trigger: Sendable, Equatable {
        /// Asked for at once, with why (start, `S`, SIGUSR1, sync turned on or moved, the remote changed).
        case now(String)
        /// Something changed in the local store that the remote has not seen yet.
        case localChange
    }

    /// How a run ended, as far as the next one is concerned.
    public enum Outcome: Sendable, Equatable {
        /// It got through. `changedDuringRun`: local changes made while it ran are still to send — only when it
        /// moved something or more is pending than before, so records the engine refuses never keep runs going.
        case synced(changedDuringRun: Bool)
        /// It fell back (the remote missing or unreachable, the vault locked): retried with the backoff.
        case fellBack
        /// Another process ran it (the TUI asked the user service): this face only keeps polling.
        case handedOver
    }

    public static let debounce: TimeInterval = 2
    public static let debounceLimit: TimeInterval = 10
    public static let defaultGitPoll: TimeInterval = 60
    public static let pollVariable = "SSHELF_SYNC_POLL_SECONDS"
    public static let folderPoll: TimeInterval = 300
    public static let firstRetry: TimeInterval = 30
    public static let longestRetry: TimeInterval = 1800

    /// Seconds between polls of a git remote (nothing tells sshelf it changed).
    public let gitPoll: TimeInterval
    private let clock: @Sendable () -> Date
    /// When the next run is due (nil: only when asked), and why.
    public private(set) var due: Date?
    public private(set) var reason: String?
    /// Runs in a row that fell back.
    public private(set) var failures = 0
    /// Whether a run began and has not finished.
    public private(set) var running = false
    private var firstPending: Date?
    private var remoteChangedDuringRun = false

    public init(environment: [String: String], clock: @escaping @Sendable () -> Date = { Date() }) {
        gitPoll = Self.gitPoll(environment)
        self.clock = clock
    }

    /// SSHELF_SYNC_POLL_SECONDS when it is a number of seconds (at least 1), else 60 s.
    public static func gitPoll(_ environment: [String: String]) -> TimeInterval {
        guard let text = environment[pollVariable], let seconds = TimeInterval(text), seconds >= 1 else {
            return defaultGitPoll
        }
        return seconds
    }

    /// Whether a run is due now.
    public var isDue: Bool { due.map { $0 <= clock() } ?? false }

    public mutating func request(_ trigger: Trigger) {
        let now = clock()
        switch trigger {
        case .now(let why):
            due = now
            reason = why
            firstPending = nil
        case .localChange:
            let first = firstPending ?? now
            firstPending = first
            let wanted = min(now.addingTimeInterval(Self.debounce), first.addingTimeInterval(Self.debounceLimit))
            // After a failure the backoff stands (a burst of edits must not retry a missing remote every 2 s); the
            // change goes with the retry. A run asked for at once stays so.
            let backingOff = failures > 0 && due != nil
            if !backingOff, !(due.map { $0 <= now } ?? false) {
                due = wanted
                reason = "a local change"
            }
        }
    }

    /// A folder remote changed. During a run it may be the run's own write or a change the run read too early: one
    /// more run when this one got through (a run with nothing new writes nothing, so this settles).
    public mutating func remoteChanged() {
        if running {
            remoteChangedDuringRun = true
        } else {
            request(.now("the folder remote changed"))
        }
    }

    /// The run that is due begins: when it became due and why. The next is due only when asked or finished.
    public mutating func begin() -> (asked: Date, why: String) {
        let asked = (due ?? clock(), reason ?? "due")
        due = nil
        reason = nil
        firstPending = nil
        running = true
        return asked
    }

    /// The run that began did not happen (sync is not set up): nothing is due until asked.
    public mutating func skipped() {
        running = false
        remoteChangedDuringRun = false
    }

    /// The run that began ended: the next is due after the poll, the backoff or at once, unless something asked for
    /// an earlier one meanwhile.
    public mutating func finished(_ outcome: Outcome, transport: SyncSettings.Transport) {
        running = false
        var next: (wait: TimeInterval, why: String)
        switch outcome {
        case .fellBack:
            failures += 1
            let wait = min(Self.firstRetry * Double(1 << min(failures - 1, 10)), Self.longestRetry)
            next = (wait, "retry after a failure (backoff \(Int(wait)) s)")
        case .synced, .handedOver:
            failures = 0
            next =
                transport == .git
                ? (gitPoll, "poll the git remote") : (Self.folderPoll, "safety net for a folder that sends no events")
        }
        if remoteChangedDuringRun {
            remoteChangedDuringRun = false
            if outcome != .fellBack { next = (0, "the folder remote changed during the last run") }
        }
        if outcome == .synced(changedDuringRun: true) {
            next = (min(next.wait, Self.debounce), "local changes made during the last run")
        }
        let wanted = clock().addingTimeInterval(next.wait)
        if due.map({ $0 > wanted }) ?? true {
            due = wanted
            reason = next.why
        }
    }
}

// ServiceSync: the user service's background sync, on its own thread and store connection. A run starts when the
// service starts, about 2 s after a local change (debounced: a burst is one run, at most 10 s after the first), at
// once when a folder remote changes or something asks (SIGUSR1: the TUI, `vault unlock`), and otherwise on a timer:
// a git remote is polled (60 s, SSHELF_SYNC_POLL_SECONDS), a folder remote gets a 5 min safety net (a share that
// sends no inotify events), and a run that fell back retries with a doubling backoff (30 s up to 30 min). Between
// runs the thread waits on a condition until the next due time — a timer, never a tick. The run itself is
// SyncRunner's (one at a time per device, shared with `sync now` and the TUI; enrollment of waiting devices
// included), so a run killed half-way is what a killed `sync now` is: nothing lost, the next run resumes.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSync
import ShelfSystem

public final class ServiceSync: @unchecked Sendable {
    public enum Trigger: Sendable {
        /// Asked for at once, with why (start, a folder remote's change, SIGUSR1, sync turned on).
        case now(String)
        /// Something changed in the local store that the remote has not seen yet.
        case localChange
    }

    static let debounce: TimeInterval = 2
    static let debounceLimit: TimeInterval = 10
    static let defaultGitPoll: TimeInterval = 60
    static let pollVariable = "SSHELF_SYNC_POLL_SECONDS"
    static let folderPoll: TimeInterval = 300
    static let firstRetry: TimeInterval = 30
    static let longestRetry: TimeInterval = 1800

    private let workspace: Workspace
    private let log: @Sendable (String) -> Void
    /// Called after each change of what `snapshot()` returns (the service republishes its state file).
    private let changed: @Sendable () -> Void
    /// Counts a wake-up of this thread (the service's debug counter).
    private let woke: @Sendable () -> Void
    private let condition = Condition()
    // Guarded by `condition`.
    private var due: Date?
    private var dueReason: String?
    private var firstPending: Date?
    private var stopping = false
    private var running = false
    private var failures = 0
    private var runs = 0
    private var transport: String?
    private var remoteChangedDuringRun = false

    public init(
        workspace: Workspace, log: @escaping @Sendable (String) -> Void, changed: @escaping @Sendable () -> Void,
        woke: @escaping @Sendable () -> Void
    ) {
        self.workspace = workspace
        self.log = log
        self.changed = changed
        self.woke = woke
    }

    var gitPoll: TimeInterval {
        guard let text = workspace.environment[Self.pollVariable], let seconds = TimeInterval(text), seconds >= 1
        else { return Self.defaultGitPoll }
        return seconds
    }

    /// Whether a run is under way now.
    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return running
    }

    public func start() {
        request(.now("the service started"))
        BackgroundThread.start(name: "sshelf-service-sync") { [self] in loop() }
    }

    /// Ends the loop after the run under way (if any); `stopped` is not waited for.
    public func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    public func request(_ trigger: Trigger) {
        condition.lock()
        let now = Date()
        switch trigger {
        case .now(let why):
            due = now
            dueReason = why
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
                dueReason = "a local change"
            }
        }
        condition.signal()
        condition.unlock()
        changed()
    }

    /// A folder remote's inotify event. During a run it may be the run's own write or a change the run read too
    /// early: one more run when this one ends (a run with nothing new writes nothing, so this settles).
    public func remoteChanged() {
        condition.lock()
        let busy = running
        if busy { remoteChangedDuringRun = true }
        condition.unlock()
        if !busy { request(.now("the folder remote changed")) }
    }

    public func snapshot() -> ServiceState.Sync {
        condition.lock()
        let (due, why, busy, failures, runs, transport) = (
            self.due, dueReason, running, self.failures, self.runs, self.transport
        )
        condition.unlock()
        let last = SyncRunner.lastReport(workspace.locations)
        let off = transport == nil && (last == nil || last?.state == .off)
        let state = busy ? "syncing" : off ? "off" : due.map { $0 <= Date() } ?? false ? "waiting" : "idle"
        return ServiceState.Sync(
            state: state, transport: transport ?? last?.transport, lastRun: last?.at,
            lastResult: last.map { $0.state == .off ? "off" : $0.status.summary }, nextAttempt: due, nextReason: why,
            failures: failures, runs: runs)
    }

    private func loop() {
        let store: Store
        do { store = try workspace.openStore() } catch {
            log("sync: cannot open the store: \(error); background sync is off")
            return
        }
        while true {
            condition.lock()
            while !stopping && (due.map { $0 > Date() } ?? true) {
                if let due { _ = condition.wait(until: due) } else { condition.wait() }
                woke()
            }
            if stopping {
                condition.unlock()
                return
            }
            let asked = due ?? Date()
            let why = dueReason ?? "due"
            due = nil
            dueReason = nil
            firstPending = nil
            condition.unlock()
            guard let settings = (try? SyncSettings.load(from: store)) ?? nil else {
                condition.lock()
                transport = nil
                condition.unlock()
                changed()
                continue
            }
            run(store, settings: settings, asked: asked, why: why)
        }
    }

    private func run(_ store: Store, settings: SyncSettings, asked: Date, why: String) {
        let before = (try? SyncSettings.pendingUp(store)) ?? 0
        condition.lock()
        running = true
        transport = settings.transport.rawValue
        condition.unlock()
        changed()
        let report = SyncRun.run(workspace, store: store, asked: asked)
        let after = (try? SyncSettings.pendingUp(store)) ?? 0
        condition.lock()
        running = false
        runs += 1
        let now = Date()
        var next: (TimeInterval, String)
        if report.state == .synced {
            failures = 0
            next =
                settings.transport == .git
                ? (gitPoll, "poll the git remote") : (Self.folderPoll, "safety net for a folder that sends no events")
        } else {
            failures += 1
            let wait = min(Self.firstRetry * Double(1 << min(failures - 1, 10)), Self.longestRetry)
            next = (wait, "retry after a failure (backoff \(Int(wait)) s)")
        }
        if remoteChangedDuringRun {
            remoteChangedDuringRun = false
            if report.state == .synced { next = (0, "the folder remote changed during the last run") }
        }
        // Changes made while it ran: another run, once — only when this one got through and moved something or
        // more is pending than before, so records the engine refuses to send never keep runs going.
        if report.state == .synced, after > 0, report.pushed > 0 || after > before {
            next = (min(next.0, Self.debounce), "local changes made during the last run")
        }
        let wanted = now.addingTimeInterval(next.0)
        if due.map({ $0 > wanted }) ?? true {
            due = wanted
            dueReason = next.1
        }
        condition.unlock()
        let moved = report.pulled + report.pushed
        log(
            "sync (\(why)): \(report.status.summary)"
                + (moved > 0 ? ", \(report.pulled) received, \(report.pushed) sent" : "")
                + report.events.map { "; " + $0 }.joined())
        changed()
        // The run is over and this thread goes back to its wait: what the run read and mapped is given back.
        store.releaseCache()
        ProcessMemory.settle()
    }
}

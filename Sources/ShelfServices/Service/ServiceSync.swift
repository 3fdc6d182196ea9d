// ServiceSync: the user service's background sync, on its own thread and store connection. A run starts when the
// service starts, about 2 s after a local change (debounced: a burst is one run, at most 10 s after the first), at
// once when a folder remote changes or something asks (SIGUSR1: the TUI, `vault unlock`), and otherwise on a timer:
// a git remote is polled (60 s, SSHELF_SYNC_POLL_SECONDS), a folder remote gets a 5 min safety net (a share that
// sends no inotify events), and a run that fell back retries with a doubling backoff (30 s up to 30 min). Between
// runs the thread waits on a condition until the next due time — a timer, never a tick. The times are
// SyncSchedule's (the TUI's BackgroundSync follows the same rules); this owns the thread. The run itself is
// SyncRunner's (one at a time per device, shared with `sync now` and the TUI; enrollment of waiting devices
// included), so a run killed half-way is what a killed `sync now` is: nothing lost, the next run resumes.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSync
import ShelfSystem

public final class ServiceSync: @unchecked Sendable {
    public typealias Trigger = SyncSchedule.Trigger

    private let workspace: Workspace
    private let log: @Sendable (String) -> Void
    /// Called after each change of what `snapshot()` returns (the service republishes its state file).
    private let changed: @Sendable () -> Void
    /// Counts a wake-up of this thread (the service's debug counter).
    private let woke: @Sendable () -> Void
    private let condition = Condition()
    // Guarded by `condition`.
    private var schedule: SyncSchedule
    private var stopping = false
    private var runs = 0
    private var transport: String?

    public init(
        workspace: Workspace, log: @escaping @Sendable (String) -> Void, changed: @escaping @Sendable () -> Void,
        woke: @escaping @Sendable () -> Void
    ) {
        self.workspace = workspace
        self.log = log
        self.changed = changed
        self.woke = woke
        schedule = SyncSchedule(environment: workspace.environment)
    }

    /// Whether a run is under way now.
    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return schedule.running
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
        schedule.request(trigger)
        condition.signal()
        condition.unlock()
        changed()
    }

    /// A folder remote's inotify event (during a run: one more run when it ends, SyncSchedule.remoteChanged).
    public func remoteChanged() {
        condition.lock()
        schedule.remoteChanged()
        condition.signal()
        condition.unlock()
        changed()
    }

    public func snapshot() -> ServiceState.Sync {
        condition.lock()
        let (due, why, busy, failures, runs, transport) = (
            schedule.due, schedule.reason, schedule.running, schedule.failures, self.runs, self.transport
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
            while !stopping && !schedule.isDue {
                if let due = schedule.due { _ = condition.wait(until: due) } else { condition.wait() }
                woke()
            }
            if stopping {
                condition.unlock()
                return
            }
            let (asked, why) = schedule.begin()
            condition.unlock()
            guard let settings = (try? SyncSettings.load(from: store)) ?? nil else {
                condition.lock()
                schedule.skipped()
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
        transport = settings.transport.rawValue
        condition.unlock()
        changed()
        let report = SyncRun.run(workspace, store: store, asked: asked)
        let after = (try? SyncSettings.pendingUp(store)) ?? 0
        condition.lock()
        runs += 1
        schedule.finished(
            report.state == .synced
                ? .synced(changedDuringRun: after > 0 && (report.pushed > 0 || after > before)) : .fellBack,
            transport: settings.transport)
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

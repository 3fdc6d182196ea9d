// BackgroundSync: sync while the TUI runs, on its own thread with its own store connection, so start-up and
// browsing never wait on a slow remote. A run starts: at once when the TUI opens, when sync is turned on or pointed
// elsewhere (from any terminal), when a folder remote changes, when the remote is found missing, when the vault's
// lock state changes (LiveWatcher), and on `S`; about 2 s after a local change (debounced: a burst of edits is one
// run, at most 10 s after the first); and every poll interval otherwise (git: 60 s by default,
// SSHELF_SYNC_POLL_SECONDS; a folder remote is watched, so its interval is only a safety net of 5 min), or after
// 30 s doubling up to 30 min when the last run fell back. While a run
// is under way the status line says "syncing" (through StatusSource); afterwards it shows what the run wrote to the
// status file — or what a run another process started meanwhile wrote, which is newer (SyncRunner.run). Sync needs
// this device's keys from the vault, read without a prompt (their class is afterFirstUnlockThisDeviceOnly); a
// locked vault is a status, and a locked credential track never stops the config track. While the user service runs
// (docs/SERVICE.md), a run is asked of it instead (SIGUSR1), and the status line shows what its runs wrote. The
// times are SyncSchedule's, the user service's rules (a run that fell back is retried with the same backoff); this
// owns the thread.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync
import ShelfSystem
import ShelfUI
import ShelfVault

final class BackgroundSync: @unchecked Sendable {
    enum Trigger {
        /// The TUI opened, sync was turned on or moved, the remote went missing, the vault's lock changed, or `S`.
        case now
        /// Something changed in the local store that the remote has not seen yet.
        case localChange
    }

    private let context: AppContext
    private let status: StatusSource
    private let reload: @Sendable () -> Void
    /// Called when a run starts or ends (the watcher posts the status line at once).
    private let changed: @Sendable () -> Void
    private let condition = Condition()
    /// When the next run is due; guarded by `condition`.
    private var schedule: SyncSchedule

    init(
        context: AppContext, status: StatusSource, reload: @escaping @Sendable () -> Void,
        changed: @escaping @Sendable () -> Void
    ) {
        self.context = context
        self.status = status
        self.reload = reload
        self.changed = changed
        schedule = SyncSchedule(environment: context.environment)
    }

    func start() {
        request(.now)
        BackgroundThread.start(name: "sshelf-sync") { [self] in loop() }
    }

    /// Asks for a run: at once, or after the debounce for a local change.
    func request(_ trigger: Trigger) {
        condition.lock()
        switch trigger {
        case .now: schedule.request(.now("asked"))
        case .localChange: schedule.request(.localChange)
        }
        condition.signal()
        condition.unlock()
    }

    /// An inotify event under the folder remote (during a run: one more run when it ends, if it got through).
    func remoteChanged() {
        condition.lock()
        schedule.remoteChanged()
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        guard let store = try? TUIVault.quiet(context).openStore() else { return }
        while true {
            condition.lock()
            while !schedule.isDue {
                if let due = schedule.due { _ = condition.wait(until: due) } else { condition.wait() }
            }
            let asked = schedule.begin().asked
            condition.unlock()
            guard let settings = (try? SyncSettings.load(from: store)) ?? nil else {
                condition.lock()
                schedule.skipped()
                condition.unlock()
                continue
            }
            let outcome = runOnce(store, asked: asked)
            condition.lock()
            schedule.finished(outcome, transport: settings.transport)
            condition.unlock()
        }
    }

    /// `asked`: when the run became due. A run another process started since (a `sync now` in a terminal) answers
    /// it, and its report is kept rather than replaced by this one's older look (SyncRunner.run).
    private func runOnce(_ store: Store, asked: Date) -> SyncSchedule.Outcome {
        // The user service syncs this device: it is asked for a run (its report is the status file this line reads),
        // rather than a second process running one beside it.
        if ServiceFiles.nudge(context.locations) { return .handedOver }
        let before = (try? SyncSettings.pendingUp(store)) ?? 0
        status.setSyncRunning(true)
        changed()
        // A vault opened for the run, not the TUI's: a background run must not count as the user's use of the
        // keys unlocked here (that would hold off their idle timeout).
        let report = SyncRun.run(TUIVault.quiet(context), store: store, asked: asked)
        status.setSyncRunning(false)
        changed()
        if report.pulled > 0 { reload() }
        guard report.state == .synced else { return .fellBack }
        // Changes made while it ran (the watcher leaves them to the run).
        let after = (try? SyncSettings.pendingUp(store)) ?? 0
        return .synced(changedDuringRun: after > 0 && (report.pushed > 0 || after > before))
    }
}

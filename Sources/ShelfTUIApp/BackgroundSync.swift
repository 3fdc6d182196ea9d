// BackgroundSync: sync while the TUI runs, on its own thread with its own store connection, so start-up and
// browsing never wait on a slow remote. A run starts: at once when the TUI opens, when sync is turned on or pointed
// elsewhere (from any terminal), when a folder remote changes, when the remote is found missing, when the vault's
// lock state changes (LiveWatcher), and on `S`; about 2 s after a local change (debounced: a burst of edits is one
// run, at most 10 s after the first); and every poll interval otherwise (git: 60 s by default,
// SSHELF_SYNC_POLL_SECONDS; a folder remote is watched, so its interval is only a safety net of 5 min). While a run
// is under way the status line says "syncing" (through StatusSource); afterwards it shows what the run wrote to the
// status file — or what a run another process started meanwhile wrote, which is newer (SyncRunner.run). Sync needs
// this device's keys from the vault, read without a prompt (their class is afterFirstUnlockThisDeviceOnly); a
// locked vault is a status, and a locked credential track never stops the config track. While the user service runs
// (docs/SERVICE.md), a run is asked of it instead (SIGUSR1), and the status line shows what its runs wrote.
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
        /// The TUI opened, sync was turned on or moved, the remote changed or went missing, or `S`.
        case now
        /// Something changed in the local store that the remote has not seen yet.
        case localChange
    }

    /// Debounce of local changes, and the longest a burst of them may hold a run back.
    static let debounce: TimeInterval = 2
    static let debounceLimit: TimeInterval = 10
    /// Polling of a git remote (nothing tells sshelf it changed), overridable with SSHELF_SYNC_POLL_SECONDS.
    static let defaultGitPoll: TimeInterval = 60
    static let pollVariable = "SSHELF_SYNC_POLL_SECONDS"
    /// A folder remote is watched (inotify); this is only the safety net for a share that sends no events.
    static let folderPoll: TimeInterval = 300

    private let context: AppContext
    private let status: StatusSource
    private let reload: @Sendable () -> Void
    /// Called when a run starts or ends (the watcher posts the status line at once).
    private let changed: @Sendable () -> Void
    private let condition = Condition()
    /// When the next run is due (nil: only when asked); guarded by `condition`.
    private var due: Date?
    private var firstPending: Date?

    init(
        context: AppContext, status: StatusSource, reload: @escaping @Sendable () -> Void,
        changed: @escaping @Sendable () -> Void
    ) {
        self.context = context
        self.status = status
        self.reload = reload
        self.changed = changed
    }

    /// Seconds between runs for a git remote.
    var gitPoll: TimeInterval {
        guard let text = context.environment[Self.pollVariable], let seconds = TimeInterval(text), seconds >= 1 else {
            return Self.defaultGitPoll
        }
        return seconds
    }

    func start() {
        request(.now)
        BackgroundThread.start(name: "sshelf-sync") { [self] in loop() }
    }

    /// Asks for a run: at once, or after the debounce for a local change.
    func request(_ trigger: Trigger) {
        condition.lock()
        let now = Date()
        switch trigger {
        case .now:
            due = now
            firstPending = nil
        case .localChange:
            let first = firstPending ?? now
            firstPending = first
            // Each change moves the run to 2 s after it (up to the limit); a run already due at once stays so.
            let wanted = min(now.addingTimeInterval(Self.debounce), first.addingTimeInterval(Self.debounceLimit))
            if !(due.map { $0 <= now } ?? false) { due = wanted }
        }
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        guard let store = try? TUIVault.quiet(context).openStore() else { return }
        while true {
            condition.lock()
            while due.map({ $0 > Date() }) ?? true {
                if let due { _ = condition.wait(until: due) } else { condition.wait() }
            }
            let asked = due ?? Date()
            due = nil
            firstPending = nil
            condition.unlock()
            guard let settings = (try? SyncSettings.load(from: store)) ?? nil else { continue }
            runOnce(store, asked: asked)
            condition.lock()
            // The next poll, unless something asked for an earlier run meanwhile.
            let poll = Date().addingTimeInterval(settings.transport == .git ? gitPoll : Self.folderPoll)
            due = min(due ?? poll, poll)
            condition.unlock()
        }
    }

    /// `asked`: when the run became due. A run another process started since (a `sync now` in a terminal) answers
    /// it, and its report is kept rather than replaced by this one's older look (SyncRunner.run).
    private func runOnce(_ store: Store, asked: Date) {
        // The user service syncs this device: it is asked for a run (its report is the status file this line reads),
        // rather than a second process running one beside it.
        if ServiceFiles.nudge(context.locations) { return }
        let before = (try? SyncSettings.pendingUp(store)) ?? 0
        status.setSyncRunning(true)
        changed()
        // A vault opened for the run, not the TUI's: a background run must not count as the user's use of the
        // keys unlocked here (that would hold off their idle timeout).
        let report = SyncRun.run(TUIVault.quiet(context), store: store, asked: asked)
        status.setSyncRunning(false)
        changed()
        if report.pulled > 0 { reload() }
        // Changes made while it ran (the watcher leaves them to the run): another run, once. Only when this one
        // got through and moved something or more is pending than before, so records the engine refuses to send
        // never keep runs going.
        let after = (try? SyncSettings.pendingUp(store)) ?? 0
        if report.state == .synced, after > 0, report.pushed > 0 || after > before { request(.localChange) }
    }
}

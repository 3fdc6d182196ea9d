// LiveWatcher: the one thread that notices, within a second, what other processes changed, and tells the run loop
// through the mailbox — so the screen never shows yesterday's truth and `r` is never needed:
// - the store: SQLite's data version (shared memory, no table read) four times a second; a change reloads the
//   catalog, and pending local changes ask sync for a run (debounced there);
// - sync: its settings (turned on, off or moved from any terminal) and the status file another `sync now` wrote;
//   a folder remote is watched with inotify (a change from another device syncs at once) and checked with a stat
//   each second, as is a git remote that is a local path (missing: the fallback shows at once, and a run says why);
// - the vault: its state (a `sshelf vault unlock` or `lock` elsewhere lives in the kernel keyring, which sends no
//   event: read each second, a few cheap queries; a change asks sync for a run at once), the idle relock of this
//   process's keys, and its item names (the vault file changing reloads the catalog for "not synced to this
//   device").
// - ~/.ssh/config: there to import, or changed since its import (UserConfigWatch), with the vault's checks.
// The forward supervisor's state is read by ForwardChildren at each tick of the run loop.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfServices
import ShelfStore
import ShelfSync
import ShelfSystem
import ShelfUI

final class LiveWatcher: @unchecked Sendable {
    /// How often the cheap checks run when nothing wakes the thread earlier.
    static let interval: Int32 = 250
    /// Deepest folder level of a folder remote that gets its own watch.
    static let watchDepth = 4

    private let context: AppContext
    private let mailbox: Mailbox
    private let vault: TUIVault
    private let status: StatusSource
    private let sync: BackgroundSync?
    private let wakeUp = WakePipe()

    /// `sync` is nil when background sync is off (the test hook replaces its state).
    init(context: AppContext, mailbox: Mailbox, vault: TUIVault, status: StatusSource, sync: BackgroundSync?) {
        self.context = context
        self.mailbox = mailbox
        self.vault = vault
        self.status = status
        self.sync = sync
    }

    /// Takes the first look at once, on the caller's thread, so a change committed between this call and the
    /// catalog's first load is still seen as new (call it before the first load); then watches on its own thread.
    func start() {
        /// The connection and what it saw, handed to the thread (which alone uses them from then on).
        final class FirstLook: @unchecked Sendable {
            let store: Store?
            var state = Seen()
            init(_ store: Store?) { self.store = store }
        }
        let first = FirstLook(try? Store(path: context.locations.store))
        if let store = first.store { checkStore(store, &first.state) }
        checkUserConfig(first.store, &first.state)
        BackgroundThread.start(name: "sshelf-watch") { [self] in loop(first.store, first.state) }
    }

    /// Look again now (a sync run started or ended).
    func wake() { wakeUp.signal() }

    private func loop(_ store: Store?, _ first: Seen) {
        var state = first
        let notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var lastSlow = Date.distantPast
        while true {
            var fds = [
                pollfd(fd: notify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeUp.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&fds, 2, Self.interval)
            let remoteEvent = fds[0].revents != 0 && WakePipe.drain(notify)
            // Woken on purpose (a run started or ended, the vault was locked): every check, now.
            if fds[1].revents != 0, wakeUp.drain() { lastSlow = .distantPast }
            if let store { checkStore(store, &state) }
            // The folder remote's watches follow the settings (and new subfolders).
            let folder = state.settings.flatMap { $0.transport == .folder ? $0.location : nil }
            if folder != state.watched || remoteEvent {
                if let folder { Self.watch(folder, notify: notify) }
                state.watched = folder
            }
            // Another device wrote to the folder remote — or the TUI's own run did (its writes raise events too,
            // perhaps delivered after it ended): the schedule runs at once, or once more after a run under way that
            // may have read the folder too early (SyncSchedule.remoteChanged); a quiet run writes nothing, so it
            // settles.
            if remoteEvent, folder != nil { sync?.remoteChanged() }
            if Date().timeIntervalSince(lastSlow) >= 1 {
                lastSlow = Date()
                checkRemote(&state)
                checkVault(&state)
                checkUserConfig(store, &state)
            }
            checkStatusFile(&state)
            postStatus(store, &state)
        }
    }

    /// What the last look saw.
    private struct Seen {
        var dataVersion: Int?
        var settings: SyncSettings?
        /// The sync runs as the last look saw them.
        var runsSeen = (running: false, started: 0)
        /// The folder remote the inotify watches were set up for (nil: watch it again, e.g. it came back).
        var watched: String?
        var statusFile: FileStamp?
        var serviceFile: FileStamp?
        var vaultFiles: [FileStamp?] = []
        var vaultFailure: String?
        var remoteMissing = false
        /// A run of the TUI's was under way at the last look (its end changes the sync part of the status line).
        var syncWasRunning = false
        /// Something the sync state depends on changed since it was last read.
        var syncDirty = true
        var sync: SyncIndicator?
        var syncNotes: [SyncNote] = []
        var vault: VaultIndicator?
        var posted: StatusModel?
        var userConfig: UserConfigWatch?
    }

    /// ~/.ssh/config: there to import, or changed since its import (once a second, and in the first look).
    private func checkUserConfig(_ store: Store?, _ state: inout Seen) {
        var watch = state.userConfig ?? UserConfigWatch(workspace: TUIVault.quiet(context))
        if let found = watch.check(store: store, dataVersion: state.dataVersion) { mailbox.post(.userConfig(found)) }
        state.userConfig = watch
    }

    private func checkStore(_ store: Store, _ state: inout Seen) {
        let version = try? store.dataVersion()
        // Read after the data version: a run that wrote what it shows had started (and been counted) by then.
        let runs = status.syncRuns
        defer { state.runsSeen = (runs.running, runs.started) }
        guard let version, version != state.dataVersion else { return }
        // The TUI's own sync run wrote (one under way, or one that started or ran since the last look).
        let ownRun = runs.running || state.runsSeen.running || runs.started != state.runsSeen.started
        let first = state.dataVersion == nil
        state.dataVersion = version
        state.syncDirty = true
        if !first { mailbox.post(.storeChanged) }
        let settings = (try? SyncSettings.load(from: store)) ?? nil
        if settings != state.settings {
            state.settings = settings
            state.remoteMissing = false
            status.setRemoteMissing(nil)
            if !first, settings != nil { sync?.request(.now) }
        }
        // Someone else changed something the remote has not seen: a run (debounced). The run's own writes never
        // ask for another run; what changed while it ran, it reschedules itself.
        if settings != nil, !first, !ownRun, ((try? SyncSettings.pendingUp(store)) ?? 0) > 0 {
            sync?.request(.localChange)
        }
    }

    /// A quick look at the remote between runs: a folder (or a git remote on a local path) that is gone shows as
    /// the fallback at once, and a run is started so the status file says why too.
    private func checkRemote(_ state: inout Seen) {
        guard let settings = state.settings, let path = Self.localPath(settings) else { return }
        var info = stat()
        let missing = stat(path, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR
        guard missing != state.remoteMissing else { return }
        state.remoteMissing = missing
        state.syncDirty = true
        // Back (perhaps a new folder under the old name): the old watches belong to whatever moved away.
        if !missing { state.watched = nil }
        let what = settings.transport == .folder ? "sync folder" : "git remote"
        status.setRemoteMissing(missing ? "\(what) \(path) not found" : nil)
        sync?.request(.now)
    }

    private func checkStatusFile(_ state: inout Seen) {
        let running = status.isSyncRunning
        let stamp = FileStamp(SyncRunner.statusFile(context.locations))
        // The user service's state file says when its run starts and ends.
        let service = FileStamp(ServiceFiles.statePath(context.locations))
        if running != state.syncWasRunning || stamp != state.statusFile || service != state.serviceFile {
            state.syncDirty = true
        }
        state.syncWasRunning = running
        state.statusFile = stamp
        state.serviceFile = service
    }

    private func checkVault(_ state: inout Seen) {
        vault.relockIfIdle()
        let indicator = vault.indicator()
        // The lock state changed (`V`, `vault unlock` or `lock` elsewhere, the idle relock): what the last run said
        // about the vault may no longer hold, so the sync part says so at once and a run tells the truth now.
        if let before = state.vault, before != indicator, let sync {
            status.vaultLockChanged()
            sync.request(.now)
            state.syncDirty = true
        }
        state.vault = indicator
        let files = [context.locations.vault, context.locations.vault + "-wal"].map(FileStamp.init)
        if files != state.vaultFiles {
            if !state.vaultFiles.isEmpty { mailbox.post(.storeChanged) }
            state.vaultFiles = files
        }
        let failure = vault.failure()
        if failure?.message != state.vaultFailure {
            state.vaultFailure = failure?.message
            if let failure { mailbox.post(.vaultFailed(failure.message, hint: failure.hint)) }
        }
    }

    /// Posts the status line's model when it differs from the last one posted. The sync part is read again only
    /// when something it depends on changed; the vault part comes from `checkVault` (once a second).
    private func postStatus(_ store: Store?, _ state: inout Seen) {
        if state.syncDirty {
            let read = status.current(store: store, vault: .notSetUp)
            state.sync = read.sync
            state.syncNotes = read.syncNotes
            state.syncDirty = false
        }
        guard let vault = state.vault, let sync = state.sync else { return }
        let model = StatusModel(sync: sync, vault: vault, syncNotes: state.syncNotes)
        guard model != state.posted else { return }
        state.posted = model
        mailbox.post(.status(model))
    }

    // MARK: helpers

    /// The folder a remote lives in on this machine, if it is one (a folder, or a git URL that is a local path).
    static func localPath(_ settings: SyncSettings) -> String? {
        switch settings.transport {
        case .folder: return settings.location
        case .git:
            if settings.location.hasPrefix("file://") { return String(settings.location.dropFirst(7)) }
            return settings.location.hasPrefix("/") ? settings.location : nil
        }
    }

    /// Watches `folder` and its subfolders (adding a watch twice is harmless: the kernel keeps one).
    static func watch(_ folder: String, notify: Int32) {
        guard notify >= 0 else { return }
        let mask = UInt32(
            IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO
                | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB)
        var pending = [(folder, 0)]
        while let (path, depth) = pending.popLast() {
            guard inotify_add_watch(notify, path, mask) >= 0, depth < watchDepth else { continue }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                var info = stat()
                let child = path + "/" + name
                if lstat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { pending.append((child, depth + 1)) }
            }
        }
    }
}

/// Size, modification time and inode of a file: a cheap "did it change" without reading it.
struct FileStamp: Equatable {
    var size: Int
    var seconds: Int
    var nanoseconds: Int
    var inode: UInt

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
        inode = UInt(info.st_ino)
    }
}

// StatusSource: the status line's truth — the sync state from this device's settings and the last run's report
// (`syncing` while the TUI's own run is under way, and from the moment the vault's lock state changes until a run
// started after that change has ended, so a "vault locked" reason never outlives the lock; the fallback reason at
// once when a quick check between runs finds the remote missing, so the line never says "synced" for a remote that
// is gone), and the vault's state from the TUI's vault (never a guess; a broken vault says so and browsing goes on).
// Also the test-only hook SSHELF_TEST_SYNC_STATUS, documented in docs/TUI.md.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSync
import ShelfUI
import ShelfVault

final class StatusSource: @unchecked Sendable {
    /// TEST ONLY: `synced`, `synced:SECONDS-AGO`, `syncing`, `off` or `fallback:REASON` replaces the sync state.
    /// It changes only what the status line says, never what is stored or synced.
    static let testHookVariable = "SSHELF_TEST_SYNC_STATUS"

    private let context: AppContext
    private let vault: TUIVault
    private let lock = Lock()
    private var syncRunning = false
    private var runs = 0
    private var remoteMissing: String?
    private var vaultFreshness = VaultFreshness()

    init(context: AppContext, vault: TUIVault) {
        self.context = context
        self.vault = vault
    }

    /// BackgroundSync: a run started or ended.
    func setSyncRunning(_ running: Bool) {
        lock.lock()
        syncRunning = running
        if running {
            runs += 1
            vaultFreshness.runStarted()
        } else {
            vaultFreshness.runEnded()
        }
        lock.unlock()
    }

    /// LiveWatcher: the vault's lock state changed (and a run was asked for): the last report may describe the
    /// vault as it was, so the line says "syncing" until a run that started after now has ended.
    func vaultLockChanged() {
        lock.lock()
        vaultFreshness.vaultChanged()
        lock.unlock()
    }

    /// LiveWatcher: the quick check found the remote missing (the reason), or there again (nil).
    func setRemoteMissing(_ reason: String?) {
        lock.lock()
        remoteMissing = reason
        lock.unlock()
    }

    /// Whether the TUI's own sync run is under way.
    var isSyncRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return syncRunning
    }

    /// Whether a run is under way, and how many have started: the watcher tells the store changes of the TUI's
    /// own runs (never a reason for another run) from everyone else's.
    var syncRuns: (running: Bool, started: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (syncRunning, runs)
    }

    /// `store` is the calling thread's connection (SQLite connections here are single-threaded); `vault`, when
    /// given, is a vault state the caller already read.
    func current(store: Store?, vault known: VaultIndicator? = nil, now: Date = Date()) -> StatusModel {
        let sync = syncIndicator(store)
        var model = StatusModel(
            sync: sync, vault: known ?? vault.indicator(),
            syncNotes: sync == .off ? [] : SyncFileNotes.read(context.locations, beside: sync))
        if let hook = context.environment[Self.testHookVariable], let sync = Self.parseTestHook(hook, now: now) {
            model.sync = sync
        }
        return model
    }

    /// Off when this device has no sync settings; syncing while a run is under way (or before the first run of a
    /// fresh setup: the TUI starts one at once); otherwise what the last run left, unless the remote has gone
    /// missing since.
    func syncIndicator(_ store: Store?) -> SyncIndicator {
        guard let store, (try? SyncSettings.load(from: store)) != nil else { return .off }
        lock.lock()
        let (running, missing, stale) = (syncRunning, remoteMissing, vaultFreshness.stale)
        lock.unlock()
        // A run of the user service's is under way (its state file; docs/SERVICE.md).
        let serviceRunning = ServiceFiles.running(context.locations)?.sync.state == "syncing"
        return Self.syncIndicator(
            running: running || serviceRunning, remoteMissing: missing, vaultChanged: stale,
            last: SyncRunner.lastReport(context.locations).map { SyncIndicator($0.status) })
    }

    /// The rule, for sync on: a run under way, or a report the vault's lock change made stale (a run is on its
    /// way), is `syncing`; a missing remote is its fallback at once; else what the last run's report says (none yet:
    /// the TUI starts one at once).
    static func syncIndicator(running: Bool, remoteMissing: String?, vaultChanged: Bool, last: SyncIndicator?)
        -> SyncIndicator
    {
        if running || vaultChanged { return .syncing }
        if let remoteMissing { return .localFallback(reason: remoteMissing) }
        return last ?? .syncing
    }

    static func parseTestHook(_ text: String, now: Date) -> SyncIndicator? {
        let (word, rest) = text.split(separator: ":", maxSplits: 1).map(String.init).splitFirst()
        switch word {
        case "off": return .off
        case "syncing": return .syncing
        case "synced": return .synced(at: now.addingTimeInterval(-(TimeInterval(rest ?? "") ?? 120)))
        case "fallback": return .localFallback(reason: rest ?? "unknown reason")
        default: return nil
        }
    }
}

/// Whether the last report still describes the vault as it is. A change of the lock state (`V`, `vault unlock` or
/// `lock` elsewhere, the idle relock) makes it stale until a run that *started after the change* has ended: a run
/// already under way may have read the vault before it.
struct VaultFreshness: Equatable {
    private(set) var stale = false
    private var staleRunStarted = false

    mutating func vaultChanged() {
        stale = true
        staleRunStarted = false
    }

    mutating func runStarted() {
        if stale { staleRunStarted = true }
    }

    mutating func runEnded() {
        guard staleRunStarted else { return }
        stale = false
        staleRunStarted = false
    }
}

extension SyncIndicator {
    /// The status line's view of the sync engine's state.
    init(_ status: SyncStatus) {
        switch status {
        case .off: self = .off
        case .syncing: self = .syncing
        case .synced(let at, _, _): self = .synced(at: at)
        case .localFallback(let reason): self = .localFallback(reason: reason)
        }
    }
}

extension Array where Element == String {
    fileprivate func splitFirst() -> (String, String?) { (first ?? "", count > 1 ? self[1] : nil) }
}

/// What the last run's report says beside the state — merge conflicts not looked at yet, this device waiting to be
/// enrolled or revoked, the credential track's notice — read from the status file's own fields (`conflicts`,
/// `membership`, `notice`), each optional: a report without them (an older sync) has nothing to add.
enum SyncFileNotes {
    private struct Fields: Decodable {
        var conflicts: Int?
        var membership: String?
        var notice: String?
    }

    /// `beside`: the state the line shows; a note that would repeat its fallback reason is left out.
    static func read(_ locations: DataLocations, beside state: SyncIndicator = .off) -> [SyncNote] {
        guard let data = FileManager.default.contents(atPath: SyncRunner.statusFile(locations)),
            let fields = try? JSONDecoder().decode(Fields.self, from: data)
        else { return [] }
        return notes(fields.conflicts ?? 0, membership: fields.membership, notice: fields.notice, beside: state)
    }

    static func notes(_ conflicts: Int, membership: String?, notice: String?, beside state: SyncIndicator = .off)
        -> [SyncNote]
    {
        var notes: [SyncNote] = []
        // The fallback reason already says "revoked by NAME on DATE" or "waiting to be enrolled (invited by NAME)";
        // saying it twice would push the vault's state off the line.
        var reason = ""
        if case .localFallback(let text) = state { reason = text }
        switch membership {
        case "waiting" where !reason.hasPrefix("waiting to be enrolled"):
            notes.append(SyncNote("waiting to be enrolled by another device", .warning))
        case "revoked" where !reason.hasPrefix("revoked"):
            notes.append(SyncNote("this device was revoked from the sync group", .error))
        default: break
        }
        if conflicts > 0 {
            notes.append(
                SyncNote("\(conflicts) merge conflict\(conflicts == 1 ? "" : "s"): C lists them", .warning))
        }
        if let notice, !notice.isEmpty { notes.append(SyncNote(Display.safe(notice), .info)) }
        return notes
    }
}

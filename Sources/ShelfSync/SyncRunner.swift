// SyncRunner: one complete sync for this device — read the settings, run the transport and the engine, and save
// the resulting report (synced, or local fallback with the real reason). Never throws: a broken remote or vault is
// a status, not a crash. Also the transport around `sync join`.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfStore
import ShelfSystem
import ShelfVault

public enum SyncRunner {
    public static func statusFile(_ locations: DataLocations) -> String {
        locations.stateDirectory + "/sync-status.json"
    }

    public static func gitWorkingCopy(_ locations: DataLocations) -> String { locations.syncWorkingCopy + "/git" }

    /// The warning a run that removed format-1 files from a git remote gives: git keeps them in its history. The
    /// fix is spelled out to the last step (git filter-repo drops `origin`, so it is added back before the push);
    /// the other devices' working copies take the rewritten history on their next pull.
    static func gitHistoryWarning(url: String) -> String {
        "the git history still holds the old plaintext records; to remove them, rewrite it from a fresh clone: "
            + gitHistoryFix(url: url)
            + " (the git host may keep the old objects a while) — or create a new repository and point every device "
            + "at it ('sshelf sync enable --git NEW-URL')"
    }

    static func gitHistoryFix(url: String) -> String {
        let quoted = ShellWord.quote(url)
        return "git clone \(quoted) sshelf-rewrite && cd sshelf-rewrite && git filter-repo --invert-paths --path-glob "
            + "'devices/*/config/*' "
            + "--path-glob 'devices/*/device.json' --path-glob 'devices/*/credentials/*' && git remote add origin "
            + "\(quoted) "
            + "&& git push --force --all origin"
    }

    /// One run, after any other run of this device has ended. Its report's time is when it started, taken once it
    /// holds the lock, so the saved reports follow the order the runs really happened in. `asked` is when the caller
    /// wanted a run (the TUI's background sync): a run that started since — a `sync now` in another terminal the
    /// caller waited for — already answers it, and its report stands instead of being replaced by an older look.
    public static func run(
        store: Store, locations: DataLocations, deviceName: String, vault: Result<Vault, VaultError>,
        revoke: UUID? = nil, now: Date? = nil, asked: Date? = nil
    ) -> SyncReport {
        withRunLock(locations) {
            if let asked, let last = lastReport(locations), last.state != .off, startedSince(asked, last) {
                return last
            }
            return runLocked(
                store: store, locations: locations, deviceName: deviceName, vault: vault, revoke: revoke,
                now: now ?? Date())
        }
    }

    /// Whether `report`'s run started at or after `asked`, at the millisecond the status file keeps (rounded there).
    static func startedSince(_ asked: Date, _ report: SyncReport) -> Bool {
        Int64((report.at.timeIntervalSince1970 * 1000).rounded())
            >= Int64((asked.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// One run at a time per device (a CLI `sync now` while the TUI syncs in the background waits for it): two
    /// runs at once would give two entries one number.
    static func withRunLock<T>(_ locations: DataLocations, _ body: () throws -> T) rethrows -> T {
        try? PrivateFiles.ensureDirectory(locations.stateDirectory)
        let fd = open(
            locations.stateDirectory + "/sync.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        return try body()
    }

    static func runLocked(
        store: Store, locations: DataLocations, deviceName: String, vault: Result<Vault, VaultError>,
        revoke: UUID?, now: Date
    ) -> SyncReport {
        var report: SyncReport
        do {
            guard let settings = try SyncSettings.load(from: store) else {
                report = SyncReport(state: .off, at: now)
                save(report, locations)
                return report
            }
            report = SyncReport(state: .synced, at: now)
            report.transport = settings.transport.rawValue
            report.location = settings.location
            do {
                let opened: Vault
                switch vault {
                case .success(let value): opened = value
                case .failure(let error): throw SyncSession.failure(error)
                }
                try withRemote(settings, store: store, locations: locations) { remote in
                    try SyncEngine(
                        store: store, remote: remote, vault: opened, deviceName: deviceName, now: now, revoke: revoke
                    )
                    .run(report: &report)
                }
                if report.removedFormatOne > 0 && settings.transport == .git {
                    report.warnings.append(gitHistoryWarning(url: settings.location))
                }
            } catch let failure as SyncFailure {
                report.fail(failure)
            }
            // Whatever stopped the run, the status line keeps telling what this device knows without the remote: its
            // unseen conflicts, and its place in the group.
            report.conflicts = try store.unseenConflictCount()
            if report.membership == nil { report.membership = try GroupInfo.membership(store) }
        } catch {
            report = SyncReport(state: .localFallback, at: now, reason: "local store error during sync: \(error)")
        }
        save(report, locations)
        return report
    }

    /// Runs `body` on the remote's folder: the folder itself, or a git working copy pulled before and committed and
    /// pushed after (even when `body` failed part-way, so what it wrote is not left behind).
    static func withRemote(
        _ settings: SyncSettings, store: Store, locations: DataLocations, _ body: (FolderRemote) throws -> Void
    ) throws {
        switch settings.transport {
        case .folder:
            try body(FolderRemote(path: settings.location))
        case .git:
            let git = GitRemote(url: settings.location, workingCopy: gitWorkingCopy(locations))
            try git.pull()
            var failure: Error?
            do { try body(FolderRemote(path: git.workingCopy)) } catch { failure = error }
            try git.commitAndPush(device: try store.deviceID)
            if let failure { throw failure }
        }
    }

    /// `sync join`: opens the invite on the remote and leaves this device's claim (pushed at once for git).
    public static func join(
        code: InviteCode, store: Store, locations: DataLocations, deviceName: String, vault: Vault,
        now: Date = Date()
    ) throws -> Join.Result {
        guard let settings = try SyncSettings.load(from: store) else { throw SyncFailure("sync is off on this device") }
        var result: Join.Result?
        try withRunLock(locations) {
            try withRemote(settings, store: store, locations: locations) { remote in
                result = try Join.run(
                    code: code, store: store, vault: vault, remote: remote, deviceName: deviceName, now: now)
            }
        }
        guard let result else { throw SyncFailure("the invite could not be read") }
        return result
    }

    /// The folder to read the remote from without syncing (`sync devices`): the folder, or the git working copy.
    public static func localFolder(_ settings: SyncSettings, _ locations: DataLocations) -> FolderRemote {
        FolderRemote(path: settings.transport == .folder ? settings.location : gitWorkingCopy(locations))
    }

    static func save(_ report: SyncReport, _ locations: DataLocations) {
        guard let data = try? ShelfJSON.encoder(pretty: true).encode(report) else { return }
        try? PrivateFiles.ensureDirectory(locations.stateDirectory)
        try? PrivateFiles.atomicWrite(data, to: statusFile(locations))
    }

    /// Marks every merge conflict seen and says so in the saved report, so the status line drops them at once
    /// (not at the next run). Returns how many were marked.
    public static func markConflictsSeen(store: Store, locations: DataLocations) throws -> Int {
        let marked = try store.write { try $0.markConflictsSeen() }
        try refreshConflictCount(store: store, locations: locations)
        return marked
    }

    /// The saved report's count of unseen conflicts made true now (one was seen or settled).
    public static func refreshConflictCount(store: Store, locations: DataLocations) throws {
        if var report = lastReport(locations), report.conflicts != 0 {
            report.conflicts = try store.unseenConflictCount()
            withRunLock(locations) { save(report, locations) }
        }
    }

    /// The last saved report, if any.
    public static func lastReport(_ locations: DataLocations) -> SyncReport? {
        guard let data = FileManager.default.contents(atPath: statusFile(locations)) else { return nil }
        return try? ShelfJSON.decoder().decode(SyncReport.self, from: data)
    }
}

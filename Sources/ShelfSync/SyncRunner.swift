// SyncRunner: one complete sync for this device — read the settings, run the transport and the engine, and
// save the resulting report (synced, or local fallback with the real reason). Never throws: a broken remote
// is a status, not a crash.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSystem

public enum SyncRunner {
    public static func statusFile(_ locations: DataLocations) -> String { locations.stateDirectory + "/sync-status.json" }

    public static func gitWorkingCopy(_ locations: DataLocations) -> String { locations.syncWorkingCopy + "/git" }

    public static func run(store: Store, locations: DataLocations, deviceName: String, credentials: CredentialSync? = nil,
                           now: Date = Date()) -> SyncReport {
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
                switch settings.transport {
                case .folder:
                    try SyncEngine(store: store, remote: FolderRemote(path: settings.location), deviceName: deviceName,
                                   credentials: credentials).run(report: &report)
                case .git:
                    let git = GitRemote(url: settings.location, workingCopy: gitWorkingCopy(locations))
                    try git.pull()
                    // Commit and push what the config track wrote even when the credential track then fails.
                    var failure: Error?
                    do {
                        try SyncEngine(store: store, remote: FolderRemote(path: git.workingCopy), deviceName: deviceName,
                                       credentials: credentials).run(report: &report)
                    } catch { failure = error }
                    try git.commitAndPush(device: try store.deviceID)
                    if let failure { throw failure }
                }
            } catch let failure as SyncFailure {
                report.state = .localFallback
                report.reason = failure.reason
            }
        } catch {
            report = SyncReport(state: .localFallback, at: now, reason: "local store error during sync: \(error)")
        }
        save(report, locations)
        return report
    }

    static func save(_ report: SyncReport, _ locations: DataLocations) {
        guard let data = try? ShelfJSON.encoder(pretty: true).encode(report) else { return }
        try? PrivateFiles.ensureDirectory(locations.stateDirectory)
        try? PrivateFiles.atomicWrite(data, to: statusFile(locations))
    }

    /// The last saved report, if any.
    public static func lastReport(_ locations: DataLocations) -> SyncReport? {
        guard let data = FileManager.default.contents(atPath: statusFile(locations)) else { return nil }
        return try? ShelfJSON.decoder().decode(SyncReport.self, from: data)
    }
}

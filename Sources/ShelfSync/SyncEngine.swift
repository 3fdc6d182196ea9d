// SyncEngine: one sync run over a folder layout — pull every other device's unseen batches and merge them by
// last-writer-wins, then push this device's new changes as one immutable batch. Bad remote files are
// skipped with a reason; nothing local is ever lost because of them.
import Foundation
import ShelfCore
import ShelfStore

public struct SyncEngine {
    public let store: Store
    public let remote: FolderRemote
    public let deviceName: String
    public let credentials: CredentialSync?

    public init(store: Store, remote: FolderRemote, deviceName: String, credentials: CredentialSync? = nil) {
        self.store = store
        self.remote = remote
        self.deviceName = deviceName
        self.credentials = credentials
    }

    /// Runs pull then push of the config track, then the credential track when it is on. Throws SyncFailure
    /// when the remote cannot be used, or the credential track cannot run (the config track has synced then).
    public func run(report: inout SyncReport) throws {
        try remote.check()
        let device = try store.deviceID
        try remote.prepare(device: DeviceInfo(id: device, name: deviceName))
        try pull(device: device, report: &report)
        try push(device: device, report: &report)
        if let credentials {
            report.credentials = true
            try credentials.run(remote: remote, store: store, device: device, report: &report)
        }
    }

    func pull(device: String, report: inout SyncReport) throws {
        for (folder, info) in remote.otherDevices(except: device) {
            if case .failure(let failure) = info {
                report.skipped.append(failure.reason)
                continue
            }
            for batch in remote.batches(of: folder) where try !store.hasSeen(device: folder, batch: batch) {
                let records: [SyncRecord]
                do { records = try remote.readBatch(device: folder, name: batch) } catch {
                    // Not marked seen: a file still being copied in by a sync tool is read next time.
                    report.skipped.append(error.reason)
                    continue
                }
                try store.write { store in
                    for record in records {
                        switch try store.apply(record) {
                        case .applied: report.pulled += 1
                        case .kept: break
                        case .skipped(let why): report.skipped.append("devices/\(folder)/config/\(batch): \(why)")
                        }
                    }
                    try store.markSeen(device: folder, batch: batch)
                }
            }
        }
    }

    func push(device: String, report: inout SyncReport) throws {
        try store.write { store in
            let changes = try store.localChanges(after: try SyncSettings.exportedWatermark(store))
            guard let last = changes.last else { return }
            _ = try remote.writeBatch(changes, device: device)
            try SyncSettings.setExportedWatermark(last.stamp, store)
            report.pushed += changes.count
        }
    }
}

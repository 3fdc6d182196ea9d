// CredentialSync: the credential track of one sync run — move eligible device-only items into their syncable
// classes (an idempotent pass on every run, no "migrated" marker anywhere), merge other devices' sealed
// batches into the vault by last-writer-wins, and upload this device's syncable items when they changed.
import Foundation
import ShelfCore
import ShelfStore
import ShelfVault

public struct CredentialSync {
    public let vault: Vault

    public init(vault: Vault) { self.vault = vault }

    /// Item families that follow the user to other devices once credential sync is on. The sync key never does.
    static let eligibleFamilies: Set<ReferenceKey.Secret> = [.password, .remember, .privkey, .passphrase]

    /// Fails (the config track has already synced) when the key is missing or the vault is locked.
    func syncKey() throws(SyncFailure) -> SecretBytes {
        switch vault.loadSyncKey(class: .afterFirstUnlockThisDeviceOnly) {
        case .found(let key): return key
        case .notStored:
            throw SyncFailure("sync key missing on this device",
                              hint: "run 'sshelf sync join' and type the join code shown on your first device")
        case .locked:
            throw Self.locked
        case .storedInOtherClass(let other):
            throw SyncFailure("the sync key is stored as \(other), not afterFirstUnlockThisDeviceOnly", hint: "run 'sshelf vault audit'")
        case .vaultUnavailable(let reason):
            throw SyncFailure("vault unavailable: \(reason)")
        }
    }

    static let locked = SyncFailure("vault locked (credential track paused while config keeps syncing)",
                                    hint: "run 'sshelf vault unlock', or 'sshelf sync now --passphrase-fd N'")

    static func failure(_ error: VaultError) -> SyncFailure {
        error.kind == .locked ? locked : SyncFailure("vault unavailable: \(error.message)")
    }

    func run(remote: FolderRemote, store: Store, device: String, report: inout SyncReport) throws {
        let key = try syncKey()
        report.migrated = try migrate()
        try recordDeletions(store: store)
        try pull(remote: remote, store: store, device: device, key: key, report: &report)
        try push(remote: remote, store: store, device: device, key: key, report: &report)
    }

    /// Rewrites eligible device-only items into their syncable twin class. Idempotent: with nothing left to
    /// move it reads the item list and returns 0.
    func migrate() throws(SyncFailure) -> Int {
        var moved = 0
        do {
            for info in try vault.items() {
                guard let key = ReferenceKey(info.key), Self.eligibleFamilies.contains(key.secret),
                      let current = info.knownClass, let twin = current.syncableTwin else { continue }
                if try vault.reclassify(key, from: current, to: twin) { moved += 1 }
            }
        } catch {
            throw Self.failure(error)
        }
        return moved
    }

    func pull(remote: FolderRemote, store: Store, device: String, key: SecretBytes, report: inout SyncReport) throws {
        for (folder, info) in remote.otherDevices(except: device) {
            guard case .success = info else { continue }  // already reported by the config track
            for batch in remote.batches(of: folder, in: .credentials) where try !store.hasSeen(device: folder, batch: "credentials/" + batch) {
                let label = "devices/\(folder)/credentials/\(batch)"
                let sealed: [UInt8]
                do { sealed = try remote.readFile(device: folder, in: .credentials, name: batch) } catch {
                    report.skipped.append(error.reason)
                    continue
                }
                guard let plaintext = SyncKey.open(sealed, key: key, associatedData: CredentialBatch.associatedData(device: folder, batch: batch)) else {
                    report.skipped.append("\(label): cannot be opened with this device's sync key (altered, or sealed under another key)")
                    continue
                }
                let items: [CredentialItem]
                do { items = try CredentialBatch.decode(plaintext) } catch {
                    report.skipped.append("\(label): \(error.reason)")
                    continue
                }
                var ledger = try CredentialLedger.load(store)
                for item in items where try merge(item, from: folder, local: device, ledger: &ledger) { report.credentialsReceived += 1 }
                try ledger.save(store)
                try store.write { try $0.markSeen(device: folder, batch: "credentials/" + batch) }
            }
        }
    }

    /// Items the last upload held that are gone from the vault now were deleted here: bury them before pulling,
    /// so an older copy in another device's batch is not written back.
    func recordDeletions(store: Store) throws {
        var ledger = try CredentialLedger.load(store)
        let present = Set(try vault.items().compactMap { info -> String? in
            guard let accessibility = info.knownClass, accessibility.mayLeaveDevice, info.key != ReferenceKey.syncKey.rawValue
            else { return nil }
            return info.key
        })
        let now = Int64(Date().timeIntervalSince1970)
        let gone = ledger.sent.subtracting(present)
        guard !gone.isEmpty else { return }
        for key in gone { ledger.bury(key, at: now) }
        ledger.sent = ledger.sent.intersection(present)
        try ledger.save(store)
    }

    /// Last writer wins per item (time, then device id), deletions included; an identical value is left alone,
    /// and a copy older than a deletion known here is not brought back.
    func merge(_ item: CredentialItem, from remoteDevice: String, local localDevice: String,
               ledger: inout CredentialLedger) throws -> Bool {
        let existing = try vault.items().first { $0.key == item.key.rawValue }
        let localTime = existing.map { Int64($0.updatedAt.timeIntervalSince1970) }
        if item.deleted {
            ledger.bury(item.key.rawValue, at: item.updatedAt)
            // A tie goes to the deletion: whoever deleted the item had that value, so the deletion came after it
            // (and a revoked credential should stay revoked).
            guard let existing, let localTime, let stored = existing.knownClass, localTime <= item.updatedAt else { return false }
            do { return try vault.delete(item.key, class: stored) } catch { throw Self.failure(error) }
        }
        if let buried = ledger.tombstones[item.key.rawValue], buried >= item.updatedAt { return false }
        if let existing, let localTime {
            if localTime > item.updatedAt || (localTime == item.updatedAt && localDevice >= remoteDevice) { return false }
            if let stored = existing.knownClass, case .found(let value) = vault.read(item.key, class: stored),
               value.isEqual(to: item.value) { return false }
        }
        do {
            try vault.writeSynced(item.value, for: item.key, class: item.accessibility,
                                  updatedAt: Date(timeIntervalSince1970: TimeInterval(item.updatedAt)))
        } catch {
            throw Self.failure(error)
        }
        return true
    }

    func push(remote: FolderRemote, store: Store, device: String, key: SecretBytes, report: inout SyncReport) throws {
        var items: [CredentialItem] = []
        for info in try vault.items() {
            guard let itemKey = ReferenceKey(info.key), let accessibility = info.knownClass, accessibility.mayLeaveDevice,
                  itemKey != .syncKey else { continue }
            switch vault.read(itemKey, class: accessibility) {
            case .found(let value):
                items.append(CredentialItem(key: itemKey, accessibility: accessibility,
                                            updatedAt: Int64(info.updatedAt.timeIntervalSince1970), value: value))
            case .locked:
                throw Self.locked
            default:
                report.skipped.append("vault item \(info.key) could not be read; not uploaded")
            }
        }
        // Deletions (recorded before the pull) travel as tombstones; all known tombstones go in every batch, so a
        // device that joins later learns them too. A key present again was set anew after its deletion.
        var ledger = try CredentialLedger.load(store)
        let present = Set(items.map(\.key.rawValue))
        for key in present { ledger.tombstones[key] = nil }
        ledger.sent = present
        for (key, time) in ledger.tombstones.sorted(by: { $0.key < $1.key }) {
            guard let reference = ReferenceKey(key) else { continue }
            items.append(CredentialItem(key: reference, accessibility: .whenUnlocked, updatedAt: time, value: SecretBytes(count: 0),
                                        deleted: true))
        }
        try ledger.save(store)
        guard !items.isEmpty else { return }
        let plaintext = CredentialBatch.encode(items)
        let digest = SyncKey.digest(plaintext, key: key)
        guard try store.setting("sync.credentials.digest") != digest else { return }
        let name = RemoteLayout.batchName(remote.nextSequence(of: device, in: .credentials), extension: "box")
        let sealed = SyncKey.seal(plaintext, key: key, associatedData: CredentialBatch.associatedData(device: device, batch: name))
        try remote.writeFile(Data(sealed), device: device, in: .credentials, name: name)
        try store.write { try $0.setSetting("sync.credentials.digest", digest) }
        report.credentialsSent += items.count
    }
}

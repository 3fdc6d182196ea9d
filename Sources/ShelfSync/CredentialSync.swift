// CredentialSync: the credential track of one sync run — move default-class device-only items into their syncable
// classes (an idempotent pass on every run, no "migrated" marker anywhere; a class the user chose is never moved),
// build this device's credential set for its next entry, and merge other devices' sets into the vault by
// last-writer-wins, never over an item kept on this device. Entries carry the sets sealed; this file never touches
// the remote.
import Foundation
import ShelfCore
import ShelfStore
import ShelfVault

public struct CredentialSync {
    public let vault: Vault

    public init(vault: Vault) { self.vault = vault }

    /// The fixes that unlock what the track reads: a `sync now` in a terminal asks for the passphrase of every class
    /// it reads, a script gives it on a descriptor.
    static let locked = SyncFailure("vault locked (credential track paused while config keeps syncing)",
                                    hint: "run 'sshelf sync now' in a terminal (it asks for the vault passphrase), "
                                        + "or 'sshelf sync now --passphrase-fd N'")

    static func failure(_ error: VaultError) -> SyncFailure {
        error.kind == .locked ? locked : SyncFailure("vault unavailable: \(error.message)")
    }

    /// Rewrites the plan's moves — device-only items whose class came from the default table — into their syncable
    /// twin class (`sync enable --credentials` listed them and the user confirmed when the track was turned on; items
    /// made since follow the same rule). Idempotent: with nothing left to move it reads the item list and returns 0.
    func migrate(store: Store) throws -> Int {
        var moved = 0
        do {
            for item in try CredentialSyncPlan.make(vault: vault, store: store).moves {
                guard let twin = item.twin else { continue }
                if try vault.reclassify(item.key, from: item.stored, to: twin) { moved += 1 }
            }
        } catch let error as VaultError {
            throw Self.failure(error)
        }
        return moved
    }

    /// Syncable items of this vault (never one of sync's own keys).
    func syncableItems() throws(SyncFailure) -> [VaultItemInfo] {
        do {
            return try vault.items().filter { info in
                guard let key = ReferenceKey(info.key), !key.isDeviceSecret, let accessibility = info.knownClass else { return false }
                return accessibility.mayLeaveDevice
            }
        } catch {
            throw Self.failure(error)
        }
    }

    /// Items the last set sent held that are gone from the vault now were deleted here: bury them before merging
    /// other devices' sets, so an older copy in one of them is not written back. The deletion's time is the
    /// vault's clock, the one every item time comes from (a test sets it; so does SSHELF_TEST_NOW), so a value set
    /// after the deletion is always newer than it.
    /// An item moved to a device-only class (`vault set-class`) is not deleted: it only stops travelling, and the
    /// other devices keep the copy they had.
    func recordDeletions(store: Store) throws {
        var ledger = try CredentialLedger.load(store)
        let present = Set(try syncableItems().map(\.key))
        let kept: Set<String>
        do { kept = Set(try vault.items().map(\.key)) } catch { throw Self.failure(error) }
        ledger.sent.subtract(kept.subtracting(present))
        let gone = ledger.sent.subtracting(present)
        guard !gone.isEmpty else { return }
        let now = Int64(vault.now.timeIntervalSince1970)
        for key in gone { ledger.bury(key, at: now) }
        ledger.sent = ledger.sent.intersection(present)
        try ledger.save(store)
    }

    /// This device's whole syncable set plus every tombstone it knows, framed in guarded memory; nil when the set
    /// is empty. Throws the locked reason when a whenUnlocked item cannot be read.
    func currentSet(store: Store, report: inout SyncReport) throws -> (plaintext: SecretBytes, count: Int)? {
        var items: [CredentialItem] = []
        for info in try syncableItems() {
            guard let key = ReferenceKey(info.key), let accessibility = info.knownClass else { continue }
            switch vault.read(key, class: accessibility) {
            case .found(let value):
                items.append(CredentialItem(key: key, accessibility: accessibility,
                                            updatedAt: Int64(info.updatedAt.timeIntervalSince1970), value: value))
            case .locked:
                throw Self.locked
            default:
                report.skipped.append("vault item \(info.key) could not be read; not sent")
            }
        }
        // Deletions travel as tombstones; every set carries all known ones, so a device that joins later learns them
        // too. A key present again was set anew after its deletion.
        var ledger = try CredentialLedger.load(store)
        let present = Set(items.map(\.key.rawValue))
        for key in present { ledger.tombstones[key] = nil }
        ledger.sent = present
        for (key, time) in ledger.tombstones.sorted(by: { $0.key < $1.key }) {
            guard let reference = ReferenceKey(key), !reference.isDeviceSecret else { continue }
            items.append(CredentialItem(key: reference, accessibility: .whenUnlocked, updatedAt: time, value: SecretBytes(count: 0),
                                        deleted: true))
        }
        try ledger.save(store)
        guard !items.isEmpty else { return nil }
        return (CredentialBatch.encode(items), items.count)
    }

    /// Merges another device's set into the vault; returns how many items changed here. An item this device keeps
    /// in a device-only class is left as it is, with a note in `kept`.
    func apply(_ plaintext: SecretBytes, store: Store, from remoteDevice: String, local localDevice: String,
               kept: inout [String]) throws -> Int {
        let items = try CredentialBatch.decode(plaintext)
        var ledger = try CredentialLedger.load(store)
        var changed = 0
        for item in items {
            switch try merge(item, from: remoteDevice, local: localDevice, ledger: &ledger) {
            case .changed: changed += 1
            case .unchanged: break
            case .keptOnThisDevice(let stored):
                kept.append("vault item \(item.key) stays on this device (\(stored)); the copy device "
                    + "\(remoteDevice.prefix(8)) sent was not applied")
            }
        }
        try ledger.save(store)
        return changed
    }

    enum MergeOutcome: Equatable {
        case changed, unchanged
        /// The item is stored here in a class that never leaves the device: the user's choice, never overwritten or
        /// deleted by another device's set.
        case keptOnThisDevice(AccessibilityClass)
    }

    /// Last writer wins per item (time, then device id), deletions included; an identical value is left alone,
    /// a copy older than a deletion known here is not brought back, and an item kept on this device is not touched.
    func merge(_ item: CredentialItem, from remoteDevice: String, local localDevice: String,
               ledger: inout CredentialLedger) throws -> MergeOutcome {
        let existing: VaultItemInfo?
        do { existing = try vault.items().first { $0.key == item.key.rawValue } } catch { throw Self.failure(error) }
        if let stored = existing?.knownClass, !stored.mayLeaveDevice {
            if item.deleted { ledger.bury(item.key.rawValue, at: item.updatedAt) }
            return item.deleted ? .unchanged : .keptOnThisDevice(stored)
        }
        let localTime = existing.map { Int64($0.updatedAt.timeIntervalSince1970) }
        if item.deleted {
            ledger.bury(item.key.rawValue, at: item.updatedAt)
            // A tie goes to the deletion: whoever deleted the item had that value, so the deletion came after it
            // (and a revoked credential should stay revoked).
            guard let existing, let localTime, let stored = existing.knownClass, localTime <= item.updatedAt else {
                return .unchanged
            }
            do {
                return try vault.delete(item.key, class: stored) ? .changed : .unchanged
            } catch {
                throw Self.failure(error)
            }
        }
        if let buried = ledger.tombstones[item.key.rawValue], buried >= item.updatedAt { return .unchanged }
        if let existing, let localTime {
            if localTime > item.updatedAt || (localTime == item.updatedAt && localDevice >= remoteDevice) {
                return .unchanged
            }
            if let stored = existing.knownClass, case .found(let value) = vault.read(item.key, class: stored),
               value.isEqual(to: item.value) { return .unchanged }
        }
        do {
            try vault.writeSynced(item.value, for: item.key, class: item.accessibility,
                                  updatedAt: Date(timeIntervalSince1970: TimeInterval(item.updatedAt)))
        } catch {
            throw Self.failure(error)
        }
        return .changed
    }
}

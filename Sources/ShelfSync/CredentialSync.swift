// CredentialSync: the credential track of one sync run — move default-class device-only items into their syncable
// classes (an idempotent pass on every run, no "migrated" marker anywhere; a class the user chose is never moved),
// build this device's credential set for its next entry, and merge other devices' sets into the vault by
// last-writer-wins, never over an item kept on this device. Entries carry the sets sealed; this file never touches
// the remote.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

/// This device's credential set as built by a run: framed in guarded memory, with what its release-log line names.
struct OwnCredentialSet {
    let plaintext: SecretBytes
    let count: Int
    /// The items it carries (their values), and how many deletions (tombstones).
    let keys: [ReferenceKey]
    let deletions: Int
}

public struct CredentialSync {
    public let vault: Vault
    /// This device's id: the author of the writes made here.
    let device: String
    /// Keys the digests that tell a value changed in the vault (the ledger never holds a value).
    let digestKey: SecretBytes

    /// The fixes that unlock what the track reads: `vault unlock` opens the session for every sshelf process (the
    /// TUI's background runs too), a `sync now` in a terminal asks for the passphrase of every class it reads, a
    /// script gives it on a descriptor.
    static let locked = SyncFailure(
        "vault locked (credential track paused while config keeps syncing)",
        guidance: Hint(.command(["vault", "unlock"])).or(
            .command(["sync", "now"]), .text(", and "), .passphrase(.give)))

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
                guard let key = ReferenceKey(info.key), !key.isDeviceSecret, let accessibility = info.knownClass else {
                    return false
                }
                return accessibility.mayLeaveDevice
            }
        } catch {
            throw Self.failure(error)
        }
    }

    /// What changed in the vault since the last run, stamped before other devices' sets are merged: an item whose
    /// vault time or value differs from what was last seen was written here (stamped after every stamp known for
    /// it: CredentialStamp), and an item the last set sent that is gone was deleted here (buried, so an older copy
    /// in another device's set is not written back). Times are the vault's clock, the one every item time comes
    /// from (a test sets it; so does SSHELF_TEST_NOW).
    /// An item moved to a device-only class (`vault set-class`) is not deleted: it only stops travelling, and the
    /// other devices keep the copy they had.
    func recordDeletions(store: Store) throws {
        var ledger = try CredentialLedger.load(store)
        let items = try syncableItems()
        for info in items {
            guard let key = ReferenceKey(info.key), let accessibility = info.knownClass else { continue }
            let digest: String
            switch vault.syncDigest(key, class: accessibility, keyedWith: digestKey) {
            case .digest(let found): digest = found
            case .locked: throw Self.locked
            case .unreadable: continue
            }
            let time = CredentialStamp.milliseconds(info.updatedAt)
            if let seen = ledger.seen[info.key], seen.time == time, seen.digest == digest { continue }
            let stamp = CredentialStamp.next(after: ledger.latest(info.key), at: time, by: device)
            ledger.seen[info.key] = CredentialLedger.Seen(stamp: stamp, time: time, digest: digest)
            ledger.tombstones[info.key] = nil
        }
        let present = Set(items.map(\.key))
        let kept: Set<String>
        do { kept = Set(try vault.items().map(\.key)) } catch { throw Self.failure(error) }
        ledger.sent.subtract(kept.subtracting(present))
        let now = CredentialStamp.milliseconds(vault.now)
        for key in ledger.sent.subtracting(present) {
            ledger.bury(key, at: CredentialStamp.next(after: ledger.latest(key), at: now, by: device))
        }
        ledger.sent = ledger.sent.intersection(present)
        try ledger.save(store)
    }

    func digest(_ value: SecretBytes) -> String { SyncCrypto.keyedDigest(value, key: digestKey).hex }

    /// This device's whole syncable set plus every tombstone it knows, framed in guarded memory; nil when the set
    /// is empty. Throws the locked reason when a whenUnlocked item cannot be read.
    func currentSet(store: Store, report: inout SyncReport) throws -> OwnCredentialSet? {
        var items: [CredentialItem] = []
        var ledger = try CredentialLedger.load(store)
        for info in try syncableItems() {
            guard let key = ReferenceKey(info.key), let accessibility = info.knownClass else { continue }
            switch vault.sealForSync(key, class: accessibility) {
            case .found(let value):
                let stamp =
                    ledger.seen[info.key]?.stamp
                    ?? CredentialStamp(time: CredentialStamp.milliseconds(info.updatedAt), counter: 0, author: device)
                items.append(CredentialItem(key: key, accessibility: accessibility, stamp: stamp, value: value))
            case .locked:
                throw Self.locked
            default:
                report.skipped.append("vault item \(info.key) could not be read; not sent")
            }
        }
        // Deletions travel as tombstones; every set carries all known ones, so a device that joins later learns them
        // too. A key present again was set anew after its deletion.
        let present = Set(items.map(\.key.rawValue))
        for key in present { ledger.tombstones[key] = nil }
        ledger.sent = present
        for (key, stamp) in ledger.tombstones.sorted(by: { $0.key < $1.key }) {
            guard let reference = ReferenceKey(key), !reference.isDeviceSecret else { continue }
            items.append(
                CredentialItem(
                    key: reference, accessibility: .whenUnlocked, stamp: stamp, value: SecretBytes(count: 0),
                    deleted: true))
        }
        try ledger.save(store)
        guard !items.isEmpty else { return nil }
        return OwnCredentialSet(
            plaintext: CredentialBatch.encode(items), count: items.count,
            keys: items.filter { !$0.deleted }.map(\.key), deletions: items.filter(\.deleted).count)
    }

    /// Merges another device's set into the vault; returns how many items changed here. An item this device keeps
    /// in a device-only class is left as it is, with a note in `kept`.
    func apply(
        _ plaintext: SecretBytes, store: Store, from remoteDevice: String, local localDevice: String,
        kept: inout [String]
    ) throws -> Int {
        let items = try CredentialBatch.decode(plaintext, sender: remoteDevice)
        var ledger = try CredentialLedger.load(store)
        var changed = 0
        for item in items {
            switch try merge(item, from: remoteDevice, local: localDevice, ledger: &ledger) {
            case .changed: changed += 1
            case .unchanged: break
            case .keptOnThisDevice(let stored):
                kept.append(
                    "vault item \(item.key) stays on this device (\(stored)); the copy device "
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

    /// Last writer wins per item by stamp (time, counter, author), deletions included; an identical value is left
    /// alone (its stamp taken), a copy older than a deletion known here is not brought back, and an item kept on
    /// this device is not touched.
    func merge(
        _ item: CredentialItem, from remoteDevice: String, local localDevice: String,
        ledger: inout CredentialLedger
    ) throws -> MergeOutcome {
        let existing: VaultItemInfo?
        do { existing = try vault.items().first { $0.key == item.key.rawValue } } catch { throw Self.failure(error) }
        let key = item.key.rawValue
        if let stored = existing?.knownClass, !stored.mayLeaveDevice {
            if item.deleted { ledger.bury(key, at: item.stamp) }
            return item.deleted ? .unchanged : .keptOnThisDevice(stored)
        }
        let local =
            ledger.seen[key]?.stamp
            ?? existing.map {
                CredentialStamp(time: CredentialStamp.milliseconds($0.updatedAt), counter: 0, author: localDevice)
            }
        if item.deleted {
            guard let existing, let local, let stored = existing.knownClass, local <= item.stamp else {
                ledger.tombstones[key] = max(ledger.tombstones[key] ?? item.stamp, item.stamp)
                return .unchanged
            }
            ledger.bury(key, at: item.stamp)
            do {
                return try vault.delete(item.key, class: stored) ? .changed : .unchanged
            } catch {
                throw Self.failure(error)
            }
        }
        if let buried = ledger.tombstones[key], buried >= item.stamp { return .unchanged }
        if let existing, let local {
            if local >= item.stamp { return .unchanged }
            if let stored = existing.knownClass, vault.holds(item.key, class: stored, value: item.value) {
                ledger.seen[key]?.stamp = item.stamp
                return .unchanged
            }
        }
        do {
            try vault.writeSynced(
                item.value, for: item.key, class: item.accessibility, updatedAt: CredentialStamp.date(item.stamp.time))
        } catch {
            throw Self.failure(error)
        }
        ledger.seen[key] = CredentialLedger.Seen(stamp: item.stamp, time: item.stamp.time, digest: digest(item.value))
        ledger.tombstones[key] = nil
        return .changed
    }
}

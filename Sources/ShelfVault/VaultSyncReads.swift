// VaultSyncReads: the credential track's reads, each named for what it is for — the digest that tells a value
// changed, whether a value arrived already, and the value sealed into this device's credential set — and the door
// the set leaves by. Only `sealForSync` reads a secret out, and only of an item whose class may leave the device
// (never one of sync's own keys); the set is rebuilt on every run to learn whether it changed, so the reads write
// no line, but the set leaves for the remote only through `releaseCredentialSet`, which writes one line naming its
// keys first and withholds the set when the line cannot be written (docs/VAULT.md, "The release log").
// ArchitectureTests.VaultDoorTests holds that nothing outside ShelfVault reads an item by its raw `read`.
import FoundationEssentials
import ShelfCore

/// What the credential track learns of a stored item without holding its value.
public enum SyncDigestAnswer: Sendable, Equatable {
    /// The keyed digest (hex) of the stored value.
    case digest(String)
    case locked
    /// Not stored in that class, or unreadable (the vault warned why).
    case unreadable
}

extension Vault {
    /// The keyed digest (BLAKE2b under `digestKey`, hex) of `key`'s value in `accessibility`: the credential
    /// ledger compares it with the last one seen, so no value is kept outside the vault.
    public func syncDigest(
        _ key: ReferenceKey, class accessibility: AccessibilityClass, keyedWith digestKey: SecretBytes
    )
        -> SyncDigestAnswer
    {
        switch read(key, class: accessibility) {
        case .found(let value): .digest(TextFormat.hex(bytes: SyncCrypto.keyedDigest(value, key: digestKey)))
        case .locked: .locked
        case .notStored, .storedInOtherClass, .vaultUnavailable: .unreadable
        }
    }

    /// Whether `key` holds exactly `value` in `accessibility` (a copy another device sent that is already here).
    public func holds(_ key: ReferenceKey, class accessibility: AccessibilityClass, value: SecretBytes) -> Bool {
        guard case .found(let stored) = read(key, class: accessibility) else { return false }
        return stored.isEqual(to: value)
    }

    /// `key`'s value, read to be sealed into this device's credential set. Refuses (unread) an item of a class that
    /// never leaves the device and sync's own keys, whatever their class: they are never part of a set.
    public func sealForSync(_ key: ReferenceKey, class accessibility: AccessibilityClass) -> CredentialLookup {
        guard accessibility.mayLeaveDevice, !key.isDeviceSecret else {
            return .vaultUnavailable(reason: "\(key) is kept on this device (\(accessibility)); it is never synced")
        }
        return read(key, class: accessibility)
    }
}

extension Vault {
    /// The release-log line of a credential set sealed into an entry: the keys it carries and how many deletions,
    /// never a value.
    public static func credentialSetEntry(keys: [ReferenceKey], deletions: Int) -> ReleaseEntry {
        let names = keys.map(\.rawValue).sorted()
        let items = "\(names.count) item\(names.count == 1 ? "" : "s")"
        let deleted = deletions > 0 ? ", \(deletions) deletion\(deletions == 1 ? "" : "s")" : ""
        return ReleaseEntry(
            what: "credential set", item: "sync.credentials", by: "sync",
            detail: items + deleted + (names.isEmpty ? "" : ": " + names.joined(separator: ", ")))
    }

    /// `set` (this device's credential set, built from `sealForSync` reads) handed back to be sealed into an entry
    /// once its line is in the log; throws, and the set goes nowhere, when the line could not be written. The
    /// engine calls it only when the set goes out — its content changed, or a snapshot seals it again — not on every
    /// run that rebuilds it.
    public func releaseCredentialSet(
        _ set: SecretBytes, keys: [ReferenceKey], deletions: Int, log: ReleaseLog? = nil
    ) throws(ReleaseLogError) -> SecretBytes {
        try release(set, logging: Self.credentialSetEntry(keys: keys, deletions: deletions), log: log)
    }
}

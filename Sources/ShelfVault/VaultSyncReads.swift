// VaultSyncReads: the credential track's three reads, each named for what it is for — the digest that tells a
// value changed, whether a value arrived already, and the value sealed into this device's credential set. Only
// the last hands a secret out, and only of an item whose class may leave the device (never one of sync's own
// keys). None writes a release-log line (docs/VAULT.md, "The release log": the set is rebuilt on every run and
// goes, sealed, only to this user's own devices). ArchitectureTests.VaultDoorTests holds that nothing outside
// ShelfVault reads an item by its raw `read`.
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

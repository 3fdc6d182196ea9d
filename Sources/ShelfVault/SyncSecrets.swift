// SyncSecrets: the vault items behind a sync group, one load/save/clear set per family. Key prefixes owned here:
// sync.signing (this device's ed25519 seed), sync.<group>.group (a group's roster secret), sync.<epoch>.epoch
// (one epoch's group key), sync.<invite>.invite (an invite's secret). Every call names its class; the policy
// stores them all afterFirstUnlockThisDeviceOnly (background sync reads them; they never leave as items).
import FoundationEssentials
import ShelfCore

extension Vault {
    // MARK: sync.signing

    public func loadSigningSeed(class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.syncSigning, class: accessibility)
    }

    /// This device's signing keys, made (and stored) on first use. Throws when the vault is locked or broken,
    /// never makes a second key over an unreadable one.
    public func deviceKeys(class accessibility: AccessibilityClass) throws(VaultError) -> SyncCrypto.DeviceKeys {
        switch loadSigningSeed(class: accessibility) {
        case .found(let seed):
            guard let keys = SyncCrypto.DeviceKeys(seed: seed) else {
                throw VaultError(.unavailable, "the sync signing key in the vault is damaged")
            }
            return keys
        case .notStored:
            let seed = SyncCrypto.randomKey()
            try write(seed, for: .syncSigning, class: accessibility)
            guard let keys = SyncCrypto.DeviceKeys(seed: seed) else {
                throw VaultError(.unavailable, "libsodium refused a new signing key")
            }
            return keys
        case .locked:
            throw VaultError(
                .locked, "the vault is locked for \(accessibility) items", hint: "run 'sshelf vault unlock'")
        case .storedInOtherClass(let other):
            throw VaultError(
                .unavailable, "the sync signing key is stored as \(other), not \(accessibility)",
                hint: "run 'sshelf vault audit'")
        case .vaultUnavailable(let reason):
            throw VaultError(.unavailable, reason)
        }
    }

    // MARK: sync.<group>.group, sync.<epoch>.epoch, sync.<invite>.invite

    public func loadGroupSecret(_ group: UUID, class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.syncGroup(group), class: accessibility)
    }

    public func saveGroupSecret(_ secret: SecretBytes, group: UUID, class accessibility: AccessibilityClass)
        throws(VaultError)
    {
        try write(secret, for: .syncGroup(group), class: accessibility)
    }

    public func loadEpochKey(_ epoch: UUID, class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.syncEpoch(epoch), class: accessibility)
    }

    public func saveEpochKey(_ key: SecretBytes, epoch: UUID, class accessibility: AccessibilityClass)
        throws(VaultError)
    {
        try write(key, for: .syncEpoch(epoch), class: accessibility)
    }

    public func loadInviteSecret(_ invite: UUID, class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.syncInvite(invite), class: accessibility)
    }

    public func saveInviteSecret(_ secret: SecretBytes, invite: UUID, class accessibility: AccessibilityClass)
        throws(VaultError)
    {
        try write(secret, for: .syncInvite(invite), class: accessibility)
    }

    @discardableResult
    public func clearInviteSecret(_ invite: UUID, class accessibility: AccessibilityClass) throws(VaultError) -> Bool {
        try delete(.syncInvite(invite), class: accessibility)
    }

    /// Ids of every epoch key this vault holds (from the item list, which holds no secrets).
    public func epochKeyIDs() throws(VaultError) -> [UUID] {
        try items().compactMap { info in
            guard let key = ReferenceKey(info.key), key.owner == .sync, key.secret == .epoch else { return nil }
            return key.ownerID
        }
    }
}

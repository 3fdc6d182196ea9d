// SyncSession: what one sync run works with — the store, the vault and this device's signing keys, its group, the
// certificates it holds and the roster computed from them, and the group's keys (read from the vault on first use;
// an epoch key shared with this device is opened from its certificate and stored).
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

final class SyncSession {
    let store: Store
    let vault: Vault
    let keys: SyncCrypto.DeviceKeys
    let me: UUID
    let deviceName: String
    let now: Date
    var state: GroupState
    private(set) var roster: Roster
    private var certificatesByDigest: [[UInt8]: Certificate] = [:]
    private var epochKeys: [UUID: SecretBytes] = [:]
    private var groupSecretCache: SecretBytes?
    private(set) var heldEpochs: Set<UUID>
    /// The records this run has changed from other devices' entries ("kind id"): a conflict between two values
    /// that both arrived in this run was never on this device's screen (see Store.apply, `localArrivedThisRun`).
    var receivedThisRun: Set<String> = []

    /// The class every sync key is kept in (read by background sync, never leaving the device).
    static let keyClass = ClassPolicy.accessibility(for: .syncEpochKey, readAt: .unattended)

    init(
        store: Store, vault: Vault, keys: SyncCrypto.DeviceKeys, me: UUID, deviceName: String, now: Date,
        state: GroupState
    )
        throws
    {
        self.store = store
        self.vault = vault
        self.keys = keys
        self.me = me
        self.deviceName = deviceName
        self.now = now
        self.state = state
        do { heldEpochs = Set(try vault.epochKeyIDs()) } catch { throw SyncSession.failure(error) }
        roster = Roster(group: state.group, anchor: state.anchor, certificates: [])
        for stored in try store.certificates() {
            guard let bytes = [UInt8](hex: stored.body), let certificate = try? Certificate(parsing: bytes) else {
                continue
            }
            certificatesByDigest[certificate.digest] = certificate
        }
        recompute()
    }

    static func failure(_ error: VaultError) -> SyncFailure {
        if error.kind == .locked {
            return SyncFailure(
                "vault locked: sync needs this device's keys",
                guidance: Hint(.command(["vault", "unlock"]))
                    .or(.command(["sync", "now"]), .text(", and "), .passphrase(.give)))
        }
        return SyncFailure("vault unavailable: \(error.message)", hint: error.hint ?? "run 'sshelf vault status'")
    }

    var meText: String { me.lowerText }

    func recompute() {
        roster = Roster(group: state.group, anchor: state.anchor, certificates: Array(certificatesByDigest.values))
    }

    var certificates: [Certificate] { Array(certificatesByDigest.values) }

    /// Keeps certificates received in an entry (or made here); returns those not known before. Call inside `write`.
    @discardableResult
    func keep(_ incoming: [Certificate], mine: Bool = false) throws -> [Certificate] {
        var added: [Certificate] = []
        for certificate in incoming
        where certificate.group == state.group && certificatesByDigest[certificate.digest] == nil {
            certificatesByDigest[certificate.digest] = certificate
            try store.addCertificate(
                StoredCertificate(
                    digest: certificate.digest.hex, body: certificate.bytes.hex, mine: mine,
                    published: nil))
            added.append(certificate)
        }
        if !added.isEmpty { recompute() }
        return added
    }

    /// Signs and keeps a certificate made by this device; it goes out in this device's next entry.
    func issue(_ body: Certificate.Body) throws -> Certificate {
        let certificate = Certificate(
            group: state.group, signer: me, time: HybridLogicalClock.milliseconds(now), body: body, keys: keys)
        _ = try store.write { _ in try keep([certificate], mine: true) }
        return certificate
    }

    /// This device's certificates not yet in an entry of its chain.
    func unpublished() throws -> [Certificate] {
        try store.certificates().filter { $0.mine && $0.published == nil }.compactMap { stored in
            [UInt8](hex: stored.digest).flatMap { certificatesByDigest[$0] }
        }
    }

    /// Every revocation this device knows: each entry carries them all, so a device that receives any entry learns
    /// every revocation its writer knew (and a relayed value from it can be trusted accordingly).
    var revocationCertificates: [Certificate] {
        certificates.filter { if case .revoke = $0.body { roster.accepted.contains($0.digest) } else { false } }
    }

    // MARK: keys

    func groupSecret() throws(SyncFailure) -> SecretBytes {
        if let groupSecretCache { return groupSecretCache }
        switch vault.loadGroupSecret(state.group, class: SyncSession.keyClass) {
        case .found(let secret):
            groupSecretCache = secret
            return secret
        case .notStored:
            throw SyncFailure(
                "this device has no key for its sync group",
                hint: "join it again: 'sshelf sync invite' on an enrolled device, then 'sshelf sync join' here")
        case .locked:
            throw SyncSession.failure(VaultError(.locked, "locked"))
        case .storedInOtherClass(let other):
            throw SyncFailure("the sync group key is stored as \(other)", hint: "run 'sshelf vault audit'")
        case .vaultUnavailable(let reason):
            throw SyncFailure("vault unavailable: \(reason)")
        }
    }

    func rosterKey() throws(SyncFailure) -> SecretBytes { SyncKeys.roster(try groupSecret()) }

    /// The key of `epoch`, from the vault, or opened from a share sent to this device (then stored). Nil when this
    /// device does not have it (yet).
    func epochKey(_ epoch: UUID) throws(SyncFailure) -> SecretBytes? {
        if let key = epochKeys[epoch] { return key }
        if heldEpochs.contains(epoch) {
            switch vault.loadEpochKey(epoch, class: SyncSession.keyClass) {
            case .found(let key):
                epochKeys[epoch] = key
                return key
            case .locked: throw SyncSession.failure(VaultError(.locked, "locked"))
            case .vaultUnavailable(let reason): throw SyncFailure("vault unavailable: \(reason)")
            case .notStored, .storedInOtherClass: break
            }
        }
        guard let sealed = roster.epochs[epoch]?.shares[me], let key = keys.openSealedBox(sealed),
            key.count == SyncCrypto.keyLength
        else { return nil }
        try store(epochKey: key, epoch)
        return key
    }

    func store(epochKey key: SecretBytes, _ epoch: UUID) throws(SyncFailure) {
        do { try vault.saveEpochKey(key, epoch: epoch, class: SyncSession.keyClass) } catch {
            throw SyncSession.failure(error)
        }
        epochKeys[epoch] = key
        heldEpochs.insert(epoch)
    }

    /// Opens every share addressed to this device that it has not stored yet.
    func collectShares() throws(SyncFailure) {
        for epoch in roster.epochs.values where !heldEpochs.contains(epoch.id) && epoch.shares[me] != nil {
            _ = try epochKey(epoch.id)
        }
    }
}

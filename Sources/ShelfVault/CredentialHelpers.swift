// CredentialHelpers: a load/save/clear triple per item family, and the gated "remember this password"
// envelope with self-healing. Key prefixes owned here: host.<uuid>.password, host.<uuid>.remember,
// identity.<uuid>.privkey, identity.<uuid>.passphrase, sync.key. Loads never throw and, like `read`, are
// internal: a secret leaves ShelfVault through `release` or a call named for its use (VaultSyncReads, VaultVerify).
import FoundationEssentials
import ShelfCore

/// Why a load came back empty when the vault itself was the obstacle.
public enum LoadProblem: Sendable, Equatable {
    case locked
    case vaultUnavailable(reason: String)
    case storedInOtherClass(AccessibilityClass)
}

/// "Remember this password" as loaded: `enabled` is the user's answer, `credentials` the password when it
/// is on and present. Never a bare optional, so "the user said no" differs from "yes, but it is missing".
public struct RememberedPassword: Sendable {
    public var enabled: Bool
    public var credentials: SecretBytes?
    /// Set when the vault was locked or broken: the envelope is empty because nothing could be read.
    public var problem: LoadProblem?

    public static let off = RememberedPassword(enabled: false, credentials: nil, problem: nil)
}

extension Vault {
    private static let gateOn: [UInt8] = [0x31]
    private static let gateOff: [UInt8] = [0x30]

    // MARK: host.<uuid>.password

    func loadHostPassword(_ hostID: UUID, class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.hostPassword(hostID), class: accessibility)
    }

    public func saveHostPassword(_ password: SecretBytes, hostID: UUID, class accessibility: AccessibilityClass)
        throws(VaultError)
    {
        try write(password, for: .hostPassword(hostID), class: accessibility)
    }

    @discardableResult
    public func clearHostPassword(_ hostID: UUID, class accessibility: AccessibilityClass) throws(VaultError) -> Bool {
        try delete(.hostPassword(hostID), class: accessibility)
    }

    // MARK: host.<uuid>.remember (gate) with host.<uuid>.password

    /// Gate on and password present: `{true, password}`. Gate on but the password missing or empty: returns
    /// `{false, nil}` and deletes both leftovers at once, so no "ghost remember" survives. Gate off or absent:
    /// `{false, nil}` and nothing is deleted. A locked or broken vault: `{false, nil}` with `problem` set.
    func loadRememberedPassword(_ hostID: UUID, class accessibility: AccessibilityClass) -> RememberedPassword {
        let gate: SecretBytes
        switch read(.hostRemember(hostID), class: accessibility) {
        case .notStored: return .off
        case .found(let value): gate = value
        case .locked: return RememberedPassword(enabled: false, credentials: nil, problem: .locked)
        case .vaultUnavailable(let reason):
            return RememberedPassword(enabled: false, credentials: nil, problem: .vaultUnavailable(reason: reason))
        case .storedInOtherClass(let stored):
            return RememberedPassword(enabled: false, credentials: nil, problem: .storedInOtherClass(stored))
        }
        if gate.isEqual(to: SecretBytes(Self.gateOff)) { return .off }
        if gate.isEqual(to: SecretBytes(Self.gateOn)) {
            switch read(.hostPassword(hostID), class: accessibility) {
            case .found(let password) where !password.isEmpty:
                return RememberedPassword(enabled: true, credentials: password, problem: nil)
            case .found, .notStored:
                break  // inconsistent: heal below
            case .locked: return RememberedPassword(enabled: false, credentials: nil, problem: .locked)
            case .vaultUnavailable(let reason):
                return RememberedPassword(enabled: false, credentials: nil, problem: .vaultUnavailable(reason: reason))
            case .storedInOtherClass(let stored):
                return RememberedPassword(enabled: false, credentials: nil, problem: .storedInOtherClass(stored))
            }
        }
        do {
            try clearRememberedPassword(hostID, class: accessibility)
            options.warn(
                "vault: 'remember password' for host \(hostID.uuidString.lowercased()) had no password; cleared it")
        } catch {
            options.warn("vault: could not clear an inconsistent 'remember password' entry: \(error)")
        }
        return .off
    }

    /// `enabled` with a non-empty password stores both; `enabled: false` stores the "no" and deletes any
    /// remembered password.
    public func saveRememberedPassword(
        _ password: SecretBytes?, enabled: Bool, hostID: UUID,
        class accessibility: AccessibilityClass
    ) throws(VaultError) {
        if enabled {
            guard let password, !password.isEmpty else {
                throw VaultError(.invalid, "cannot remember an empty password")
            }
            // Password first: a crash between the two writes leaves a value without a gate, which loads as "off".
            try write(password, for: .hostPassword(hostID), class: accessibility)
            try write(SecretBytes(Self.gateOn), for: .hostRemember(hostID), class: accessibility)
        } else {
            try write(SecretBytes(Self.gateOff), for: .hostRemember(hostID), class: accessibility)
            try delete(.hostPassword(hostID), class: accessibility)
        }
    }

    public func clearRememberedPassword(_ hostID: UUID, class accessibility: AccessibilityClass) throws(VaultError) {
        try delete(.hostRemember(hostID), class: accessibility)
        try delete(.hostPassword(hostID), class: accessibility)
    }

    // MARK: identity.<uuid>.privkey

    func loadIdentityPrivateKey(_ identityID: UUID, class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.identityPrivateKey(identityID), class: accessibility)
    }

    public func saveIdentityPrivateKey(_ key: SecretBytes, identityID: UUID, class accessibility: AccessibilityClass)
        throws(VaultError)
    {
        try write(key, for: .identityPrivateKey(identityID), class: accessibility)
    }

    @discardableResult
    public func clearIdentityPrivateKey(_ identityID: UUID, class accessibility: AccessibilityClass) throws(VaultError)
        -> Bool
    {
        try delete(.identityPrivateKey(identityID), class: accessibility)
    }

    // MARK: identity.<uuid>.passphrase

    func loadIdentityPassphrase(_ identityID: UUID, class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.identityPassphrase(identityID), class: accessibility)
    }

    public func saveIdentityPassphrase(
        _ passphrase: SecretBytes, identityID: UUID,
        class accessibility: AccessibilityClass
    ) throws(VaultError) {
        try write(passphrase, for: .identityPassphrase(identityID), class: accessibility)
    }

    @discardableResult
    public func clearIdentityPassphrase(_ identityID: UUID, class accessibility: AccessibilityClass) throws(VaultError)
        -> Bool
    {
        try delete(.identityPassphrase(identityID), class: accessibility)
    }

    // MARK: sync.key

    func loadSyncKey(class accessibility: AccessibilityClass) -> CredentialLookup {
        read(.syncKey, class: accessibility)
    }

    public func saveSyncKey(_ key: SecretBytes, class accessibility: AccessibilityClass) throws(VaultError) {
        try write(key, for: .syncKey, class: accessibility)
    }

    @discardableResult
    public func clearSyncKey(class accessibility: AccessibilityClass) throws(VaultError) -> Bool {
        try delete(.syncKey, class: accessibility)
    }
}

// IdentitySigning: an identity's private key, read from the vault for one signature — in the class the item is
// stored under, with its passphrase item when the key file is encrypted — and handed back as an SSHPrivateKey
// that only signs. Nothing is cached: the caller drops the key after use and its guarded memory is zeroed.
import FoundationEssentials
import ShelfCore

public enum SigningKeyLookup: Sendable {
    case key(SSHPrivateKey)
    /// This device's vault has no private key for the identity.
    case notStored
    /// The item's class is locked: the vault passphrase is needed first.
    case locked(AccessibilityClass)
    /// The key file is encrypted and the vault holds no passphrase for it (or the one given did not open it).
    case needsKeyPassphrase
    /// Stored, but not usable as a signing key here; the text says why.
    case unusable(String)
}

extension Vault {
    /// The class an item is stored under (metadata only; nothing is decrypted): nil when it is not stored, and a
    /// class this version does not know is reported as an error.
    public func storedClass(of key: ReferenceKey) throws(VaultError) -> AccessibilityClass? {
        let name = try run("look up \(key)") {
            try db.query("SELECT class FROM items WHERE key = ?", [.text(key.rawValue)]).first?.first?.text
        }
        guard let name else { return nil }
        guard let known = AccessibilityClass(rawValue: name) else {
            throw VaultError(.unavailable, "\(key) is stored under a class this sshelf does not know ('\(name)')")
        }
        return known
    }

    /// `keyPassphrase` is what the user typed for an encrypted key whose passphrase the vault does not hold.
    public func signingKey(identityID: UUID, keyPassphrase: SecretBytes? = nil) -> SigningKeyLookup {
        let keyReference = ReferenceKey.identityPrivateKey(identityID)
        let stored: AccessibilityClass
        do {
            guard let found = try storedClass(of: keyReference) else { return .notStored }
            stored = found
        } catch {
            return .unusable(error.message)
        }
        let file: SecretBytes
        switch read(keyReference, class: stored) {
        case .found(let value): file = value
        case .notStored: return .notStored
        case .locked: return .locked(stored)
        case .storedInOtherClass(let other): return .unusable("the key moved to \(other) while it was read")
        case .vaultUnavailable(let reason): return .unusable(reason)
        }
        var passphrase: SecretBytes? = nil
        if OpenSSHKey.inspect(file)?.encrypted == true {
            let passphraseReference = ReferenceKey.identityPassphrase(identityID)
            if let passphraseClass = try? storedClass(of: passphraseReference) {
                switch read(passphraseReference, class: passphraseClass) {
                case .found(let value): passphrase = value
                case .locked: return .locked(passphraseClass)
                case .notStored, .storedInOtherClass, .vaultUnavailable: break
                }
            }
            if passphrase == nil { passphrase = keyPassphrase }
            if passphrase == nil { return .needsKeyPassphrase }
        }
        switch SSHPrivateKey.fromKeyFile(file, passphrase: passphrase) {
        case .success(let key): return .key(key)
        case .failure(let problem) where keyPassphrase != nil && problem.wrongPassphrase:
            return .needsKeyPassphrase
        case .failure(let problem): return .unusable(problem.message)
        }
    }
}

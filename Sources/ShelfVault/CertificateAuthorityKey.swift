// CertificateAuthorityKey: a certificate authority's private key in the vault (`sshelf ca`) — made here, stored as
// `ca.<uuid>.privkey` in the class the policy names, and used only to sign a certificate inside this module: the key
// never leaves the vault, to a file or another program. Its creation and each certificate it signs are lines in the
// release log, written before the certificate is handed back.
import FoundationEssentials
import ShelfCore

public enum CertificateSignFailure: Error, Sendable, Equatable {
    /// This device's vault holds no key for the CA.
    case notStored
    /// The key's class is locked: the vault passphrase is needed first.
    case locked(AccessibilityClass)
    /// The key or the vault cannot be used; the text says why.
    case unusable(String)
}

extension Vault {
    /// Makes a new ed25519 CA key, stores it under `ca.<id>.privkey` in `accessibility` and logs its creation
    /// (`detail`: the CA's name); returns its public key line (`ssh-ed25519 AAAA… comment`).
    public func createCertificateAuthority(
        id: UUID, comment: String, class accessibility: AccessibilityClass,
        by: String, detail: String
    ) throws -> String {
        let (privateKey, publicKey) = OpenSSHKey.generateEd25519(comment: comment)
        let reference = ReferenceKey.caPrivateKey(id)
        try write(privateKey, for: reference, class: accessibility)
        try record(ReleaseEntry(what: "CA key created", item: reference.rawValue, by: by, detail: detail))
        return publicKey
    }

    /// Signs `certificate` (its `signatureKey` set to the CA's public blob, a fresh random nonce put in here) with
    /// the CA `id`'s key, logs `entry`, and hands back the signed certificate once the line is written.
    public func signCertificate(_ certificate: SSHCertificate, caID id: UUID, logging entry: ReleaseEntry)
        -> Result<SSHCertificate, CertificateSignFailure>
    {
        let reference = ReferenceKey.caPrivateKey(id)
        let stored: AccessibilityClass
        do {
            guard let found = try storedClass(of: reference) else { return .failure(.notStored) }
            stored = found
        } catch {
            return .failure(.unusable(error.message))
        }
        let file: SecretBytes
        switch read(reference, class: stored) {
        case .found(let value): file = value
        case .notStored: return .failure(.notStored)
        case .locked: return .failure(.locked(stored))
        case .storedInOtherClass(let other): return .failure(.unusable("the CA key moved to \(other) while read"))
        case .vaultUnavailable(let reason): return .failure(.unusable(reason))
        }
        let key: SSHPrivateKey
        switch SSHPrivateKey.fromKeyFile(file, passphrase: nil) {
        case .success(let made): key = made
        case .failure(let problem): return .failure(.unusable("the CA key cannot sign: \(problem.message)"))
        }
        var signed = certificate
        signed.signatureKey = key.publicBlob
        signed.nonce = Sodium.randomBytes(32)
        guard case .success(let signature) = key.sign(signed.signedBytes, flags: 0) else {
            return .failure(.unusable("the CA key could not sign"))
        }
        signed.signature = signature.blob
        do {
            return .success(try release(signed, logging: entry))
        } catch {
            return .failure(.unusable("the release log could not be written (\(error)); no certificate was issued"))
        }
    }
}

// UserCertificate: OpenSSH user certificates (`CertificateFile`, `ssh-keygen -s`) for sshelf's own client — the
// certificate a host's options name for the key being tried, found by the key itself (a certificate embeds the
// public key it certifies), offered as that key's public half while the key signs. A certificate is public: read
// from its file, never from the vault.
import FoundationEssentials
import ShelfCore
import ShelfSystem

/// The signature of `data` made with the key in `keyFile` — the signature's own bytes, without the algorithm's
/// name (libssh2 adds it) — nil when it cannot sign (the login then goes on without the certificate).
public typealias CertificateSigner =
    @Sendable (_ keyFile: SecretBytes, _ passphrase: SecretBytes?, _ data: [UInt8])
    -> [UInt8]?

enum UserCertificate {
    static let suffix = "-cert-v01@openssh.com"

    /// The first certificate (its blob) in `paths` (read as OpenSSH does: `~` expanded, missing files skipped)
    /// that certifies the key whose public blob is `publicBlob`. RSA certificates are left out: libssh2 would name
    /// them ssh-rsa-cert (SHA-1), which OpenSSH 8.8 and later refuse.
    static func matching(_ publicBlob: [UInt8], paths: [String], environment: [String: String]) -> [UInt8]? {
        for path in paths {
            let expanded = KeyFile.expanded(path, environment: environment)
            guard let text = try? String(contentsOfFile: expanded, encoding: .utf8) else { continue }
            let line = text.trimmingSpacesAndNewlines()
            guard let blob = IdentityKeys.blob(of: line), certifies(blob, publicBlob) else { continue }
            return blob
        }
        return nil
    }

    /// Whether the certificate blob embeds the public key `publicBlob`: its type is the key's type with the
    /// certificate suffix, and after its nonce come the key's own fields.
    static func certifies(_ certificate: [UInt8], _ publicBlob: [UInt8]) -> Bool {
        certificate.withUnsafeBytes { cert in
            publicBlob.withUnsafeBytes { key in
                var certReader = SSHWireReader(cert)
                var keyReader = SSHWireReader(key)
                guard let certType = certReader.text(limit: 256), let keyType = keyReader.text(limit: 256),
                    certType == keyType + suffix, keyType != "ssh-rsa", certReader.string(limit: 1024) != nil
                else { return false }
                let keyFields = key[keyReader.offset...]
                return cert[certReader.offset...].starts(with: keyFields) && !keyFields.isEmpty
            }
        }
    }
}

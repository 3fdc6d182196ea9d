// AgentLockHash: what the agent keeps after `ssh-add -x` — an Argon2id hash of the lock passphrase with a random
// salt (OpenSSH's agent keeps a bcrypt_pbkdf hash), never the passphrase itself.
import CSodium

public struct AgentLockHash: Sendable {
    let salt: [UInt8]
    let hash: [UInt8]

    /// Argon2id at libsodium's INTERACTIVE limits: the agent answers within a moment, and a memory dump of a locked
    /// agent does not hand over the passphrase.
    private static func parameters(_ salt: [UInt8]) -> Sodium.StretchParameters {
        Sodium.StretchParameters(
            opsLimit: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
            memLimit: UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE), salt: salt)
    }

    public static func make(_ passphrase: UnsafeRawBufferPointer) -> AgentLockHash? {
        let salt = Sodium.randomBytes(Sodium.StretchParameters.saltLength)
        guard let key = Sodium.stretch(SecretBytes(copying: passphrase), parameters(salt)) else { return nil }
        return AgentLockHash(salt: salt, hash: key.withUnsafeBytes { Array($0) })
    }

    /// Constant-time comparison of the recomputed hash.
    public func matches(_ passphrase: UnsafeRawBufferPointer) -> Bool {
        guard let key = Sodium.stretch(SecretBytes(copying: passphrase), Self.parameters(salt)) else { return false }
        return key.isEqual(to: SecretBytes(hash))
    }
}

// SyncCrypto: the libsodium primitives the sync group is built on — ed25519 device signatures, sealed boxes
// (X25519, derived from the signing key) that carry a group key to one device, subkey derivation, BLAKE2b
// digests, and XChaCha20-Poly1305 sealing. Keys and plaintexts that are secret pass as SecretBytes.
import CSodium
import FoundationEssentials

public enum SyncCrypto {
    public static let keyLength = 32
    public static let signatureLength = Int(crypto_sign_bytes())
    public static let publicKeyLength = Int(crypto_sign_publickeybytes())
    public static let digestLength = 32
    /// What crypto_box_seal adds to a message: an ephemeral public key and a MAC.
    public static let boxOverhead = Int(crypto_box_sealbytes())
    /// nonce ‖ tag around every sealed section.
    public static let sealOverhead = Sodium.nonceLength + Sodium.tagLength

    /// A device's signing key (from a 32-byte seed kept in the vault) and the X25519 key derived from it, on
    /// which other devices seal group keys for this one.
    public final class DeviceKeys: @unchecked Sendable {
        public let signingPublicKey: [UInt8]
        public let boxPublicKey: [UInt8]
        let signingSecret: SecretBytes
        let boxSecret: SecretBytes

        /// Nil when the seed has the wrong length or libsodium refuses it.
        public init?(seed: SecretBytes) {
            guard Sodium.initialize(), seed.count == Int(crypto_sign_seedbytes()) else { return nil }
            var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
            let secret = SecretBytes(count: Int(crypto_sign_secretkeybytes()))
            let made = secret.withBytes { sk, _ in
                seed.withBytes { s, _ in crypto_sign_seed_keypair(&publicKey, sk, s) }
            }
            guard made == 0, let boxPublic = SyncCrypto.boxPublicKey(signingPublicKey: publicKey) else { return nil }
            let boxSecret = SecretBytes(count: Int(crypto_scalarmult_curve25519_bytes()))
            let converted = boxSecret.withBytes { out, _ in
                secret.withBytes { sk, _ in crypto_sign_ed25519_sk_to_curve25519(out, sk) }
            }
            guard converted == 0 else { return nil }
            signingPublicKey = publicKey
            boxPublicKey = boxPublic
            signingSecret = secret
            self.boxSecret = boxSecret
        }

        /// A detached ed25519 signature of `message`.
        public func sign(_ message: [UInt8]) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: signatureLength)
            signingSecret.withBytes { sk, _ in
                _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), sk)
            }
            return signature
        }

        /// Opens a sealed box addressed to this device; nil when it was sealed for another key or altered.
        public func openSealedBox(_ sealed: [UInt8]) -> SecretBytes? {
            guard sealed.count >= boxOverhead else { return nil }
            let plaintext = SecretBytes(count: sealed.count - boxOverhead)
            let rc = plaintext.withBytes { out, _ in
                boxSecret.withBytes { sk, _ in
                    crypto_box_seal_open(out, sealed, UInt64(sealed.count), boxPublicKey, sk)
                }
            }
            return rc == 0 ? plaintext : nil
        }
    }

    /// A fresh 32-byte seed or key from the system's random source.
    public static func randomKey() -> SecretBytes { Sodium.randomKey() }

    public static func randomBytes(_ count: Int) -> [UInt8] { Sodium.randomBytes(count) }

    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard Sodium.initialize(), signature.count == signatureLength, publicKey.count == publicKeyLength else {
            return false
        }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// The X25519 public key of an ed25519 public key; nil for a point that is not a valid key.
    public static func boxPublicKey(signingPublicKey: [UInt8]) -> [UInt8]? {
        guard signingPublicKey.count == publicKeyLength else { return nil }
        var out = [UInt8](repeating: 0, count: Int(crypto_scalarmult_curve25519_bytes()))
        return crypto_sign_ed25519_pk_to_curve25519(&out, signingPublicKey) == 0 ? out : nil
    }

    /// Seals `plaintext` so only the holder of the box key can open it (an anonymous sender: the envelope
    /// that carries it is signed separately).
    public static func sealedBox(_ plaintext: SecretBytes, to boxPublicKey: [UInt8]) -> [UInt8]? {
        guard Sodium.initialize(), boxPublicKey.count == Int(crypto_box_publickeybytes()) else { return nil }
        var out = [UInt8](repeating: 0, count: plaintext.count + boxOverhead)
        let rc = plaintext.withBytes { message, length in crypto_box_seal(&out, message, UInt64(length), boxPublicKey) }
        return rc == 0 ? out : nil
    }

    /// A subkey of `key` for one purpose (libsodium's KDF: BLAKE2b with an 8-character context and a number),
    /// so one group key never seals two kinds of thing under the same key.
    public static func derive(_ key: SecretBytes, context: String, id: UInt64, length: Int = keyLength) -> SecretBytes {
        precondition(context.utf8.count == Int(crypto_kdf_contextbytes()) && key.count == Int(crypto_kdf_keybytes()))
        let subkey = SecretBytes(count: length)
        let contextBytes = Array(context.utf8).map { CChar(bitPattern: $0) }
        subkey.withBytes { out, count in
            key.withBytes { k, _ in _ = crypto_kdf_derive_from_key(out, count, id, contextBytes, k) }
        }
        return subkey
    }

    /// BLAKE2b-256 of public bytes (entry and certificate digests).
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: digestLength)
        _ = crypto_generichash(&out, digestLength, bytes, UInt64(bytes.count), nil, 0)
        return out
    }

    /// BLAKE2b under a key: a digest that reveals nothing to whoever lacks the key.
    public static func keyedDigest(_ data: SecretBytes, key: SecretBytes, length: Int = digestLength) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        data.withBytes { bytes, count in
            key.withBytes { k, keyCount in _ = crypto_generichash(&out, length, bytes, UInt64(count), k, keyCount) }
        }
        return out
    }

    /// XChaCha20-Poly1305 with a fresh random nonce: nonce ‖ ciphertext ‖ tag.
    public static func seal(_ plaintext: SecretBytes, key: SecretBytes, associatedData: [UInt8]) -> [UInt8] {
        Sodium.seal(plaintext, key: key, associatedData: associatedData)
    }

    /// The plaintext, or nil when the key is wrong or anything the associated data binds was changed.
    public static func open(_ sealed: [UInt8], key: SecretBytes, associatedData: [UInt8]) -> SecretBytes? {
        Sodium.open(sealed, key: key, associatedData: associatedData)
    }
}

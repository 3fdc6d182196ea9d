// Sodium: process-wide libsodium initialisation and the few primitives the vault uses: random bytes,
// XChaCha20-Poly1305 (IETF) sealing, Argon2id stretching. Every key and plaintext passes as SecretBytes.
import CSodium

public enum Sodium {
    /// Initialises libsodium (idempotent, thread-safe per its docs). Returns false if the library is unusable.
    public static func initialize() -> Bool { sodium_init() >= 0 }

    public static var version: String { String(cString: sodium_version_string()) }

    static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        if count > 0 { randombytes_buf(&bytes, count) }
        return bytes
    }

    static func randomKey() -> SecretBytes {
        let key = SecretBytes(count: keyLength)
        key.withBytes { pointer, count in randombytes_buf(pointer, count) }
        return key
    }

    /// nonce ‖ ciphertext ‖ tag, with a fresh random nonce.
    static func seal(_ plaintext: SecretBytes, key: SecretBytes, associatedData: [UInt8]) -> [UInt8] {
        precondition(key.count == keyLength)
        let nonce = randomBytes(nonceLength)
        var body = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written: UInt64 = 0
        plaintext.withBytes { message, messageLength in
            key.withBytes { keyBytes, _ in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &body, &written, message, UInt64(messageLength), associatedData, UInt64(associatedData.count),
                    nil, nonce, keyBytes)
            }
        }
        return nonce + body
    }

    /// The plaintext, or nil when the blob is malformed, the key is wrong or anything it binds was changed.
    static func open(_ sealed: [UInt8], key: SecretBytes, associatedData: [UInt8]) -> SecretBytes? {
        guard key.count == keyLength, sealed.count >= nonceLength + tagLength else { return nil }
        let nonce = Array(sealed[..<nonceLength])
        let body = Array(sealed[nonceLength...])
        let plaintext = SecretBytes(count: body.count - tagLength)
        var written: UInt64 = 0
        let rc = plaintext.withBytes { out, _ in
            key.withBytes { keyBytes, _ in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    out, &written, nil, body, UInt64(body.count), associatedData, UInt64(associatedData.count),
                    nonce, keyBytes)
            }
        }
        return rc == 0 ? plaintext : nil
    }

    /// Argon2id parameters; stored beside the salt and authenticated as associated data of every
    /// passphrase-wrapped class key, so lowering them in the file makes the unwrap fail.
    struct StretchParameters: Equatable, Sendable {
        var opsLimit: UInt64
        var memLimit: UInt64
        var salt: [UInt8]

        static var saltLength: Int { Int(crypto_pwhash_SALTBYTES) }
        static func moderate() -> StretchParameters {
            StretchParameters(
                opsLimit: UInt64(crypto_pwhash_OPSLIMIT_MODERATE),
                memLimit: UInt64(crypto_pwhash_MEMLIMIT_MODERATE), salt: randomBytes(saltLength))
        }
        /// libsodium's minimum: only for the test suite (SSHELF_TEST_WEAK_KDF); `vault audit` reports it.
        static func minimum() -> StretchParameters {
            StretchParameters(
                opsLimit: UInt64(crypto_pwhash_OPSLIMIT_MIN),
                memLimit: UInt64(crypto_pwhash_MEMLIMIT_MIN), salt: randomBytes(saltLength))
        }
        var isBelowModerate: Bool {
            opsLimit < UInt64(crypto_pwhash_OPSLIMIT_MODERATE) || memLimit < UInt64(crypto_pwhash_MEMLIMIT_MODERATE)
        }
    }

    /// Argon2id(passphrase) → 32-byte key; nil if libsodium refuses (out of memory, bad parameters).
    static func stretch(_ passphrase: SecretBytes, _ parameters: StretchParameters) -> SecretBytes? {
        guard parameters.salt.count == StretchParameters.saltLength,
            parameters.opsLimit >= UInt64(crypto_pwhash_OPSLIMIT_MIN),
            parameters.opsLimit <= 64, parameters.memLimit >= UInt64(crypto_pwhash_MEMLIMIT_MIN),
            parameters.memLimit <= 4 << 30
        else { return nil }
        let key = SecretBytes(count: keyLength)
        let rc = key.withBytes { out, outLength in
            passphrase.withBytes { input, inputLength in
                input.withMemoryRebound(to: CChar.self, capacity: max(inputLength, 1)) { text in
                    crypto_pwhash(
                        out, UInt64(outLength), text, UInt64(inputLength), parameters.salt,
                        parameters.opsLimit, Int(parameters.memLimit), crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        return rc == 0 ? key : nil
    }
}

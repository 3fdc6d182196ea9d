// OpenSSHKeyDecryption: the private section of an encrypted "openssh-key-v1" file — the key and IV from
// bcrypt_pbkdf(passphrase, salt, rounds), then the cipher ssh-keygen chose: aes128/192/256-ctr (its default),
// aes128/192/256-cbc and aes128/256-gcm@openssh.com through libcrypto, chacha20-poly1305@openssh.com through
// libsodium. The plaintext lands in guarded memory; a wrong passphrase shows as the check bytes differing.
import COpenSSL
import CSodium
import ShelfCore

enum OpenSSHKeyDecryption {
    struct Cipher: Sendable {
        var name: String
        var keyLength: Int
        var ivLength: Int
        var blockSize: Int
        var tagLength: Int
        var evp: (@Sendable () -> OpaquePointer?)?
    }

    static let ciphers: [Cipher] = [
        Cipher(
            name: "aes128-ctr", keyLength: 16, ivLength: 16, blockSize: 16, tagLength: 0, evp: { EVP_aes_128_ctr() }),
        Cipher(
            name: "aes192-ctr", keyLength: 24, ivLength: 16, blockSize: 16, tagLength: 0, evp: { EVP_aes_192_ctr() }),
        Cipher(
            name: "aes256-ctr", keyLength: 32, ivLength: 16, blockSize: 16, tagLength: 0, evp: { EVP_aes_256_ctr() }),
        Cipher(
            name: "aes128-cbc", keyLength: 16, ivLength: 16, blockSize: 16, tagLength: 0, evp: { EVP_aes_128_cbc() }),
        Cipher(
            name: "aes192-cbc", keyLength: 24, ivLength: 16, blockSize: 16, tagLength: 0, evp: { EVP_aes_192_cbc() }),
        Cipher(
            name: "aes256-cbc", keyLength: 32, ivLength: 16, blockSize: 16, tagLength: 0, evp: { EVP_aes_256_cbc() }),
        Cipher(
            name: "aes128-gcm@openssh.com", keyLength: 16, ivLength: 12, blockSize: 16, tagLength: 16,
            evp: { EVP_aes_128_gcm() }),
        Cipher(
            name: "aes256-gcm@openssh.com", keyLength: 32, ivLength: 12, blockSize: 16, tagLength: 16,
            evp: { EVP_aes_256_gcm() }),
        Cipher(
            name: "chacha20-poly1305@openssh.com", keyLength: 64, ivLength: 0, blockSize: 8, tagLength: 16, evp: nil),
    ]

    /// bcrypt_pbkdf rounds beyond this are refused: a doctored file must not keep the agent busy for hours
    /// (ssh-keygen writes 16; 1000 takes about a minute).
    static let maximumRounds = 1000

    /// `section` is the encrypted private section; `trailing` what follows it in the file (an AEAD's tag).
    static func open(
        _ section: UnsafeRawBufferPointer, trailing: UnsafeRawBufferPointer, cipher name: String,
        kdf: String, kdfOptions: UnsafeRawBufferPointer, passphrase: SecretBytes?
    )
        -> Result<SecretBytes, KeyProblem>
    {
        guard let cipher = ciphers.first(where: { $0.name == name }) else {
            return .failure(KeyProblem("it is encrypted with '\(name)', a cipher sshelf does not know"))
        }
        guard kdf == "bcrypt" else { return .failure(KeyProblem("it is encrypted with the unknown KDF '\(kdf)'")) }
        var options = SSHWireReader(kdfOptions)
        guard let salt = options.string(limit: 1024), let rounds = options.uint32(), options.isAtEnd else {
            return .failure(KeyProblem("its bcrypt parameters are malformed"))
        }
        guard rounds >= 1, rounds <= maximumRounds else {
            return .failure(KeyProblem("it asks for \(rounds) bcrypt rounds (sshelf allows 1-\(maximumRounds))"))
        }
        guard let passphrase, !passphrase.isEmpty else {
            return .failure(KeyProblem("it is encrypted and its passphrase is not in the vault"))
        }
        guard !section.isEmpty, section.count % cipher.blockSize == 0, trailing.count >= cipher.tagLength else {
            return .failure(KeyProblem("its encrypted section is malformed"))
        }
        guard
            let material = BcryptPBKDF.derive(
                passphrase: passphrase, salt: Array(salt), rounds: Int(rounds),
                length: cipher.keyLength + cipher.ivLength)
        else { return .failure(KeyProblem("bcrypt_pbkdf refused its parameters")) }
        let tag = UnsafeRawBufferPointer(rebasing: trailing.prefix(cipher.tagLength))
        let plain =
            cipher.evp.map { evp in
                libcrypto(evp(), cipher, material: material, section: section, tag: tag)
            } ?? chachaPoly(material: material, section: section, tag: tag)
        guard let plain else {
            return .failure(KeyProblem("wrong passphrase for the key (it did not decrypt)", wrongPassphrase: true))
        }
        return .success(plain)
    }

    private static func libcrypto(
        _ evp: OpaquePointer?, _ cipher: Cipher, material: SecretBytes,
        section: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    ) -> SecretBytes? {
        guard let evp, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let plain = SecretBytes(count: section.count + cipher.blockSize)
        var total: Int32 = 0
        let ok = material.withBytes { key, _ -> Bool in
            plain.withBytes { out, _ -> Bool in
                guard EVP_DecryptInit_ex(context, evp, nil, nil, nil) == 1 else { return false }
                if cipher.tagLength > 0 {
                    guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(cipher.ivLength), nil) == 1 else {
                        return false
                    }
                }
                guard EVP_DecryptInit_ex(context, nil, nil, key, key + cipher.keyLength) == 1,
                    EVP_CIPHER_CTX_set_padding(context, 0) == 1
                else { return false }
                var written: Int32 = 0
                guard
                    EVP_DecryptUpdate(
                        context, out, &written, section.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        Int32(section.count)) == 1
                else { return false }
                total = written
                if cipher.tagLength > 0 {
                    var copy = Array(tag)
                    guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(copy.count), &copy) == 1 else {
                        return false
                    }
                }
                guard EVP_DecryptFinal_ex(context, out + Int(written), &written) == 1 else { return false }
                total += written
                return true
            }
        }
        LibCrypto.clearErrors()
        return ok ? plain.prefix(Int(total)) : nil
    }

    /// OpenSSH's chacha20-poly1305 for one message with sequence number 0 and no length header: the Poly1305 key
    /// is the first 32 bytes of the keystream (counter 0), the text is decrypted from counter 1.
    private static func chachaPoly(
        material: SecretBytes, section: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    )
        -> SecretBytes?
    {
        let nonce = [UInt8](repeating: 0, count: 8)
        let ciphertext = Array(section)
        let expected = Array(tag)
        let polyKey = SecretBytes(count: 32)
        let plain = SecretBytes(count: ciphertext.count)
        let ok = material.withBytes { key, _ -> Bool in
            polyKey.withBytes { poly, _ in _ = crypto_stream_chacha20(poly, 32, nonce, key) }
            let verified = polyKey.withBytes { poly, _ in
                crypto_onetimeauth_poly1305_verify(expected, ciphertext, UInt64(ciphertext.count), poly) == 0
            }
            guard verified else { return false }
            plain.withBytes { out, _ in
                _ = crypto_stream_chacha20_xor_ic(out, ciphertext, UInt64(ciphertext.count), nonce, 1, key)
            }
            return true
        }
        return ok ? plain : nil
    }
}

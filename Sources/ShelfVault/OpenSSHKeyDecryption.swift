// OpenSSHKeyDecryption: the private section of an encrypted OpenSSH key file. OpenSSH derives the cipher key
// with bcrypt_pbkdf, which neither libsodium nor libcrypto provides, so such a key is refused here with the
// reason and the way out (docs/SSH.md, "Keys the agent serves").
import ShelfCore

enum OpenSSHKeyDecryption {
    static func open(_ section: UnsafeRawBufferPointer, cipher: String, kdf: String, kdfOptions: UnsafeRawBufferPointer,
                     passphrase: SecretBytes?) -> Result<SecretBytes, KeyProblem>
    {
        .failure(KeyProblem("it is an encrypted OpenSSH key (\(cipher), \(kdf)), which sshelf cannot decrypt"))
    }
}

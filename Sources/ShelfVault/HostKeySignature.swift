// HostKeySignature: checks a server's signature with its host key — what the sshelf agent does with the
// session-bind@openssh.com message an ssh client sends, before it believes which server a signature is for.
// Public data only: ed25519 through libsodium, ECDSA and RSA (SHA-2) through libcrypto.
import CSodium
import ShelfCore

public enum HostKeySignature {
    /// Whether `signature` (SSH's `string algorithm, string signature`) is `hostKey`'s over `data`.
    public static func verify(hostKey: [UInt8], signature: [UInt8], data: [UInt8]) -> Bool {
        hostKey.withUnsafeBytes { keyBytes in
            signature.withUnsafeBytes { signatureBytes in
                var key = SSHWireReader(keyBytes)
                var sig = SSHWireReader(signatureBytes)
                guard let keyType = key.text(limit: AgentLimits.name),
                    let algorithm = sig.text(limit: AgentLimits.name),
                    let value = sig.string(limit: AgentLimits.keyBlob), sig.isAtEnd
                else { return false }
                switch keyType {
                case "ssh-ed25519":
                    guard algorithm == keyType, let publicKey = key.string(limit: 32), publicKey.count == 32,
                        key.isAtEnd,
                        value.count == 64
                    else { return false }
                    return crypto_sign_verify_detached(
                        value.baseAddress!.assumingMemoryBound(to: UInt8.self), data, UInt64(data.count),
                        publicKey.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
                case let type where type.hasPrefix("ecdsa-sha2-"):
                    guard algorithm == keyType, let curve = SSHKeyAlgorithm(rawValue: type)?.curve,
                        key.text(limit: AgentLimits.name) == curve.ssh,
                        let point = key.string(limit: AgentLimits.keyField),
                        key.isAtEnd, let ecKey = LibCrypto.ecPublicKey(group: curve.openSSL, point: point)
                    else { return false }
                    var parts = SSHWireReader(value)
                    guard let r = parts.positiveMPInt(limit: 66), let s = parts.positiveMPInt(limit: 66), parts.isAtEnd,
                        let der = LibCrypto.ecdsaDER(r: r, s: s)
                    else { return false }
                    return LibCrypto.verify(ecKey, hash: curve.hash, signature: der, data: data)
                case "ssh-rsa":
                    let hash: LibCrypto.Hash
                    switch algorithm {
                    case "rsa-sha2-256": hash = .sha256
                    case "rsa-sha2-512": hash = .sha512
                    default: return false
                    }
                    guard let e = key.positiveMPInt(limit: AgentLimits.keyField),
                        let n = key.positiveMPInt(limit: AgentLimits.keyField), key.isAtEnd,
                        let rsaKey = LibCrypto.rsaPublicKey(n: n, e: e)
                    else { return false }
                    return LibCrypto.verify(rsaKey, hash: hash, signature: Array(value), data: data)
                default:
                    return false
                }
            }
        }
    }
}

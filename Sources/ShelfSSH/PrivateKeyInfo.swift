// PrivateKeyInfo: reads only the header of a private key (its type, whether a passphrase protects it) so the
// flow can ask for a passphrase and explain libssh2 1.10's RSA limit. The decoded copy is zeroed at once.
import Foundation
import ShelfCore

struct PrivateKeyInfo: Equatable {
    var type: KeyType?
    var encrypted: Bool

    static func inspect(_ key: SecretBytes) -> PrivateKeyInfo {
        key.withUnsafeBytes { bytes in
            let text = String(decoding: bytes.prefix(64), as: UTF8.self)
            if text.contains("BEGIN RSA PRIVATE KEY") { return PrivateKeyInfo(type: .rsa, encrypted: pemEncrypted(bytes)) }
            if text.contains("BEGIN EC PRIVATE KEY") { return PrivateKeyInfo(type: .ecdsa, encrypted: pemEncrypted(bytes)) }
            if text.contains("BEGIN ENCRYPTED PRIVATE KEY") { return PrivateKeyInfo(type: nil, encrypted: true) }
            guard text.contains("BEGIN OPENSSH PRIVATE KEY") else { return PrivateKeyInfo(type: nil, encrypted: false) }
            return openSSH(bytes)
        }
    }

    private static func pemEncrypted(_ bytes: UnsafeRawBufferPointer) -> Bool {
        String(decoding: bytes.prefix(200), as: UTF8.self).contains("ENCRYPTED")
    }

    /// openssh-key-v1: magic, cipher name, kdf name, kdf options, key count, then the public key blob.
    private static func openSSH(_ bytes: UnsafeRawBufferPointer) -> PrivateKeyInfo {
        var body = [UInt8]()
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("-----") {
            body += Array(line.trimmingCharacters(in: .whitespaces).utf8)
        }
        var decoded = [UInt8](Data(base64Encoded: Data(body)) ?? Data())
        defer {
            decoded.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
            body.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
        }
        let magic = Array("openssh-key-v1\0".utf8)
        guard decoded.count > magic.count, Array(decoded.prefix(magic.count)) == magic else {
            return PrivateKeyInfo(type: nil, encrypted: false)
        }
        var reader = WireReader(Array(decoded.dropFirst(magic.count)))
        guard let cipher = reader.string(), reader.string() != nil, reader.string() != nil, reader.uint32() != nil,
            let publicBlob = reader.string(), let key = HostKey(blob: publicBlob)
        else { return PrivateKeyInfo(type: nil, encrypted: false) }
        return PrivateKeyInfo(type: KeyType(openSSHAlgorithm: key.type), encrypted: cipher != Array("none".utf8))
    }
}

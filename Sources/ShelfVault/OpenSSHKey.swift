// OpenSSHKey: private key files as the vault stores them — a new ed25519 key in OpenSSH format (libsodium),
// and recognising an imported key (OpenSSH or PEM, encrypted or not, its public half when readable).
import CSodium
import ShelfCore

public enum OpenSSHKey {
    public enum Format: String, Sendable { case openssh, pem }

    /// What an imported key file is, learned without decrypting it.
    public struct Inspection: Sendable {
        public var format: Format
        public var encrypted: Bool
        /// `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`… when the file says (OpenSSH format does).
        public var keyType: String?
        /// The one-line public key (`type base64`) when the file holds it unencrypted.
        public var publicKey: String?
    }

    static let opensshBegin = "-----BEGIN OPENSSH PRIVATE KEY-----"
    static let opensshEnd = "-----END OPENSSH PRIVATE KEY-----"

    /// A new ed25519 key pair: the private key as an unencrypted OpenSSH key file (in guarded memory), and the
    /// public key line `ssh-ed25519 AAAA… comment` for authorized_keys.
    public static func generateEd25519(comment: String) -> (privateKey: SecretBytes, publicKey: String) {
        precondition(Sodium.initialize())
        let seed = SecretBytes(count: 32)
        seed.withBytes { pointer, count in randombytes_buf(pointer, count) }
        let (publicKey, secretKey) = Ed25519.expand(seed)
        let publicBlob = SSHWire.string(Array("ssh-ed25519".utf8)) + SSHWire.string(publicKey)
        let fields = SecretBytes.joined([
            SecretBytes(SSHWire.string(publicKey) + SSHWire.uint32(UInt32(secretKey.count))), secretKey,
        ])
        let file = encodeFile(publicBlob: publicBlob, keyType: "ssh-ed25519", fields: fields, comment: comment)
        return (file, SSHPublicKey.line(publicBlob, comment: comment))
    }

    /// An unencrypted OpenSSH key file: `openssh-key-v1`, cipher and KDF "none", one public blob, and the private
    /// section (check bytes twice, type, fields, comment, padding 1 2 3…), base64 between the armour lines.
    static func encodeFile(publicBlob: [UInt8], keyType: String, fields: SecretBytes, comment: String) -> SecretBytes {
        let check = Sodium.randomBytes(4)
        let privateHead = check + check + SSHWire.string(Array(keyType.utf8))
        var privateTail = SSHWire.string(Array(comment.utf8))
        var padding: UInt8 = 1
        while (privateHead.count + fields.count + privateTail.count) % 8 != 0 {
            privateTail.append(padding)
            padding += 1
        }
        let privateSection = SecretBytes.joined([SecretBytes(privateHead), fields, SecretBytes(privateTail)])
        let head =
            Array("openssh-key-v1".utf8) + [0] + SSHWire.string(Array("none".utf8)) + SSHWire.string(Array("none".utf8))
            + SSHWire.string([]) + SSHWire.uint32(1) + SSHWire.string(publicBlob)
            + SSHWire.uint32(UInt32(privateSection.count))
        let binary = SecretBytes.joined([SecretBytes(head), privateSection])
        let encoded = base64(binary)
        // Wrap at 70 columns between the armour lines, as ssh-keygen does.
        var lines: [SecretBytes] = [SecretBytes(Array((opensshBegin + "\n").utf8))]
        var offset = 0
        while offset < encoded.count {
            let length = min(70, encoded.count - offset)
            let line = SecretBytes(count: length + 1)
            line.withBytes { out, _ in
                encoded.withBytes { source, _ in (out).update(from: source + offset, count: length) }
                out[length] = 0x0a
            }
            lines.append(line)
            offset += length
        }
        lines.append(SecretBytes(Array((opensshEnd + "\n").utf8)))
        return SecretBytes.joined(lines)
    }

    /// Recognises a private key file. Nil when it is neither OpenSSH nor PEM armour.
    public static func inspect(_ file: SecretBytes) -> Inspection? {
        file.withUnsafeBytes { bytes -> Inspection? in
            let text = bytes.prefix(64)
            func starts(_ prefix: String) -> Bool { text.starts(with: Array(prefix.utf8)) }
            if starts(opensshBegin) { return inspectOpenSSH(file) }
            for armour in ["RSA", "EC", "DSA"] where starts("-----BEGIN \(armour) PRIVATE KEY-----") {
                let encrypted = contains(bytes, Array("ENCRYPTED".utf8))
                return Inspection(format: .pem, encrypted: encrypted, keyType: nil, publicKey: nil)
            }
            if starts("-----BEGIN PRIVATE KEY-----") {
                return Inspection(format: .pem, encrypted: false, keyType: nil, publicKey: nil)
            }
            if starts("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
                return Inspection(format: .pem, encrypted: true, keyType: nil, publicKey: nil)
            }
            return nil
        }
    }

    /// The OpenSSH header is readable even for an encrypted key: cipher name and public key come first.
    private static func inspectOpenSSH(_ file: SecretBytes) -> Inspection? {
        guard let binary = decodeArmour(file) else { return nil }
        return binary.withUnsafeBytes { bytes -> Inspection? in
            var reader = SSHWireReader(bytes)
            guard reader.take(15).map(Array.init) == Array("openssh-key-v1".utf8) + [0],
                let cipher = reader.string(limit: AgentLimits.name), reader.string(limit: AgentLimits.name) != nil,
                reader.string(limit: AgentLimits.keyField) != nil, reader.uint32() == 1,
                let publicBlob = reader.string(limit: AgentLimits.keyBlob)
            else { return nil }
            var blobReader = SSHWireReader(publicBlob)
            let type = blobReader.string(limit: AgentLimits.name).map { String(decoding: $0, as: UTF8.self) }
            let line = type.map { "\($0) " + String(decoding: base64Public(Array(publicBlob)), as: UTF8.self) }
            return Inspection(
                format: .openssh, encrypted: Array(cipher) != Array("none".utf8), keyType: type, publicKey: line)
        }
    }

    /// The base64 between the armour lines, decoded into guarded memory.
    static func decodeArmour(_ file: SecretBytes) -> SecretBytes? {
        file.withBytes { pointer, count -> SecretBytes? in
            let begin = opensshBegin.utf8.count
            guard let endIndex = find(UnsafeRawBufferPointer(start: pointer, count: count), Array(opensshEnd.utf8)),
                endIndex > begin
            else { return nil }
            let decoded = SecretBytes(count: (endIndex - begin) * 3 / 4 + 3)
            var length = 0
            let rc = decoded.withBytes { out, capacity in
                sodium_base642bin(
                    out, capacity, UnsafeRawPointer(pointer + begin).assumingMemoryBound(to: CChar.self),
                    endIndex - begin, " \r\n\t", &length, nil, Int32(sodium_base64_VARIANT_ORIGINAL))
            }
            return rc == 0 ? decoded.prefix(length) : nil
        }
    }

    private static func base64(_ data: SecretBytes) -> SecretBytes {
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL)
        let length = sodium_base64_encoded_len(data.count, variant)
        let out = SecretBytes(count: length)
        out.withBytes { target, capacity in
            data.withBytes { source, sourceLength in
                target.withMemoryRebound(to: CChar.self, capacity: capacity) { text in
                    _ = sodium_bin2base64(text, capacity, source, sourceLength, variant)
                }
            }
        }
        return out.prefix(length - 1)  // drop the terminating NUL
    }

    private static func base64Public(_ bytes: [UInt8]) -> [UInt8] {
        base64(SecretBytes(bytes)).withUnsafeBytes { Array($0) }
    }

    private static func find(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count, !needle.isEmpty else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }

    private static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        find(haystack, needle) != nil
    }
}

// PrivateKeyInfo: reads only the header of a private key (its type, whether a passphrase protects it) so the
// flow can ask for a passphrase and explain libssh2 1.10's RSA limit. The key is searched as bytes, never made
// a String; the one decoded copy lives in a buffer that is zeroed before it is freed.
import FoundationEssentials
import Glibc
import ShelfCore

struct PrivateKeyInfo: Equatable {
    var type: KeyType?
    var encrypted: Bool

    static func inspect(_ key: SecretBytes) -> PrivateKeyInfo {
        key.withUnsafeBytes { bytes in
            let head = UnsafeRawBufferPointer(rebasing: bytes.prefix(64))
            if contains(head, "BEGIN RSA PRIVATE KEY") {
                return PrivateKeyInfo(type: .rsa, encrypted: pemEncrypted(bytes))
            }
            if contains(head, "BEGIN EC PRIVATE KEY") {
                return PrivateKeyInfo(type: .ecdsa, encrypted: pemEncrypted(bytes))
            }
            if contains(head, "BEGIN ENCRYPTED PRIVATE KEY") { return PrivateKeyInfo(type: nil, encrypted: true) }
            guard contains(head, "BEGIN OPENSSH PRIVATE KEY") else {
                return PrivateKeyInfo(type: nil, encrypted: false)
            }
            return openSSH(bytes)
        }
    }

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { start in
            needle.indices.allSatisfy { bytes[start + $0] == needle[$0] }
        }
    }

    /// Traditional PEM says `Proc-Type: 4,ENCRYPTED` in its header lines, before the base64 body.
    private static func pemEncrypted(_ bytes: UnsafeRawBufferPointer) -> Bool {
        contains(UnsafeRawBufferPointer(rebasing: bytes.prefix(200)), "ENCRYPTED")
    }

    /// openssh-key-v1: magic, cipher name, kdf name, kdf options, key count, then the public key blob — all
    /// before the private section, and read in place from the decoded buffer.
    private static func openSSH(_ bytes: UnsafeRawBufferPointer) -> PrivateKeyInfo {
        var decoded = Base64Body.decode(bytes)
        defer { decoded.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        let magic = Array("openssh-key-v1\0".utf8)
        guard decoded.count > magic.count, decoded.prefix(magic.count).elementsEqual(magic) else {
            return PrivateKeyInfo(type: nil, encrypted: false)
        }
        var offset = magic.count
        func field() -> Range<Int>? {
            guard offset + 4 <= decoded.count else { return nil }
            let length = decoded[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= decoded.count - offset - 4 else { return nil }
            defer { offset += 4 + length }
            return offset + 4..<offset + 4 + length
        }
        guard let cipher = field(), field() != nil, field() != nil, offset + 4 <= decoded.count else {
            return PrivateKeyInfo(type: nil, encrypted: false)
        }
        offset += 4  // the number of keys
        guard let publicKey = field(), let key = HostKey(blob: Array(decoded[publicKey])) else {
            return PrivateKeyInfo(type: nil, encrypted: false)
        }
        return PrivateKeyInfo(
            type: KeyType(openSSHAlgorithm: key.type), encrypted: !decoded[cipher].elementsEqual("none".utf8))
    }
}

/// The base64 body of an armoured key (the lines between `-----BEGIN` and `-----END`), decoded into one array
/// whose capacity is fixed up front, so no partial copy is left behind by a reallocation.
enum Base64Body {
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 4 + 3)
        var accumulator = 0, bits = 0
        var lineStart = true, skippingLine = false
        for byte in bytes {
            if byte == 0x0a {
                lineStart = true
                skippingLine = false
                continue
            }
            if lineStart {
                lineStart = false
                skippingLine = byte == UInt8(ascii: "-")
            }
            guard !skippingLine, let value = value(byte) else { continue }
            accumulator = (accumulator << 6 | value) & 0xffffff
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> bits) & 0xff))
            }
        }
        return out
    }

    private static func value(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

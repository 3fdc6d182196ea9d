// SyncKey: the 32-byte key the credential track is sealed under — made on the first device, carried to the
// others as a join code (base32 with a checksum, in groups of five for reading aloud), and used to seal and
// open credential batches (XChaCha20-Poly1305). The remote never sees it. Stored as `sync.key`.
import CSodium
import Foundation

public enum SyncKey {
    public static let length = 32
    /// Checksum bytes appended to the key in a join code: a mistyped code is caught before anything is written.
    static let checksumLength = 4
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    public static func generate() -> SecretBytes { Sodium.randomKey() }

    /// The join code for a key: 58 base32 characters in groups of five.
    public static func joinCode(for key: SecretBytes) -> String {
        let payload = SecretBytes.joined([key, SecretBytes(checksum(key))])
        var characters: [Character] = []
        payload.withUnsafeBytes { bytes in
            var buffer = 0, bits = 0
            for byte in bytes {
                buffer = (buffer << 8) | Int(byte)
                bits += 8
                while bits >= 5 {
                    characters.append(alphabet[(buffer >> (bits - 5)) & 31])
                    bits -= 5
                }
                buffer &= (1 << bits) - 1
            }
            if bits > 0 { characters.append(alphabet[(buffer << (5 - bits)) & 31]) }
        }
        return stride(from: 0, to: characters.count, by: 5)
            .map { String(characters[$0..<min($0 + 5, characters.count)]) }.joined(separator: "-")
    }

    /// The key in a join code. Spaces, dashes and case do not matter; a wrong character or a swapped pair
    /// fails the checksum and nothing is returned.
    public static func parse(joinCode text: String) throws(VaultError) -> SecretBytes {
        let symbols = text.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        let expected = ((length + checksumLength) * 8 + 4) / 5
        guard symbols.count == expected else {
            throw VaultError(.invalid, "the join code has \(symbols.count) characters; a join code has \(expected)",
                             hint: "copy it again from 'sshelf sync enable' on your first device")
        }
        let payload = SecretBytes(count: length + checksumLength)
        var ok = true
        payload.withUnsafeMutableBytes { out in
            var buffer = 0, bits = 0, index = 0
            for symbol in symbols {
                guard let value = alphabet.firstIndex(of: symbol) else { ok = false; return }
                buffer = (buffer << 5) | value
                bits += 5
                if bits >= 8, index < out.count {
                    out[index] = UInt8((buffer >> (bits - 8)) & 0xff)
                    index += 1
                    bits -= 8
                }
                buffer &= (1 << bits) - 1
            }
        }
        guard ok else { throw VaultError(.invalid, "the join code contains a character that is not in it (0, 1, 8 and 9 never are)") }
        let key = payload.prefix(length)
        let given = payload.withUnsafeBytes { Array($0[length...]) }
        guard given == checksum(key) else {
            throw VaultError(.invalid, "the join code is wrong (its checksum does not match)",
                             hint: "check it character by character; nothing was written")
        }
        return key
    }

    static func checksum(_ key: SecretBytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: checksumLength)
        // Domain-separated from every other use of the key: BLAKE2b over a label and the key.
        let input = SecretBytes.joined([SecretBytes(Array("sshelf-join-code".utf8)), key])
        input.withBytes { bytes, count in
            _ = crypto_generichash(&out, checksumLength, bytes, UInt64(count), nil, 0)
        }
        return out
    }

    /// Seals a credential batch: nonce ‖ ciphertext ‖ tag.
    public static func seal(_ plaintext: SecretBytes, key: SecretBytes, associatedData: [UInt8]) -> [UInt8] {
        Sodium.seal(plaintext, key: key, associatedData: associatedData)
    }

    /// Opens a credential batch; nil when tampered, truncated, sealed under another key or for another place.
    public static func open(_ sealed: [UInt8], key: SecretBytes, associatedData: [UInt8]) -> SecretBytes? {
        guard key.count == length else { return nil }
        return Sodium.open(sealed, key: key, associatedData: associatedData)
    }

    /// A keyed digest (BLAKE2b under the sync key): tells whether the credentials changed since the last upload
    /// without keeping anything that reveals them.
    public static func digest(_ data: SecretBytes, key: SecretBytes) -> String {
        var out = [UInt8](repeating: 0, count: 32)
        data.withBytes { bytes, count in
            key.withBytes { keyBytes, keyCount in
                _ = crypto_generichash(&out, 32, bytes, UInt64(count), keyBytes, keyCount)
            }
        }
        return out.map { String(format: "%02x", $0) }.joined()
    }
}

// SyncKey: codes typed from one device into another — base32 with a checksum, in groups of five for reading aloud
// (0, 1, 8 and 9 never appear) — and the format-1 sync key's join code, which is only recognised now so that
// `sync join` can say it belongs to an older sshelf (see InviteCode for what replaced it).
import CSodium
import FoundationEssentials

public enum SyncKey {
    public static let length = 32
    /// Checksum bytes appended to the key in a join code: a mistyped code is caught before anything is written.
    static let checksumLength = 4
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    public static func generate() -> SecretBytes { Sodium.randomKey() }

    /// How many code characters a payload of `bytes` bytes takes.
    static func symbols(forBytes bytes: Int) -> Int { (bytes * 8 + 4) / 5 }

    /// A format-1 join code's length, without dashes.
    public static var joinCodeSymbols: Int { symbols(forBytes: length + checksumLength) }

    /// The characters of a typed code without spaces and dashes, upper-cased.
    static func symbols(of text: String) -> [Character] {
        Array(text.uppercased().filter { !$0.isWhitespace && $0 != "-" })
    }

    /// Base32 in groups of five.
    static func encode(_ payload: SecretBytes) -> String {
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

    /// The `count` bytes in a code's symbols, into guarded memory; nil when a character is not in the alphabet.
    static func decode(_ symbols: [Character], count: Int) -> SecretBytes? {
        let payload = SecretBytes(count: count)
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
        return ok ? payload : nil
    }

    /// The join code for a key: 58 base32 characters in groups of five.
    public static func joinCode(for key: SecretBytes) -> String {
        encode(
            SecretBytes.joined([key, SecretBytes(checksum(key, label: "sshelf-join-code", length: checksumLength))]))
    }

    /// The key in a format-1 join code. Spaces, dashes and case do not matter; a wrong character or a swapped pair
    /// fails the checksum and nothing is returned.
    public static func parse(joinCode text: String) throws(VaultError) -> SecretBytes {
        let symbols = symbols(of: text)
        let expected = joinCodeSymbols
        guard symbols.count == expected else {
            throw VaultError(
                .invalid, "the join code has \(symbols.count) characters; a join code has \(expected)",
                hint: "copy it again from 'sshelf sync enable' on your first device")
        }
        guard let payload = decode(symbols, count: length + checksumLength) else {
            throw VaultError(.invalid, "the join code contains a character that is not in it (0, 1, 8 and 9 never are)")
        }
        let key = payload.prefix(length)
        let given = payload.withUnsafeBytes { Array($0[length...]) }
        guard given == checksum(key, label: "sshelf-join-code", length: checksumLength) else {
            throw VaultError(
                .invalid, "the join code is wrong (its checksum does not match)",
                hint: "check it character by character; nothing was written")
        }
        return key
    }

    /// A short BLAKE2b checksum of `data`, domain-separated by `label` from every other use of it.
    static func checksum(_ data: SecretBytes, label: String, length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let input = SecretBytes.joined([SecretBytes(Array(label.utf8)), data])
        input.withBytes { bytes, count in
            _ = crypto_generichash(&out, length, bytes, UInt64(count), nil, 0)
        }
        return out
    }
}

// BcryptPBKDF: OpenSSH's bcrypt_pbkdf (openbsd-compat/bcrypt_pbkdf.c), the key derivation of encrypted
// "openssh-key-v1" files — SHA-512 (libsodium) around the expensive Blowfish key schedule of bcrypt, with its
// non-linear spreading of the output. Neither libsodium nor libcrypto has it. Every buffer that depends on the
// passphrase lives in guarded memory and is zeroed when freed.
import CSodium
import ShelfCore

enum BcryptPBKDF {
    static let hashSize = 32
    fileprivate static let magic = Array("OxychromaticBlowfishSwatDynamite".utf8)

    /// `length` bytes of key material; nil for parameters OpenSSH refuses too (no rounds, empty input, too long).
    static func derive(passphrase: SecretBytes, salt: [UInt8], rounds: Int, length: Int) -> SecretBytes? {
        guard rounds >= 1, !passphrase.isEmpty, !salt.isEmpty, salt.count <= 1 << 20, length > 0,
            length <= hashSize * hashSize
        else { return nil }
        let stride = (length + hashSize - 1) / hashSize
        var amount = (length + stride - 1) / stride
        let key = SecretBytes(count: length)
        let passHash = SecretBytes(count: 64)
        passHash.withBytes { out, _ in
            passphrase.withBytes { input, count in _ = crypto_hash_sha512(out, input, UInt64(count)) }
        }
        let saltHash = SecretBytes(count: 64)
        let blockOut = SecretBytes(count: hashSize)
        let roundOut = SecretBytes(count: hashSize)
        let schedule = Blowfish()
        var remaining = length
        var count: UInt32 = 1
        while remaining > 0 {
            let countSalt = salt + SSHWire.uint32(count)
            saltHash.withBytes { out, _ in _ = crypto_hash_sha512(out, countSalt, UInt64(countSalt.count)) }
            schedule.hash(passHash, saltHash, into: roundOut)
            blockOut.withBytes { out, _ in roundOut.withBytes { source, size in out.update(from: source, count: size) }
            }
            for _ in 0..<(rounds - 1) {
                saltHash.withBytes { out, _ in
                    roundOut.withBytes { source, size in _ = crypto_hash_sha512(out, source, UInt64(size)) }
                }
                schedule.hash(passHash, saltHash, into: roundOut)
                blockOut.withBytes { out, size in
                    roundOut.withBytes { source, _ in for i in 0..<size { out[i] ^= source[i] } }
                }
            }
            amount = min(amount, remaining)
            var written = 0
            key.withBytes { keyBytes, _ in
                blockOut.withBytes { out, _ in
                    while written < amount {
                        let destination = written * stride + Int(count - 1)
                        if destination >= length { break }
                        keyBytes[destination] = out[written]
                        written += 1
                    }
                }
            }
            remaining -= written
            count += 1
        }
        return key
    }

    /// Blowfish's state, in guarded memory, with bcrypt's expensive key schedule.
    final class Blowfish {
        /// S-boxes (4 × 256 words) then the P-array (18 words).
        private let state = SecretBytes(count: (1024 + 18) * 4)

        private func withWords<R>(_ body: (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>) -> R) -> R {
            state.withBytes { bytes, _ in
                bytes.withMemoryRebound(to: UInt32.self, capacity: 1042) { words in body(words, words + 1024) }
            }
        }

        /// bcrypt_hash: schedule from (salt, passphrase), 64 more expansions of each, then 64 encryptions of
        /// the magic text; the result's words little-endian.
        func hash(_ passHash: SecretBytes, _ saltHash: SecretBytes, into out: SecretBytes) {
            passHash.withBytes { pass, passLength in
                saltHash.withBytes { salt, saltLength in
                    withWords { s, p in
                        for i in 0..<1024 { s[i] = BlowfishTables.s[i] }
                        for i in 0..<18 { p[i] = BlowfishTables.p[i] }
                        Self.expand(s, p, data: salt, dataLength: saltLength, key: pass, keyLength: passLength)
                        for _ in 0..<64 {
                            Self.expand(s, p, data: nil, dataLength: 0, key: salt, keyLength: saltLength)
                            Self.expand(s, p, data: nil, dataLength: 0, key: pass, keyLength: passLength)
                        }
                        var words = [UInt32](repeating: 0, count: 8)
                        var position = 0
                        BcryptPBKDF.magic.withUnsafeBufferPointer { text in
                            for i in 0..<8 { words[i] = Self.word(text.baseAddress!, 32, &position) }
                        }
                        for _ in 0..<64 {
                            for pair in 0..<4 {
                                var (left, right) = (words[pair * 2], words[pair * 2 + 1])
                                Self.encipher(s, p, &left, &right)
                                (words[pair * 2], words[pair * 2 + 1]) = (left, right)
                            }
                        }
                        out.withBytes { bytes, _ in
                            for i in 0..<8 {
                                bytes[4 * i] = UInt8(truncatingIfNeeded: words[i])
                                bytes[4 * i + 1] = UInt8(truncatingIfNeeded: words[i] >> 8)
                                bytes[4 * i + 2] = UInt8(truncatingIfNeeded: words[i] >> 16)
                                bytes[4 * i + 3] = UInt8(truncatingIfNeeded: words[i] >> 24)
                            }
                        }
                        for i in 0..<8 { words[i] = 0 }
                    }
                }
            }
        }

        /// Blowfish_stream2word: four bytes of a cyclic stream, big-endian.
        private static func word(_ data: UnsafePointer<UInt8>, _ length: Int, _ position: inout Int) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                if position >= length { position = 0 }
                value = value << 8 | UInt32(data[position])
                position += 1
            }
            return value
        }

        /// Blowfish_expandstate (with `data`) and Blowfish_expand0state (without): the key into P, then P and the
        /// S-boxes replaced by successive encryptions (of `data`-mixed blocks, or of the running block).
        private static func expand(
            _ s: UnsafeMutablePointer<UInt32>, _ p: UnsafeMutablePointer<UInt32>,
            data: UnsafePointer<UInt8>?, dataLength: Int, key: UnsafePointer<UInt8>, keyLength: Int
        ) {
            var position = 0
            for i in 0..<18 { p[i] ^= word(key, keyLength, &position) }
            position = 0
            var left: UInt32 = 0
            var right: UInt32 = 0
            // P first, then the four S-boxes (contiguous), each pair of words the next encryption.
            for (table, count) in [(p, 18), (s, 1024)] {
                var i = 0
                while i < count {
                    if let data {
                        left ^= word(data, dataLength, &position)
                        right ^= word(data, dataLength, &position)
                    }
                    encipher(s, p, &left, &right)
                    table[i] = left
                    table[i + 1] = right
                    i += 2
                }
            }
        }

        @inline(__always)
        private static func f(_ s: UnsafeMutablePointer<UInt32>, _ x: UInt32) -> UInt32 {
            ((s[Int(x >> 24)] &+ s[256 + Int((x >> 16) & 0xff)]) ^ s[512 + Int((x >> 8) & 0xff)])
                &+ s[768 + Int(x & 0xff)]
        }

        private static func encipher(
            _ s: UnsafeMutablePointer<UInt32>, _ p: UnsafeMutablePointer<UInt32>,
            _ xl: inout UInt32, _ xr: inout UInt32
        ) {
            var left = xl ^ p[0]
            var right = xr
            var round = 1
            while round <= 16 {
                right ^= f(s, left) ^ p[round]
                left ^= f(s, right) ^ p[round + 1]
                round += 2
            }
            xl = right ^ p[17]
            xr = left
        }
    }
}

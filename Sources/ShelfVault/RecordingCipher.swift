// RecordingCipher: a session recording's encryption in format 1 (written where the CPU has no AES instructions, read
// forever; format 2 is RecordingCipherAES) — libsodium's crypto_secretstream (XChaCha20-Poly1305), one stream per
// recording, each chunk sealed as it is flushed. A chunk moved, dropped, repeated or changed does not open; the last
// chunk carries the final tag, so a recording cut short (a crash) is told apart from a finished one. The file's
// SHA-256 (for the release log) is libcrypto's, which uses the CPU's SHA instructions: libsodium's portable one cost
// more than the encryption itself (docs/PERFORMANCE.md, "Session recordings").
import COpenSSL
import CSodium

/// The recordings key as read from the vault: its bytes never leave ShelfVault.
public struct RecordingsKey: Sendable {
    let bytes: SecretBytes
}

/// The sealing end of one recording's stream.
public final class RecordingSealer: RecordingChunkSealer {
    /// Bytes of the stream header written at the start of the file.
    public static let headerLength = 24  // crypto_secretstream_xchacha20poly1305_HEADERBYTES
    /// Bytes a sealed chunk adds to its plaintext.
    public static let overhead = 17  // crypto_secretstream_xchacha20poly1305_ABYTES
    static let finalTag: UInt8 = 3  // crypto_secretstream_xchacha20poly1305_TAG_FINAL
    public var overhead: Int { Self.overhead }
    private var state = crypto_secretstream_xchacha20poly1305_state()
    /// The header to write before the first chunk.
    public let header: [UInt8]
    /// Bound to every chunk (the file's magic and the recording's id), so a chunk opens only in its own file.
    private let associatedData: [UInt8]

    public init(key: RecordingsKey, associatedData: [UInt8]) {
        var header = [UInt8](repeating: 0, count: Self.headerLength)
        var start = crypto_secretstream_xchacha20poly1305_state()
        key.bytes.withBytes { keyBytes, _ in
            _ = crypto_secretstream_xchacha20poly1305_init_push(&start, &header, keyBytes)
        }
        state = start
        sodium_memzero(&start, MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size)
        self.header = header
        self.associatedData = associatedData
    }

    /// `plaintext` sealed as the next chunk into `out`, which has room for it (`plaintext.count + overhead` bytes):
    /// nothing allocated, so a recorder sealing every chunk into one buffer of its own allocates nothing per chunk.
    /// Answers the sealed length; nil (nothing sealed, the stream unchanged) when `out` is too small.
    public func seal(_ plaintext: UnsafeRawBufferPointer, final: Bool, into out: UnsafeMutableRawBufferPointer) -> Int?
    {
        guard out.count >= plaintext.count + Self.overhead, let base = out.baseAddress else { return nil }
        var written: UInt64 = 0
        _ = crypto_secretstream_xchacha20poly1305_push(
            &state, base.assumingMemoryBound(to: UInt8.self), &written,
            plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count), associatedData,
            UInt64(associatedData.count), final ? Self.finalTag : 0)
        return Int(written)
    }

    deinit { sodium_memzero(&state, MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size) }
}

/// The opening end: chunks in the order they were written.
public final class RecordingOpener: RecordingChunkOpener {
    private var state = crypto_secretstream_xchacha20poly1305_state()
    private let associatedData: [UInt8]
    /// The final chunk was opened: the recording was finished.
    public private(set) var finished = false
    public var overhead: Int { RecordingSealer.overhead }

    /// Nil when the header is not one of this key's streams' (a short or damaged file).
    public init?(key: RecordingsKey, header: [UInt8], associatedData: [UInt8]) {
        guard header.count == RecordingSealer.headerLength else { return nil }
        var start = crypto_secretstream_xchacha20poly1305_state()
        let ok = key.bytes.withBytes { keyBytes, _ in
            crypto_secretstream_xchacha20poly1305_init_pull(&start, header, keyBytes) == 0
        }
        guard ok else { return nil }
        state = start
        sodium_memzero(&start, MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size)
        self.associatedData = associatedData
    }

    /// The next chunk's plaintext; nil when it does not open (changed, out of place, another key's, after the end).
    public func open(_ chunk: UnsafeRawBufferPointer) -> [UInt8]? {
        guard !finished, chunk.count >= RecordingSealer.overhead, let sealed = chunk.baseAddress else { return nil }
        var tag: UInt8 = 0
        var opened = true
        let plaintext = [UInt8](unsafeUninitializedCapacity: chunk.count - RecordingSealer.overhead) {
            buffer, initialized in
            var written: UInt64 = 0
            opened =
                crypto_secretstream_xchacha20poly1305_pull(
                    &state, buffer.baseAddress, &written, &tag, sealed.assumingMemoryBound(to: UInt8.self),
                    UInt64(chunk.count), associatedData, UInt64(associatedData.count)) == 0
            initialized = opened ? Int(written) : 0
        }
        guard opened else { return nil }
        if tag == RecordingSealer.finalTag { finished = true }
        return plaintext
    }

    deinit { sodium_memzero(&state, MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size) }
}

/// SHA-256 over a recording file as it is written or read, so the digest the release log keeps can be checked with
/// `sha256sum` too: libcrypto's (the CPU's SHA instructions where it has them), or libsodium's when libcrypto cannot
/// make a context (out of memory).
public final class RecordingDigest {
    private let context: OpaquePointer?
    private var fallback = crypto_hash_sha256_state()

    public init() {
        let made = EVP_MD_CTX_new()
        if let made, EVP_DigestInit_ex(made, EVP_sha256(), nil) == 1 {
            context = made
        } else {
            EVP_MD_CTX_free(made)
            ERR_clear_error()
            context = nil
            crypto_hash_sha256_init(&fallback)
        }
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if let context {
            _ = EVP_DigestUpdate(context, base, bytes.count)
        } else {
            crypto_hash_sha256_update(&fallback, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        }
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest in lowercase hex; the state is spent.
    public func hex() -> String {
        var out = [UInt8](repeating: 0, count: 32)
        if let context {
            var length: UInt32 = 0
            _ = EVP_DigestFinal_ex(context, &out, &length)
        } else {
            crypto_hash_sha256_final(&fallback, &out)
        }
        let digits = Array("0123456789abcdef")
        return String(out.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}

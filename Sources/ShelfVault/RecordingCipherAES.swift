// RecordingCipherAES: a session recording's encryption in format 2 — AES-256-GCM through libcrypto, which runs it
// on the CPU's AES and carry-less multiply instructions at about three times libsodium's secretstream (format 1),
// written when the CPU has them (docs/SESSIONS.md, "Format"). Every file has a key of its own (keyed BLAKE2b of the
// recordings key over a random salt and the recording's id), so a nonce — the chunk's index — never repeats under a
// key. Every chunk is bound to the file's magic and id and to whether it is the last: a chunk changed, moved, dropped,
// repeated or taken from another recording does not open, and a finished recording is told from one cut short.
import COpenSSL
import CSodium
import Glibc

/// What the two formats' ciphers share: the writer and the reader hold one of each, whichever the file is.
public protocol RecordingChunkSealer: AnyObject {
    /// The bytes after the file's magic and id, before the first chunk.
    var header: [UInt8] { get }
    /// Bytes a sealed chunk adds to its plaintext.
    var overhead: Int { get }
    /// `plaintext` sealed as the next chunk into `out` (which has room: `plaintext.count + overhead`); answers the
    /// sealed length, or nil when nothing could be sealed (`out` too small, the cipher failed).
    func seal(_ plaintext: UnsafeRawBufferPointer, final: Bool, into out: UnsafeMutableRawBufferPointer) -> Int?
}

public protocol RecordingChunkOpener: AnyObject {
    /// The final chunk was opened: the recording was finished.
    var finished: Bool { get }
    var overhead: Int { get }
    /// The next chunk's plaintext; nil when it does not open (changed, out of place, another file's, after the end).
    func open(_ chunk: UnsafeRawBufferPointer) -> [UInt8]?
}

/// Which cipher a recording file is sealed with: its magic's last digit.
public enum RecordingCipherVersion: Int, Sendable, CaseIterable {
    /// libsodium's crypto_secretstream (XChaCha20-Poly1305): what every CPU runs; read forever.
    case secretstream = 1
    /// AES-256-GCM through libcrypto: written when the CPU has AES-NI and PCLMULQDQ.
    case aesGCM = 2

    /// Bytes of the cipher's header (after the magic and the id).
    public var headerLength: Int {
        switch self {
        case .secretstream: RecordingSealer.headerLength
        case .aesGCM: RecordingAESSealer.headerLength
        }
    }

    /// What a new recording is written with: AES-256-GCM when `hardwareAES`, else the secretstream (AES without
    /// the instructions is slower than ChaCha20 and its table lookups leak timing).
    public static func preferred(hardwareAES: Bool = RecordingCipherVersion.hardwareAES()) -> Self {
        hardwareAES ? .aesGCM : .secretstream
    }

    /// Whether this CPU runs AES-256-GCM in hardware (AES-NI and PCLMULQDQ): libsodium's check of exactly that.
    /// `SSHELF_TEST_NO_AES_GCM=1` answers no, so tests can see the recorder on a CPU without them.
    public static func hardwareAES() -> Bool {
        if let forced = getenv("SSHELF_TEST_NO_AES_GCM"), String(cString: forced) == "1" { return false }
        return Sodium.initialize() && crypto_aead_aes256gcm_is_available() == 1
    }

    public func sealer(key: RecordingsKey, id: [UInt8], associatedData: [UInt8]) -> RecordingChunkSealer? {
        switch self {
        case .secretstream: RecordingSealer(key: key, associatedData: associatedData)
        case .aesGCM: RecordingAESSealer(key: key, id: id, associatedData: associatedData)
        }
    }

    /// Nil when the header is not one of this key's (a short or damaged file) or the cipher cannot be had.
    public func opener(key: RecordingsKey, header: [UInt8], id: [UInt8], associatedData: [UInt8])
        -> RecordingChunkOpener?
    {
        switch self {
        case .secretstream: RecordingOpener(key: key, header: header, associatedData: associatedData)
        case .aesGCM: RecordingAESOpener(key: key, salt: header, id: id, associatedData: associatedData)
        }
    }
}

/// Format 2's parts shared by the sealer and the opener.
enum RecordingAES {
    static let saltLength = 32
    static let tagLength = 16
    /// The chunk's first byte, in the clear and bound as associated data: 1 on the last chunk, 0 before.
    static let flagLength = 1
    static let overhead = flagLength + tagLength
    static let domain = Array("sshelf recording file key, format 2".utf8)

    /// An AES-256-GCM context keyed with this file's key (derived, used, wiped): nil when libcrypto cannot make one.
    static func context(key: RecordingsKey, salt: [UInt8], id: [UInt8], encrypt: Bool) -> OpaquePointer? {
        guard salt.count == saltLength, let context = EVP_CIPHER_CTX_new() else { return nil }
        var fileKey = [UInt8](repeating: 0, count: 32)
        defer { sodium_memzero(&fileKey, fileKey.count) }
        let input = domain + salt + id
        let keyed = key.bytes.withBytes { keyBytes, count in
            crypto_generichash(&fileKey, fileKey.count, input, UInt64(input.count), keyBytes, count) == 0
        }
        let ready =
            keyed
            && (encrypt
                ? EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, fileKey, nil)
                : EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, fileKey, nil)) == 1
        guard ready else {
            EVP_CIPHER_CTX_free(context)
            ERR_clear_error()
            return nil
        }
        return context
    }

    /// The 96-bit nonce of chunk `index` (big endian): unique in the file, and every file has its own key.
    static func nonce(_ index: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64($0))) }
    }
}

/// The sealing end of one format-2 recording: one libcrypto context for the whole file, keyed once.
public final class RecordingAESSealer: RecordingChunkSealer {
    public static let headerLength = RecordingAES.saltLength
    public let header: [UInt8]
    public var overhead: Int { RecordingAES.overhead }
    private let context: OpaquePointer
    /// The file's magic and id, then the chunk's flag (set before each chunk).
    private var associatedData: [UInt8]
    private var index: UInt64 = 0
    private var ended = false

    /// Nil when libcrypto cannot make the context (out of memory).
    public init?(key: RecordingsKey, id: [UInt8], associatedData: [UInt8]) {
        var salt = [UInt8](repeating: 0, count: RecordingAES.saltLength)
        guard Sodium.initialize() else { return nil }
        randombytes_buf(&salt, salt.count)
        guard let context = RecordingAES.context(key: key, salt: salt, id: id, encrypt: true) else { return nil }
        self.context = context
        self.header = salt
        self.associatedData = associatedData + [0]
    }

    /// Frees the context, which wipes the key schedule with it.
    deinit { EVP_CIPHER_CTX_free(context) }

    public func seal(_ plaintext: UnsafeRawBufferPointer, final: Bool, into out: UnsafeMutableRawBufferPointer) -> Int?
    {
        guard !ended, plaintext.count < Int32.max - 64, out.count >= plaintext.count + overhead,
            let base = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return nil }
        let flag: UInt8 = final ? 1 : 0
        base[0] = flag
        associatedData[associatedData.count - 1] = flag
        let sealed = base + RecordingAES.flagLength
        var length: Int32 = 0
        var tail: Int32 = 0
        var ok =
            EVP_EncryptInit_ex(context, nil, nil, nil, RecordingAES.nonce(index)) == 1
            && EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1
        if ok, let input = plaintext.baseAddress, !plaintext.isEmpty {
            ok =
                EVP_EncryptUpdate(
                    context, sealed, &length, input.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count)) == 1
        } else {
            length = 0
        }
        var spare: UInt8 = 0  // where the final step may write (GCM writes nothing there)
        ok =
            ok && EVP_EncryptFinal_ex(context, &spare, &tail) == 1 && Int(length) == plaintext.count && tail == 0
            && EVP_CIPHER_CTX_ctrl(
                context, EVP_CTRL_GCM_GET_TAG, Int32(RecordingAES.tagLength), sealed + plaintext.count) == 1
        guard ok else {
            ERR_clear_error()
            return nil
        }
        index += 1
        if final { ended = true }
        return plaintext.count + overhead
    }
}

/// The opening end of a format-2 recording: chunks in the order they were written.
public final class RecordingAESOpener: RecordingChunkOpener {
    public private(set) var finished = false
    public var overhead: Int { RecordingAES.overhead }
    private let context: OpaquePointer
    private var associatedData: [UInt8]
    private var index: UInt64 = 0

    /// Nil when the salt has the wrong length or libcrypto cannot make the context.
    public init?(key: RecordingsKey, salt: [UInt8], id: [UInt8], associatedData: [UInt8]) {
        guard Sodium.initialize(),
            let context = RecordingAES.context(key: key, salt: salt, id: id, encrypt: false)
        else { return nil }
        self.context = context
        self.associatedData = associatedData + [0]
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    public func open(_ chunk: UnsafeRawBufferPointer) -> [UInt8]? {
        guard !finished, chunk.count >= overhead, chunk.count < Int32.max,
            let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), base[0] <= 1
        else { return nil }
        let flag = base[0]
        associatedData[associatedData.count - 1] = flag
        let length = chunk.count - overhead
        let sealed = base + RecordingAES.flagLength
        var tag = Array(UnsafeBufferPointer(start: sealed + length, count: RecordingAES.tagLength))
        var ok = true
        let plaintext = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var written: Int32 = 0
            var tail: Int32 = 0
            ok =
                EVP_DecryptInit_ex(context, nil, nil, nil, RecordingAES.nonce(index)) == 1
                && EVP_DecryptUpdate(context, nil, &written, associatedData, Int32(associatedData.count)) == 1
            if ok, length > 0, let out = buffer.baseAddress {
                ok = EVP_DecryptUpdate(context, out, &written, sealed, Int32(length)) == 1
            } else {
                written = 0
            }
            var spare: UInt8 = 0  // where the final step may write (GCM writes nothing there)
            ok =
                ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &tag) == 1
                && EVP_DecryptFinal_ex(context, &spare, &tail) == 1 && Int(written) == length && tail == 0
            if !ok, let out = buffer.baseAddress { sodium_memzero(out, length) }  // not authentic: nobody's to see
            initialized = ok ? length : 0
        }
        guard ok else {
            ERR_clear_error()
            return nil
        }
        index += 1
        if flag == 1 { finished = true }
        return plaintext
    }
}

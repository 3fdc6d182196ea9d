// SecretBytes: a secret held in libsodium's guarded memory (sodium_malloc: guard pages, mlock where permitted),
// zeroed when released. Credentials travel through the vault API in this type, never in `String`.
import CSodium

public final class SecretBytes: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer
    public let count: Int

    /// A zero-filled buffer of `count` bytes. Traps only if the process is out of memory.
    public init(count: Int) {
        precondition(Sodium.initialize(), "libsodium failed to initialise")
        guard let memory = sodium_malloc(max(count, 1)) else { fatalError("sodium_malloc(\(count)) failed") }
        pointer = memory
        self.count = count
        sodium_memzero(pointer, max(count, 1))
    }

    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 { pointer.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// For tests and for values that were never secret-only (e.g. a gate flag); the caller's array is a copy
    /// the vault cannot zero.
    public convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count)
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress, raw.count > 0 { pointer.copyMemory(from: base, byteCount: raw.count) }
        }
    }

    deinit { sodium_free(pointer) }  // sodium_free zeroes before unmapping

    public var isEmpty: Bool { count == 0 }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// The bytes followed by a NUL, in a temporary guarded copy, for C APIs that take a C string (libssh2
    /// passwords and passphrases). The length passed excludes the NUL.
    public func withNulTerminated<R, E: Error>(_ body: (UnsafePointer<CChar>, Int) throws(E) -> R) throws(E) -> R {
        let copy = SecretBytes.joined([self, SecretBytes(count: 1)])
        return try body(UnsafeRawPointer(copy.pointer).assumingMemoryBound(to: CChar.self), count)
    }

    /// The guarded memory as a typed pointer that is never nil (even for zero bytes), for libsodium's
    /// non-null parameters.
    func withBytes<R>(_ body: (UnsafeMutablePointer<UInt8>, Int) throws -> R) rethrows -> R {
        try body(pointer.assumingMemoryBound(to: UInt8.self), count)
    }

    /// The first `length` bytes as a new buffer (used to trim a read that stopped short).
    public func prefix(_ length: Int) -> SecretBytes {
        let copy = SecretBytes(count: min(length, count))
        copy.pointer.copyMemory(from: pointer, byteCount: copy.count)
        return copy
    }

    /// Constant-time comparison, so comparing a typed passphrase leaks nothing through timing.
    public func isEqual(to other: SecretBytes) -> Bool {
        count == other.count && (count == 0 || sodium_memcmp(pointer, other.pointer, count) == 0)
    }

    /// Concatenation into a new guarded buffer.
    public static func joined(_ parts: [SecretBytes]) -> SecretBytes {
        let result = SecretBytes(count: parts.reduce(0) { $0 + $1.count })
        var offset = 0
        for part in parts where part.count > 0 {
            (result.pointer + offset).copyMemory(from: part.pointer, byteCount: part.count)
            offset += part.count
        }
        return result
    }
}

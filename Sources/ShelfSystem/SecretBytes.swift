// SecretBytes: a secret in memory (password, private key, class key, one-time code) — in its own pages with
// a guard page on each side, locked out of swap and core dumps where the kernel allows, zeroed on release,
// never printed. The vault and the SSH code share this one type; neither keeps a secret in a String.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    /// The whole mapping: guard page, data pages, guard page.
    private let region: UnsafeMutableRawPointer
    private let regionSize: Int
    private let dataPages: Int
    /// The bytes end right before the trailing guard page, so a read or write past the end faults at once.
    private let pointer: UnsafeMutableRawPointer
    public let count: Int

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// A zero-filled buffer of `count` bytes. Traps only if the process is out of memory.
    public init(count: Int) {
        precondition(count >= 0, "SecretBytes with a negative count")
        let page = Self.pageSize
        let data = (max(count, 1) + page - 1) / page * page
        let size = data + 2 * page
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            mapped != UnsafeMutableRawPointer(bitPattern: -1)
        else { fatalError("cannot map \(size) bytes for a secret: \(String(cString: strerror(errno)))") }
        region = mapped
        regionSize = size
        dataPages = data
        self.count = count
        pointer = mapped + page + data - count
        _ = mprotect(mapped, page, PROT_NONE)
        _ = mprotect(mapped + page + data, page, PROT_NONE)
        // Best effort, as libsodium's sodium_malloc: RLIMIT_MEMLOCK may refuse, the secret is still zeroed.
        _ = madvise(mapped + page, data, MADV_DONTDUMP)
        _ = mlock(mapped + page, data)
    }

    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 { pointer.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// For values that were never secret-only (a gate flag, a test vector): the caller's array is a copy this
    /// type cannot zero (see `take` for one it can).
    public convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count)
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress, raw.count > 0 { pointer.copyMemory(from: base, byteCount: raw.count) }
        }
    }

    /// Moves `bytes` into a new secret and zeroes the array.
    public static func take(_ bytes: inout [UInt8]) -> SecretBytes {
        let secret = SecretBytes(count: bytes.count)
        bytes.withUnsafeMutableBytes { source in
            if let base = source.baseAddress, source.count > 0 {
                secret.pointer.copyMemory(from: base, byteCount: source.count)
                explicit_bzero(base, source.count)
            }
        }
        bytes.removeAll()
        return secret
    }

    deinit {
        let data = region + Self.pageSize
        explicit_bzero(data, dataPages)
        _ = munlock(data, dataPages)
        munmap(region, regionSize)
    }

    public var isEmpty: Bool { count == 0 }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E)
        -> R
    {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// The memory as a typed pointer that is never nil (even for zero bytes), for C parameters that must not be
    /// null (libsodium's).
    public func withBytes<R>(_ body: (UnsafeMutablePointer<UInt8>, Int) throws -> R) rethrows -> R {
        try body(pointer.assumingMemoryBound(to: UInt8.self), count)
    }

    /// The bytes followed by a NUL, in a temporary guarded copy, for C APIs that take a C string (libssh2
    /// passwords, passphrases, PEM keys it runs strlen over). The length passed excludes the NUL.
    public func withNulTerminated<R, E: Error>(_ body: (UnsafePointer<CChar>, Int) throws(E) -> R) throws(E) -> R {
        let copy = SecretBytes.joined([self, SecretBytes(count: 1)])
        return try body(UnsafeRawPointer(copy.pointer).assumingMemoryBound(to: CChar.self), count)
    }

    /// The first `length` bytes as a new buffer (used to trim a read that stopped short).
    public func prefix(_ length: Int) -> SecretBytes {
        let copy = SecretBytes(count: min(max(length, 0), count))
        copy.pointer.copyMemory(from: pointer, byteCount: copy.count)
        return copy
    }

    /// Constant-time comparison (every byte is looked at whatever differs), so comparing a typed passphrase
    /// leaks nothing through timing.
    public func isEqual(to other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        let left = pointer.assumingMemoryBound(to: UInt8.self)
        let right = other.pointer.assumingMemoryBound(to: UInt8.self)
        for index in 0..<count { difference |= left[index] ^ right[index] }
        return difference == 0
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

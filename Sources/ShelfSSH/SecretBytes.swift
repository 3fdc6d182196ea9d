// SecretBytes: a credential in memory (password, private key, one-time code) that is zeroed when released and
// never printed. Dedicated buffer instead of String so the bytes are not copied around by the runtime.
import Foundation

public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    private let storage: UnsafeMutableRawBufferPointer
    public let count: Int

    public init(_ bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        storage = .allocate(byteCount: max(count, 1), alignment: 1)
        if count > 0, let base = bytes.baseAddress { storage.baseAddress!.copyMemory(from: base, byteCount: count) }
    }

    private init(capacity: Int) {
        count = capacity
        storage = .allocate(byteCount: max(capacity, 1), alignment: 1)
    }

    /// Copies `bytes` into a new secret and zeroes `bytes`.
    public static func take(_ bytes: inout [UInt8]) -> SecretBytes {
        let secret = SecretBytes(capacity: bytes.count)
        bytes.withUnsafeMutableBytes { source in
            if let base = source.baseAddress, source.count > 0 {
                secret.storage.baseAddress!.copyMemory(from: base, byteCount: source.count)
                explicit_bzero(base, source.count)
            }
        }
        bytes.removeAll()
        return secret
    }

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    public var isEmpty: Bool { count == 0 }

    public func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: storage.baseAddress, count: count))
    }

    /// The bytes with a trailing NUL, for C APIs that take a C string; the copy is zeroed after `body`.
    public func withCString<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
        defer {
            explicit_bzero(buffer, count + 1)
            buffer.deallocate()
        }
        if count > 0 { UnsafeMutableRawPointer(buffer).copyMemory(from: storage.baseAddress!, byteCount: count) }
        buffer[count] = 0
        return try body(buffer)
    }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
}

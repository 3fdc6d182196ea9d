// KeyFiles: the private part of an unencrypted OpenSSH key file as ssh-keygen wrote it — its type and the fields
// after the type name (what ssh-add sends an agent) — read independently of sshelf's own parser, for the tests that
// feed those fields to the agent or look for their bytes where they must not be.
import Foundation

public enum OpenSSHKeyFile {
    public static func privateFields(_ text: String) throws -> (type: String, fields: [UInt8]) {
        let base64 = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let binary = Data(base64Encoded: base64).map(Array.init) else { throw HarnessError("not base64") }
        var outer = Bytes(binary)
        _ = try outer.take(15)  // "openssh-key-v1\0"
        for _ in 0..<3 { _ = try outer.string() }  // cipher, KDF, KDF options
        _ = try outer.take(4)  // number of keys
        _ = try outer.string()  // public key
        var inner = Bytes(try outer.string())
        _ = try inner.take(8)  // check bytes, twice
        let type = String(decoding: try inner.string(), as: UTF8.self)
        let counts = [
            "ssh-ed25519": 2, "ecdsa-sha2-nistp256": 3, "ecdsa-sha2-nistp384": 3, "ecdsa-sha2-nistp521": 3,
            "ssh-rsa": 6,
        ]
        guard let count = counts[type] else { throw HarnessError("unexpected key type \(type)") }
        let start = inner.offset
        for _ in 0..<count { _ = try inner.string() }
        return (type, Array(inner.bytes[start..<inner.offset]))
    }

    public static func privateFields(path: String) throws -> (type: String, fields: [UInt8]) {
        try privateFields(try String(contentsOfFile: path, encoding: .utf8))
    }

    /// SSH `string`s one after another, bounds-checked.
    public struct Bytes {
        public let bytes: [UInt8]
        public private(set) var offset = 0
        public init(_ bytes: [UInt8]) { self.bytes = bytes }

        public mutating func take(_ count: Int) throws -> [UInt8] {
            guard count >= 0, offset + count <= bytes.count else { throw HarnessError("key file cut short") }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        public mutating func string() throws -> [UInt8] {
            let length = try take(4).reduce(0) { $0 << 8 | Int($1) }
            return try take(length)
        }
    }
}

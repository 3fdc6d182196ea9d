// HostKey: a server's public host key as received (wire blob) with its OpenSSH type name and SHA256 fingerprint.
import FoundationEssentials
import ShelfCore

public struct HostKey: Hashable, Sendable {
    /// The SSH wire-format public key blob (what known_hosts stores base64-encoded).
    public let blob: [UInt8]
    /// OpenSSH algorithm name read from the blob, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`.
    public let type: String

    public init?(blob: [UInt8]) {
        var reader = WireReader(blob)
        guard let name = reader.string(), !name.isEmpty, name.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return nil }
        self.blob = blob
        self.type = String(decoding: name, as: UTF8.self)
    }

    public init?(type: String, base64: String) {
        guard let data = Data(base64Encoded: base64), let key = HostKey(blob: [UInt8](data)), key.type == type else {
            return nil
        }
        self = key
    }

    public init?(pinned: PinnedHostKey) { self.init(type: pinned.type, base64: pinned.key) }

    public var base64: String { Data(blob).base64EncodedString() }

    /// `SHA256:…` exactly as `ssh-keygen -lf` and OpenSSH's prompts print it (unpadded base64).
    public var fingerprint: String {
        let text = Data(Digest.sha256(blob)).base64EncodedString()
        return "SHA256:" + text.replacing("=", with: "")
    }

    public var pinned: PinnedHostKey { PinnedHostKey(type: type, key: base64) }

    /// The known_hosts line for this key under the given host pattern.
    public func knownHostsLine(for pattern: String) -> String { "\(pattern) \(type) \(base64)" }
}

/// Reads SSH wire-format values (uint32 length-prefixed strings) with bounds checks; nil when out of bounds.
struct WireReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func uint32() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        defer { offset += 4 }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func string() -> [UInt8]? {
        guard let length = uint32(), length <= UInt32(bytes.count - offset) else { return nil }
        defer { offset += Int(length) }
        return Array(bytes[offset..<offset + Int(length)])
    }
}

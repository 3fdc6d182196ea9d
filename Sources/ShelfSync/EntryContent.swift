// EntryContent: the plaintexts inside an entry's two sealed sections. The roster section lists certificates; the
// content section holds config records (a JSON array) and, when the credential track is on, this device's sealed
// credential set (built and read in guarded memory, never as a String or a Swift array).
import FoundationEssentials
import ShelfCore
import ShelfVault

enum RosterSection {
    static let magic = Array("SSHRST02".utf8)
    static let maxCertificates = 100_000

    static func encode(_ certificates: [Certificate]) -> SecretBytes {
        var writer = ByteWriter()
        writer.raw(magic)
        writer.u32(certificates.count)
        for certificate in certificates { writer.blob(certificate.bytes) }
        return SecretBytes(writer.bytes)
    }

    /// The certificates in a roster section (they are public within the group: copying them out is fine).
    static func decode(_ plaintext: SecretBytes) throws(FramingError) -> [Certificate] {
        var reader = ByteReader(plaintext.withUnsafeBytes { Array($0) }, what: "the roster section")
        guard try reader.take(magic.count) == magic else {
            throw FramingError("the roster section is not of this format")
        }
        let count = try reader.count(limit: maxCertificates, minimumSize: 4)
        var out: [Certificate] = []
        for _ in 0..<count { out.append(try Certificate(parsing: try reader.blob(limit: Certificate.maxBytes))) }
        try reader.expectEnd()
        return out
    }
}

struct EntryContent {
    static let magic = Array("SSHCNT02".utf8)

    var records: [SyncRecord]
    /// This device's credential set (CredentialBatch framing), when it sends one.
    var credentials: SecretBytes?

    func encode() throws -> SecretBytes {
        let json = JSONValue.array(records.map(\.jsonValue)).jsonBytes
        var head = ByteWriter()
        head.raw(EntryContent.magic)
        head.blob(Array(json))
        head.u8(credentials == nil ? 0 : 1)
        guard let credentials else { return SecretBytes(head.bytes) }
        head.u32(credentials.count)
        return SecretBytes.joined([SecretBytes(head.bytes), credentials])
    }

    /// Reads the records (not secret) out of the plaintext, and copies the credential set guarded memory to
    /// guarded memory.
    static func decode(_ plaintext: SecretBytes, limit: Int) throws(FramingError) -> EntryContent {
        var failure: FramingError?
        var records: [SyncRecord] = []
        var credentials: SecretBytes?
        plaintext.withUnsafeBytes { buffer in
            var offset = 0
            func take(_ count: Int) -> UnsafeRawBufferPointer? {
                guard count >= 0, count <= buffer.count - offset else { return nil }
                defer { offset += count }
                return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
            }
            func int(_ width: Int) -> Int? { take(width).map { $0.reduce(0) { ($0 << 8) | Int($1) } } }
            guard let head = take(magic.count), Array(head) == magic, let length = int(4), length <= limit,
                let json = take(length), let flag = int(1)
            else {
                failure = FramingError("the entry's content is truncated or not of this format")
                return
            }
            do {
                guard case .array(let values) = try JSONValue.parse(json) else {
                    throw JSONTextError(description: "not a list")
                }
                records = try values.map { value throws(JSONTextError) in try SyncRecord(json: value) }
            } catch {
                failure = FramingError("the entry's records do not parse (\(error))")
                return
            }
            guard flag == 1 else {
                if offset != buffer.count { failure = FramingError("the entry's content has trailing bytes") }
                return
            }
            guard let count = int(4), let bytes = take(count), offset == buffer.count else {
                failure = FramingError("the entry's credential section is truncated")
                return
            }
            credentials = SecretBytes(copying: bytes)
        }
        if let failure { throw failure }
        return EntryContent(records: records, credentials: credentials)
    }
}

// Entry: one immutable file in a device's chain (`devices/<device>/<seq>.entry`) — a plaintext header that names
// no host (group, device, sequence number, the previous entry's digest, the epoch, whether it is a snapshot),
// two sealed sections (roster certificates under the group's roster key; records and credentials under the
// epoch's key; both bind the header as associated data) and the device's ed25519 signature over all of it.
import FoundationEssentials
import ShelfVault

struct EntryHeader: Equatable {
    static let magic = Array("SSHELFE2".utf8)
    static let size = 8 + 16 + 16 + 8 + 32 + 16 + 1

    var group: UUID
    var device: UUID
    var seq: UInt64
    /// BLAKE2b-256 of the whole previous entry file of this device; zeros before the first.
    var previous: [UInt8]
    /// The epoch whose key seals the content section.
    var epoch: UUID
    /// A snapshot holds the device's whole state: a reader that missed earlier entries may start here.
    var snapshot: Bool

    var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.raw(EntryHeader.magic)
        writer.uuid(group)
        writer.uuid(device)
        writer.u64(seq)
        writer.raw(previous)
        writer.uuid(epoch)
        writer.u8(snapshot ? 1 : 0)
        return writer.bytes
    }

    static let noPrevious = [UInt8](repeating: 0, count: SyncCrypto.digestLength)
}

struct Entry {
    static let signatureLabel = Array("sshelf-entry\u{0}".utf8)
    static let rosterLabel = Array("sshelf-entry-roster\u{0}".utf8)
    static let contentLabel = Array("sshelf-entry-content\u{0}".utf8)

    let header: EntryHeader
    let sealedRoster: [UInt8]
    let sealedContent: [UInt8]
    let bytes: [UInt8]
    let digest: [UInt8]

    /// Seals both sections and signs the whole file.
    init(
        header: EntryHeader, roster: SecretBytes, rosterKey: SecretBytes, content: SecretBytes, contentKey: SecretBytes,
        keys: SyncCrypto.DeviceKeys
    ) {
        let headerBytes = header.bytes
        sealedRoster = SyncCrypto.seal(roster, key: rosterKey, associatedData: Entry.rosterLabel + headerBytes)
        sealedContent = SyncCrypto.seal(content, key: contentKey, associatedData: Entry.contentLabel + headerBytes)
        var writer = ByteWriter()
        writer.raw(headerBytes)
        writer.blob(sealedRoster)
        writer.blob(sealedContent)
        writer.raw(keys.sign(Entry.signatureLabel + writer.bytes))
        self.header = header
        bytes = writer.bytes
        digest = SyncCrypto.digest(bytes)
    }

    /// Parses the structure only (bounds, magic, lengths); the signature and sections are checked by the reader.
    init(parsing bytes: [UInt8], limit: Int) throws(FramingError) {
        var reader = ByteReader(bytes, what: "the entry")
        guard try reader.take(EntryHeader.magic.count) == EntryHeader.magic else {
            throw FramingError("not an entry of this format")
        }
        let group = try reader.uuid(), device = try reader.uuid(), seq = try reader.u64()
        let previous = try reader.take(SyncCrypto.digestLength), epoch = try reader.uuid()
        let flags = try reader.u8()
        guard flags <= 1 else { throw FramingError("the entry has unknown flags") }
        header = EntryHeader(
            group: group, device: device, seq: seq, previous: previous, epoch: epoch, snapshot: flags == 1)
        sealedRoster = try reader.blob(limit: limit)
        sealedContent = try reader.blob(limit: limit)
        _ = try reader.take(SyncCrypto.signatureLength)
        try reader.expectEnd()
        guard sealedRoster.count >= SyncCrypto.sealOverhead, sealedContent.count >= SyncCrypto.sealOverhead else {
            throw FramingError("the entry's sealed sections are too short")
        }
        self.bytes = bytes
        digest = SyncCrypto.digest(bytes)
    }

    func isSigned(by publicKey: [UInt8]) -> Bool {
        SyncCrypto.verify(
            Array(bytes.suffix(SyncCrypto.signatureLength)),
            of: Entry.signatureLabel + bytes.dropLast(SyncCrypto.signatureLength),
            publicKey: publicKey)
    }

    func openRoster(_ key: SecretBytes) -> SecretBytes? {
        SyncCrypto.open(sealedRoster, key: key, associatedData: Entry.rosterLabel + header.bytes)
    }

    func openContent(_ key: SecretBytes) -> SecretBytes? {
        SyncCrypto.open(sealedContent, key: key, associatedData: Entry.contentLabel + header.bytes)
    }
}

/// The keys each group secret and epoch key are split into, so no key seals two kinds of thing.
enum SyncKeys {
    static func roster(_ groupSecret: SecretBytes) -> SecretBytes {
        SyncCrypto.derive(groupSecret, context: "sshelfrs", id: 1)
    }
    static func content(_ epochKey: SecretBytes) -> SecretBytes {
        SyncCrypto.derive(epochKey, context: "sshelfct", id: 1)
    }
    /// Keys the local digest that tells whether this device's credentials changed since it last sent them.
    static func credentialDigest(_ groupSecret: SecretBytes) -> SecretBytes {
        SyncCrypto.derive(groupSecret, context: "sshelfcd", id: 1)
    }
}

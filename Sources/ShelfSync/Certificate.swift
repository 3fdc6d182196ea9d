// Certificate: one signed roster statement — the group's genesis, a device added, a device revoked, a new epoch,
// an epoch key shared with one device. Each is self-contained (signed by the device that made it), so any member
// can carry it in its entries and the roster never depends on one file or one writer. Format in docs/SYNC.md.
import FoundationEssentials
import ShelfVault

struct Certificate: Equatable {
    enum Body: Equatable {
        /// The group's first statement, signed by the device that created the group with the key it names.
        case genesis(name: String, signingKey: [UInt8])
        /// `device` joined with this key through `invite`; it received the keys of `epochs` in the invite.
        case add(device: UUID, name: String, signingKey: [UInt8], invite: UUID, epochs: [UUID])
        /// `device` is revoked: its entries up to `upTo` (as verified by the signer) stand, later ones never do;
        /// `kept` lists the digests of certificates it signed that the signer had accepted.
        case revoke(device: UUID, upTo: UInt64, upToDigest: [UInt8], kept: [[UInt8]])
        /// The signer made a new group key, epoch `number`.
        case epoch(id: UUID, number: UInt32)
        /// The key of `epoch`, sealed to `recipient`'s box key.
        case share(epoch: UUID, recipient: UUID, sealedKey: [UInt8])

        var kind: UInt8 {
            switch self {
            case .genesis: 1
            case .add: 2
            case .revoke: 3
            case .epoch: 4
            case .share: 5
            }
        }
    }

    static let magic = Array("SSHELFC1".utf8)
    static let signatureLabel = Array("sshelf-certificate\u{0}".utf8)
    static let maxBytes = 64 * 1024
    static let maxName = 64
    static let maxListed = 4096

    let group: UUID
    let signer: UUID
    /// The signer's clock when it signed, in milliseconds (shown as "added on", "revoked on"; never trusted for order).
    let time: Int64
    let body: Body
    /// The signed encoding, and its BLAKE2b-256 digest (how certificates are named and deduplicated).
    let bytes: [UInt8]
    let digest: [UInt8]

    /// Signs a new certificate with this device's keys.
    init(group: UUID, signer: UUID, time: Int64, body: Body, keys: SyncCrypto.DeviceKeys) {
        var writer = Certificate.unsignedPart(group: group, signer: signer, time: time, body: body)
        let signature = keys.sign(Certificate.signatureLabel + writer.bytes)
        writer.raw(signature)
        self.group = group
        self.signer = signer
        self.time = time
        self.body = body
        bytes = writer.bytes
        digest = SyncCrypto.digest(bytes)
    }

    /// Parses a certificate; its signature is checked later, against the signer's key from the roster.
    init(parsing bytes: [UInt8]) throws(FramingError) {
        guard bytes.count <= Certificate.maxBytes else { throw FramingError("a certificate is too large") }
        var reader = ByteReader(bytes, what: "a certificate")
        guard try reader.take(Certificate.magic.count) == Certificate.magic else {
            throw FramingError("not a certificate")
        }
        let kind = try reader.u8()
        group = try reader.uuid()
        signer = try reader.uuid()
        time = try reader.i64()
        switch kind {
        case 1:
            body = .genesis(
                name: try reader.text(limit: Certificate.maxName),
                signingKey: try reader.take(SyncCrypto.publicKeyLength))
        case 2:
            let device = try reader.uuid()
            let name = try reader.text(limit: Certificate.maxName)
            let key = try reader.take(SyncCrypto.publicKeyLength)
            let invite = try reader.uuid()
            let count = try reader.count(width: 2, limit: Certificate.maxListed, minimumSize: 16)
            var epochs: [UUID] = []
            for _ in 0..<count { epochs.append(try reader.uuid()) }
            body = .add(device: device, name: name, signingKey: key, invite: invite, epochs: epochs)
        case 3:
            let device = try reader.uuid()
            let upTo = try reader.u64()
            let upToDigest = try reader.take(SyncCrypto.digestLength)
            let count = try reader.count(width: 2, limit: Certificate.maxListed, minimumSize: SyncCrypto.digestLength)
            var kept: [[UInt8]] = []
            for _ in 0..<count { kept.append(try reader.take(SyncCrypto.digestLength)) }
            body = .revoke(device: device, upTo: upTo, upToDigest: upToDigest, kept: kept)
        case 4:
            body = .epoch(id: try reader.uuid(), number: UInt32(try reader.u32()))
        case 5:
            body = .share(
                epoch: try reader.uuid(), recipient: try reader.uuid(),
                sealedKey: try reader.take(SyncCrypto.keyLength + SyncCrypto.boxOverhead))
        default:
            throw FramingError("a certificate of unknown kind \(kind)")
        }
        _ = try reader.take(SyncCrypto.signatureLength)
        try reader.expectEnd()
        self.bytes = bytes
        digest = SyncCrypto.digest(bytes)
    }

    var signature: [UInt8] { Array(bytes.suffix(SyncCrypto.signatureLength)) }

    /// Whether `publicKey` signed exactly these bytes.
    func isSigned(by publicKey: [UInt8]) -> Bool {
        SyncCrypto.verify(
            signature, of: Certificate.signatureLabel + bytes.dropLast(SyncCrypto.signatureLength), publicKey: publicKey
        )
    }

    /// A device name cut to what a certificate holds, on a character boundary.
    static func clip(_ name: String) -> String {
        var out = ""
        for character in name {
            guard out.utf8.count + String(character).utf8.count <= maxName else { break }
            out.append(character)
        }
        return out
    }

    /// Whether every fixed-size field has its size (a certificate that breaks this would not parse anywhere).
    static func isWellFormed(_ body: Body) -> Bool {
        switch body {
        case .genesis(_, let key): key.count == SyncCrypto.publicKeyLength
        case .add(_, _, let key, _, let epochs): key.count == SyncCrypto.publicKeyLength && epochs.count <= maxListed
        case .revoke(_, _, let digest, let kept):
            digest.count == SyncCrypto.digestLength && kept.count <= maxListed
                && kept.allSatisfy { $0.count == SyncCrypto.digestLength }
        case .epoch: true
        case .share(_, _, let sealed): sealed.count == SyncCrypto.keyLength + SyncCrypto.boxOverhead
        }
    }

    private static func unsignedPart(group: UUID, signer: UUID, time: Int64, body: Body) -> ByteWriter {
        precondition(isWellFormed(body), "a certificate with a field of the wrong size")
        var writer = ByteWriter()
        writer.raw(magic)
        writer.u8(body.kind)
        writer.uuid(group)
        writer.uuid(signer)
        writer.i64(time)
        switch body {
        case .genesis(let name, let key):
            writer.text(clip(name))
            writer.raw(key)
        case .add(let device, let name, let key, let invite, let epochs):
            writer.uuid(device)
            writer.text(clip(name))
            writer.raw(key)
            writer.uuid(invite)
            writer.u16(epochs.count)
            for epoch in epochs { writer.uuid(epoch) }
        case .revoke(let device, let upTo, let digest, let kept):
            writer.uuid(device)
            writer.u64(upTo)
            writer.raw(digest)
            writer.u16(kept.count)
            for item in kept { writer.raw(item) }
        case .epoch(let id, let number):
            writer.uuid(id)
            writer.u32(Int(number))
        case .share(let epoch, let recipient, let sealed):
            writer.uuid(epoch)
            writer.uuid(recipient)
            writer.raw(sealed)
        }
        return writer
    }
}

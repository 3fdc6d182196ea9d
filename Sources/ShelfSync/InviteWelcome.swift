// InviteWelcome: `invites/<id>.<device>.welcome`, what the inviting device gives the device it just enrolled —
// the group secret, every epoch key it holds, every certificate (its `add` of the new device among them) and the
// chain heads it verified — sealed to the box key of the signing key the new device claimed with. Only that device
// can open it, so the group's keys reach enrolled devices only: a code used once, or a box the remote puts back,
// opens nothing more. The new device believes a welcome only when the roster in it enrolls it through this invite.
import FoundationEssentials
import ShelfCore
import ShelfVault

struct InviteWelcome {
    static let magic = Array("SSHWEL01".utf8)

    var invite: UUID
    var device: UUID
    var certificates: [Certificate]
    var heads: [InviteHead]
    var groupSecret: SecretBytes
    var epochs: [(id: UUID, key: SecretBytes)]

    /// A chain head the inviter had verified: the new device's reading of that chain must reach it.
    struct InviteHead: Equatable {
        var device: UUID
        var seq: Int64
        var digest: [UInt8]
    }

    /// Sealed to `boxKey` (the X25519 twin of the claimed signing key). The public part's length comes first, so a
    /// reader copies only it out of guarded memory; then the keys.
    func seal(to boxKey: [UInt8]) -> [UInt8]? {
        var head = ByteWriter()
        head.raw(InviteWelcome.magic)
        head.uuid(invite)
        head.uuid(device)
        head.u32(certificates.count)
        for certificate in certificates { head.blob(certificate.bytes) }
        head.u32(heads.count)
        for item in heads {
            head.uuid(item.device)
            head.u64(UInt64(item.seq))
            head.raw(item.digest)
        }
        var length = ByteWriter()
        length.u32(head.bytes.count)
        var parts = [SecretBytes(length.bytes + head.bytes), groupSecret]
        var count = ByteWriter()
        count.u32(epochs.count)
        parts.append(SecretBytes(count.bytes))
        for epoch in epochs {
            parts.append(SecretBytes(epoch.id.bytes))
            parts.append(epoch.key)
        }
        return SyncCrypto.sealedBox(SecretBytes.joined(parts), to: boxKey)
    }

    /// Opens a welcome with this device's keys; nil when it was sealed to another key (or altered). Throws when
    /// it opens but does not parse, or names another invite or device.
    static func open(_ sealed: [UInt8], keys: SyncCrypto.DeviceKeys, invite: UUID, device: UUID) throws(FramingError)
        -> InviteWelcome?
    {
        guard let plaintext = keys.openSealedBox(sealed) else { return nil }
        var failure: FramingError?
        var welcome: InviteWelcome?
        plaintext.withUnsafeBytes { buffer in
            let keyBytes = 32 + 4
            do {
                guard buffer.count >= 4 else { throw FramingError("the welcome is truncated") }
                let publicLength = buffer[0..<4].reduce(0) { ($0 << 8) | Int($1) }
                guard publicLength <= buffer.count - 4 else { throw FramingError("the welcome is truncated") }
                var reader = ByteReader(Array(buffer[4..<(4 + publicLength)]), what: "the welcome")
                guard try reader.take(magic.count) == magic else {
                    throw FramingError("the welcome is not of this format")
                }
                guard try reader.uuid() == invite, try reader.uuid() == device else {
                    throw FramingError("the welcome names another invite or device")
                }
                var certificates: [Certificate] = []
                for _ in 0..<(try reader.count(limit: 100_000, minimumSize: 4)) {
                    certificates.append(try Certificate(parsing: try reader.blob(limit: Certificate.maxBytes)))
                }
                var heads: [InviteHead] = []
                for _ in 0..<(try reader.count(limit: 100_000, minimumSize: 56)) {
                    heads.append(
                        InviteHead(
                            device: try reader.uuid(), seq: Int64(clamping: try reader.u64()),
                            digest: try reader.take(32)))
                }
                try reader.expectEnd()
                let start = 4 + publicLength
                guard buffer.count - start >= keyBytes else { throw FramingError("the welcome is truncated") }
                let secret = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: buffer[start..<(start + 32)]))
                var countReader = ByteReader(Array(buffer[(start + 32)..<(start + 36)]), what: "the welcome")
                let epochCount = try countReader.u32()
                guard epochCount <= 100_000, buffer.count - start - keyBytes == epochCount * 48 else {
                    throw FramingError("the welcome's keys are truncated")
                }
                var epochs: [(id: UUID, key: SecretBytes)] = []
                for index in 0..<epochCount {
                    let at = start + keyBytes + index * 48
                    epochs.append(
                        (
                            UUID(bytes: Array(buffer[at..<(at + 16)])),
                            SecretBytes(copying: UnsafeRawBufferPointer(rebasing: buffer[(at + 16)..<(at + 48)]))
                        ))
                }
                welcome = InviteWelcome(
                    invite: invite, device: device, certificates: certificates, heads: heads, groupSecret: secret,
                    epochs: epochs)
            } catch let error as FramingError {
                failure = error
            } catch {
                failure = FramingError("\(error)")
            }
        }
        if let failure { throw failure }
        return welcome
    }
}

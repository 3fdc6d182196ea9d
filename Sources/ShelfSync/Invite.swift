// Invite: the two sealed files of an enrollment. The inviting device writes `invites/<id>.box`, sealed under a key
// derived from the invite code: everything a new device needs to trust and read the group (the group key, the
// roster certificates and the genesis it starts from, every epoch key, the chain heads the inviter had verified,
// the expiry). The joining device writes `invites/<id>.<device>.claim`, sealed under another key from the code:
// its id, name and signing key, signed with that key. Without the code the remote can open neither nor forge one.
import Foundation
import ShelfCore
import ShelfVault

struct InviteBox {
    static let magic = Array("SSHINV02".utf8)
    static let label = Array("sshelf-invite-box\u{0}".utf8)

    struct Head: Equatable {
        var device: UUID
        var seq: Int64
        var digest: [UInt8]
    }

    var group: UUID
    var anchor: [UInt8]
    var inviter: UUID
    var inviterName: String
    var created: Date
    var expires: Date
    var credentials: Bool
    var groupSecret: SecretBytes
    var certificates: [Certificate]
    var epochs: [(id: UUID, key: SecretBytes)]
    var heads: [Head]

    /// Sealed under the code's box key, bound to the invite's id.
    func seal(_ code: InviteCode) -> [UInt8] {
        var head = ByteWriter()
        head.raw(InviteBox.magic)
        head.uuid(group)
        head.raw(anchor)
        head.uuid(inviter)
        head.text(Certificate.clip(inviterName))
        head.i64(HybridLogicalClock.milliseconds(created))
        head.i64(HybridLogicalClock.milliseconds(expires))
        head.u8(credentials ? 1 : 0)
        head.u32(certificates.count)
        for certificate in certificates { head.blob(certificate.bytes) }
        head.u32(heads.count)
        for item in heads {
            head.uuid(item.device)
            head.u64(UInt64(item.seq))
            head.raw(item.digest)
        }
        // The public part's length first, so a reader copies only it out of guarded memory; then the keys.
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
        return SyncCrypto.seal(SecretBytes.joined(parts), key: code.boxKey, associatedData: InviteBox.label + code.id.bytes)
    }

    /// Opens a box with the code; nil when the code is not the one it was sealed for, or it was altered.
    static func open(_ sealed: [UInt8], code: InviteCode) throws(FramingError) -> InviteBox? {
        guard let plaintext = SyncCrypto.open(sealed, key: code.boxKey, associatedData: label + code.id.bytes) else { return nil }
        var failure: FramingError?
        var box: InviteBox?
        plaintext.withUnsafeBytes { buffer in
            // Everything before the keys is public within the group; only that part is copied out to be parsed.
            let keyBytes = 32 + 4
            do {
                guard buffer.count >= 4 else { throw FramingError("the invite is truncated") }
                let publicLength = buffer[0..<4].reduce(0) { ($0 << 8) | Int($1) }
                guard publicLength <= buffer.count - 4 else { throw FramingError("the invite is truncated") }
                var reader = ByteReader(Array(buffer[4..<(4 + publicLength)]), what: "the invite")
                guard try reader.take(magic.count) == magic else { throw FramingError("the invite is not of this format") }
                let group = try reader.uuid(), anchor = try reader.take(32), inviter = try reader.uuid()
                let name = try reader.text(limit: Certificate.maxName)
                let created = try reader.i64(), expires = try reader.i64(), credentials = try reader.u8() == 1
                var certificates: [Certificate] = []
                for _ in 0..<(try reader.count(limit: 100_000, minimumSize: 4)) {
                    certificates.append(try Certificate(parsing: try reader.blob(limit: Certificate.maxBytes)))
                }
                var heads: [Head] = []
                for _ in 0..<(try reader.count(limit: 100_000, minimumSize: 56)) {
                    heads.append(Head(device: try reader.uuid(), seq: Int64(clamping: try reader.u64()), digest: try reader.take(32)))
                }
                try reader.expectEnd()
                let start = 4 + publicLength
                guard buffer.count - start >= keyBytes else { throw FramingError("the invite is truncated") }
                let secret = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: buffer[start..<(start + 32)]))
                var countReader = ByteReader(Array(buffer[(start + 32)..<(start + 36)]), what: "the invite")
                let epochCount = try countReader.u32()
                guard epochCount <= 100_000, buffer.count - start - keyBytes == epochCount * 48 else {
                    throw FramingError("the invite's keys are truncated")
                }
                var epochs: [(id: UUID, key: SecretBytes)] = []
                for index in 0..<epochCount {
                    let at = start + keyBytes + index * 48
                    epochs.append((UUID(bytes: Array(buffer[at..<(at + 16)])),
                                   SecretBytes(copying: UnsafeRawBufferPointer(rebasing: buffer[(at + 16)..<(at + 48)]))))
                }
                box = InviteBox(group: group, anchor: anchor, inviter: inviter, inviterName: name,
                                created: Date(timeIntervalSince1970: Double(created) / 1000),
                                expires: Date(timeIntervalSince1970: Double(expires) / 1000), credentials: credentials,
                                groupSecret: secret, certificates: certificates, epochs: epochs, heads: heads)
            } catch let error as FramingError {
                failure = error
            } catch {
                failure = FramingError("\(error)")
            }
        }
        if let failure { throw failure }
        return box
    }
}

struct InviteClaim {
    static let magic = Array("SSHCLM02".utf8)
    static let label = Array("sshelf-invite-claim\u{0}".utf8)
    static let signatureLabel = Array("sshelf-claim\u{0}".utf8)

    var device: UUID
    var name: String
    var signingKey: [UInt8]
    var time: Int64

    private func signedPart(invite: UUID) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(InviteClaim.magic)
        writer.uuid(invite)
        writer.uuid(device)
        writer.text(Certificate.clip(name))
        writer.raw(signingKey)
        writer.i64(time)
        return writer.bytes
    }

    /// Signed with the joining device's key (it holds the key it asks to be enrolled with) and sealed under the
    /// code's claim key (it holds the code).
    func seal(_ code: InviteCode, keys: SyncCrypto.DeviceKeys) -> [UInt8] {
        let body = signedPart(invite: code.id)
        let signature = keys.sign(InviteClaim.signatureLabel + body)
        return SyncCrypto.seal(SecretBytes(body + signature), key: code.claimKey,
                               associatedData: InviteClaim.label + code.id.bytes + device.bytes)
    }

    /// Opens and checks a claim left by `device`; nil when it does not open with this code, names another device,
    /// or its signature does not verify.
    static func open(_ sealed: [UInt8], code: InviteCode, device: UUID) -> InviteClaim? {
        guard let plaintext = SyncCrypto.open(sealed, key: code.claimKey, associatedData: label + code.id.bytes + device.bytes)
        else { return nil }
        var reader = ByteReader(plaintext.withUnsafeBytes { Array($0) }, what: "the claim")
        guard let magic = try? reader.take(InviteClaim.magic.count), magic == InviteClaim.magic,
              let invite = try? reader.uuid(), invite == code.id, let claimed = try? reader.uuid(), claimed == device,
              let name = try? reader.text(limit: Certificate.maxName), let key = try? reader.take(SyncCrypto.publicKeyLength),
              let time = try? reader.i64(), let signature = try? reader.take(SyncCrypto.signatureLength), reader.isAtEnd
        else { return nil }
        let claim = InviteClaim(device: device, name: name, signingKey: key, time: time)
        guard SyncCrypto.verify(signature, of: signatureLabel + claim.signedPart(invite: code.id), publicKey: key) else { return nil }
        return claim
    }
}

// Invite: the two sealed files of an invite's offer and answer. The inviting device writes `invites/<id>.box`, sealed
// under a key derived from the invite code: which group (the genesis a new device trusts), who invites, the expiry —
// no key. The joining device writes `invites/<id>.<device>.claim`, sealed under another key from the code: its id,
// name and signing key, signed with that key. Without the code the remote can open neither nor forge one. The keys
// come afterwards, in the welcome (InviteWelcome), only to the device enrolled.
import FoundationEssentials
import ShelfCore
import ShelfVault

struct InviteBox {
    static let magic = Array("SSHINV03".utf8)
    static let label = Array("sshelf-invite-box\u{0}".utf8)

    var group: UUID
    var anchor: [UInt8]
    var inviter: UUID
    var inviterName: String
    var created: Date
    var expires: Date
    var credentials: Bool

    /// Sealed under the code's box key, bound to the invite's id. It names the group and who invites, and holds no
    /// key: the group's keys reach the new device only in its welcome, sealed to the key it enrolled with, so a box
    /// the remote keeps or puts back after the invite was used gives a holder of the code nothing to read with.
    func seal(_ code: InviteCode) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(InviteBox.magic)
        writer.uuid(group)
        writer.raw(anchor)
        writer.uuid(inviter)
        writer.text(Certificate.clip(inviterName))
        writer.i64(HybridLogicalClock.milliseconds(created))
        writer.i64(HybridLogicalClock.milliseconds(expires))
        writer.u8(credentials ? 1 : 0)
        return SyncCrypto.seal(
            SecretBytes(writer.bytes), key: code.boxKey, associatedData: InviteBox.label + code.id.bytes)
    }

    /// Opens a box with the code; nil when the code is not the one it was sealed for, or it was altered.
    static func open(_ sealed: [UInt8], code: InviteCode) throws(FramingError) -> InviteBox? {
        guard let plaintext = SyncCrypto.open(sealed, key: code.boxKey, associatedData: label + code.id.bytes) else {
            return nil
        }
        var reader = ByteReader(plaintext.withUnsafeBytes { Array($0) }, what: "the invite")
        guard try reader.take(magic.count) == magic else { throw FramingError("the invite is not of this format") }
        let group = try reader.uuid(), anchor = try reader.take(32), inviter = try reader.uuid()
        let name = try reader.text(limit: Certificate.maxName)
        let created = try reader.i64(), expires = try reader.i64(), credentials = try reader.u8() == 1
        try reader.expectEnd()
        return InviteBox(
            group: group, anchor: anchor, inviter: inviter, inviterName: name,
            created: Date(timeIntervalSince1970: Double(created) / 1000),
            expires: Date(timeIntervalSince1970: Double(expires) / 1000), credentials: credentials)
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
        return SyncCrypto.seal(
            SecretBytes(body + signature), key: code.claimKey,
            associatedData: InviteClaim.label + code.id.bytes + device.bytes)
    }

    /// The claims on the code's invite that count: each opens with the code, names the device whose file it is in
    /// and is signed by the key it carries. A file that is garbage, sealed for another invite or copied from another
    /// device's name is ignored, never counted — a planted file must not block the real device's join.
    static func valid(on remote: FolderRemote, code: InviteCode) -> [InviteClaim] {
        remote.claims(code.id).compactMap { claim in
            UUID(uuidString: claim.device).flatMap { open(claim.bytes, code: code, device: $0) }
        }
    }

    /// Opens and checks a claim left by `device`; nil when it does not open with this code, names another device,
    /// or its signature does not verify.
    static func open(_ sealed: [UInt8], code: InviteCode, device: UUID) -> InviteClaim? {
        guard
            let plaintext = SyncCrypto.open(
                sealed, key: code.claimKey, associatedData: label + code.id.bytes + device.bytes)
        else { return nil }
        var reader = ByteReader(plaintext.withUnsafeBytes { Array($0) }, what: "the claim")
        guard let magic = try? reader.take(InviteClaim.magic.count), magic == InviteClaim.magic,
            let invite = try? reader.uuid(), invite == code.id, let claimed = try? reader.uuid(), claimed == device,
            let name = try? reader.text(limit: Certificate.maxName),
            let key = try? reader.take(SyncCrypto.publicKeyLength),
            let time = try? reader.i64(), let signature = try? reader.take(SyncCrypto.signatureLength), reader.isAtEnd
        else { return nil }
        let claim = InviteClaim(device: device, name: name, signingKey: key, time: time)
        guard SyncCrypto.verify(signature, of: signatureLabel + claim.signedPart(invite: code.id), publicKey: key)
        else { return nil }
        return claim
    }
}

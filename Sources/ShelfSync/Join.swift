// Join: `sshelf sync join` on a new device — open the invite box the code names, refuse an expired, used or foreign
// invite before anything is written, then remember which group it names (the trust anchor is the genesis in the box,
// which came sealed under the code) and leave a signed claim for the inviting device to answer. No key of the group
// is received here: the inviter sends them, sealed to this device, when it enrolls it (Enrollment.receiveWelcome).
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

public enum Join {
    public struct Result: Sendable {
        public var inviter: String
        /// Whether the group syncs credentials (the credential track is turned on here too).
        public var credentials: Bool
    }

    public static func run(
        code: InviteCode, store: Store, vault: Vault, remote: FolderRemote, deviceName: String, now: Date = Date()
    )
        throws -> Result
    {
        let format = try remote.check()
        guard format == RemoteLayout.format, remote.hasInviteBox(code.id) else {
            throw SyncFailure(
                "no invite for this code on the remote",
                hint: "it was used, or it expired and was removed, or it has not reached this device yet; check that "
                    + "both devices use the same remote ('sshelf sync status')")
        }
        let sealed = try remote.readInviteBox(code.id)
        let opened: InviteBox?
        do { opened = try InviteBox.open(sealed, code: code) } catch {
            throw SyncFailure(
                "the invite on the remote is damaged (\(error))", hint: "make a new one with 'sshelf sync invite'")
        }
        guard let box = opened else {
            throw SyncFailure(
                "the invite on the remote does not open with this code (it was altered)",
                hint: "make a new one with 'sshelf sync invite'")
        }
        guard now <= box.expires else {
            throw SyncFailure(
                "this invite expired at \(ISO8601.format(box.expires))",
                hint: "make a new one with 'sshelf sync invite' on \(box.inviterName)")
        }
        guard let me = UUID(uuidString: try store.deviceID) else { throw SyncFailure("this store has no device id") }
        if InviteClaim.valid(on: remote, code: code).contains(where: { $0.device != me }) {
            throw SyncFailure(
                "this invite was already used by another device",
                hint: "an invite works once; make a new one with 'sshelf sync invite' on \(box.inviterName)")
        }
        // What this device already knows of that group (it was in it): the box itself carries no roster.
        if let state = try GroupState.load(store), state.group == box.group, let roster = try GroupInfo.roster(store) {
            if roster.revoked[me] != nil {
                throw SyncFailure(
                    "this device was revoked from that group and cannot join it again as the same device",
                    hint: "turn sync off here ('sshelf sync disable') and use a fresh sshelf home to join")
            }
            if roster.isActive(me) { throw SyncFailure("this device is already enrolled in this group") }
            if roster.spentInvites[code.id] != nil {
                throw SyncFailure(
                    "this invite was already used by another device",
                    hint: "an invite works once; make a new one with 'sshelf sync invite' on \(box.inviterName)")
            }
        }

        let keys: SyncCrypto.DeviceKeys
        do {
            keys = try vault.deviceKeys(class: SyncSession.keyClass)
            // Kept until the welcome arrives, to write the claim again if the remote loses it; wiped at enrollment.
            try vault.saveInviteSecret(code.secret, invite: code.id, class: SyncSession.keyClass)
        } catch {
            throw SyncSession.failure(error)
        }
        try store.write { store in
            if try GroupState.load(store) != nil { try GroupState.clear(store) }
            try GroupState.Joining.clear(store)
            try GroupState.Joining(
                invite: code.id, inviter: box.inviterName, expires: box.expires, group: box.group,
                anchor: box.anchor
            ).save(store)
        }
        let claim = InviteClaim(
            device: me, name: DeviceName.fitted(deviceName), signingKey: keys.signingPublicKey,
            time: HybridLogicalClock.milliseconds(now))
        try remote.writeClaim(code.id, device: me.lowerText, claim.seal(code, keys: keys))
        if box.credentials { try SyncSettings.setCredentials(true, store) }
        return Result(inviter: box.inviterName, credentials: box.credentials)
    }
}

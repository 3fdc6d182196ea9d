// Join: `sshelf sync join` on a new device — open the invite box the code names, refuse an expired, used or foreign
// invite before anything is written, then keep the group's keys and roster (the trust anchor is the genesis the
// invite names, which came sealed under the code), remember the chain heads the inviter had verified (this device
// must see at least those), and leave a signed claim for the inviting device to answer.
import Foundation
import ShelfCore
import ShelfStore
import ShelfVault

public enum Join {
    public struct Result: Sendable {
        public var inviter: String
        /// Whether the group syncs credentials (the credential track is turned on here too).
        public var credentials: Bool
    }

    public static func run(code: InviteCode, store: Store, vault: Vault, remote: FolderRemote, deviceName: String, now: Date = Date())
        throws -> Result
    {
        let format = try remote.check()
        guard format == RemoteLayout.format, remote.hasInviteBox(code.id) else {
            throw SyncFailure("no invite for this code on the remote",
                              hint: "it was used, or it expired and was removed, or it has not reached this device yet; check that both devices use the same remote ('sshelf sync status')")
        }
        let sealed = try remote.readInviteBox(code.id)
        let opened: InviteBox?
        do { opened = try InviteBox.open(sealed, code: code) } catch {
            throw SyncFailure("the invite on the remote is damaged (\(error))", hint: "make a new one with 'sshelf sync invite'")
        }
        guard let box = opened else {
            throw SyncFailure("the invite on the remote does not open with this code (it was altered)", hint: "make a new one with 'sshelf sync invite'")
        }
        guard now <= box.expires else {
            throw SyncFailure("this invite expired at \(ISO8601.format(box.expires))",
                              hint: "make a new one with 'sshelf sync invite' on \(box.inviterName)")
        }
        guard let me = UUID(uuidString: try store.deviceID) else { throw SyncFailure("this store has no device id") }
        if remote.claims(code.id).contains(where: { $0.device != me.lowerText }) {
            throw SyncFailure("this invite was already used by another device",
                              hint: "an invite works once; make a new one with 'sshelf sync invite' on \(box.inviterName)")
        }
        let roster = Roster(group: box.group, anchor: box.anchor, certificates: box.certificates)
        guard roster.isActive(box.inviter) else {
            throw SyncFailure("the invite names a device that is not an enrolled member of its group")
        }
        if roster.revoked[me] != nil {
            throw SyncFailure("this device was revoked from that group and cannot join it again as the same device",
                              hint: "turn sync off here ('sshelf sync disable') and use a fresh sshelf home to join")
        }
        if roster.enrolled[me] != nil {
            if let state = try GroupState.load(store), state.group == box.group {
                throw SyncFailure("this device is already enrolled in this group")
            }
            throw SyncFailure("this device's id is already enrolled in that group (with the keys it had before)",
                              hint: "revoke it there ('sshelf sync revoke'), then join from a fresh sshelf home")
        }

        let keys: SyncCrypto.DeviceKeys
        do {
            keys = try vault.deviceKeys(class: SyncSession.keyClass)
            try vault.saveGroupSecret(box.groupSecret, group: box.group, class: SyncSession.keyClass)
            for epoch in box.epochs { try vault.saveEpochKey(epoch.key, epoch: epoch.id, class: SyncSession.keyClass) }
            try vault.saveInviteSecret(code.secret, invite: code.id, class: SyncSession.keyClass)
        } catch {
            throw SyncSession.failure(error)
        }
        try store.write { store in
            if let state = try GroupState.load(store), state.group != box.group { try GroupState.clear(store) }
            try GroupState(group: box.group, anchor: box.anchor).save(store)
            for certificate in box.certificates where certificate.group == box.group {
                try store.addCertificate(StoredCertificate(digest: certificate.digest.hex, body: certificate.bytes.hex, mine: false,
                                                           published: nil))
            }
            for head in box.heads where head.device != me {
                var peer = try store.peer(head.device.lowerText)
                if head.seq > peer.floor {
                    peer.floor = head.seq
                    peer.floorDigest = head.digest.hex
                    try store.savePeer(peer)
                }
            }
            try GroupState.Joining(invite: code.id, inviter: box.inviterName, expires: box.expires).save(store)
        }
        let claim = InviteClaim(device: me, name: deviceName, signingKey: keys.signingPublicKey, time: HybridLogicalClock.milliseconds(now))
        try remote.writeClaim(code.id, device: me.lowerText, claim.seal(code, keys: keys))
        if box.credentials { try SyncSettings.setCredentials(true, store) }
        return Result(inviter: box.inviterName, credentials: box.credentials)
    }
}

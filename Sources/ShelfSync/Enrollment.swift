// Enrollment: an invite from its creation to the new device's `add` certificate. On the inviting device every run
// writes the box of a new invite, drops expired ones, and answers a single valid claim by signing the claimant into
// the roster (two claims on one invite mean the code leaked: nobody is enrolled). On the joining device `sync join`
// opens the box, refuses an expired or used invite, stores the group's keys and leaves its claim; until it sees
// itself added it syncs nothing out and says it is waiting.
import Foundation
import ShelfCore
import ShelfStore
import ShelfVault

struct Enrollment {
    let session: SyncSession
    let remote: FolderRemote

    var store: Store { session.store }

    /// The inviting device's duties; returns the invites to remove once this run's entry (holding the additions)
    /// is on the remote.
    func serve(credentials: Bool, report: inout SyncReport) throws -> [UUID] {
        var finished: [UUID] = []
        for invite in try store.pendingInvites() {
            guard let id = UUID(uuidString: invite.id) else { continue }
            let secret: SecretBytes
            switch session.vault.loadInviteSecret(id, class: SyncSession.keyClass) {
            case .found(let value): secret = value
            case .notStored:
                // Its secret is gone (the vault was reset): nobody can use it any more.
                remove(id)
                continue
            default:
                report.skipped.append("invite \(invite.id.prefix(8)) cannot be read from the vault now; kept for a later run")
                continue
            }
            let code = InviteCode(secret: secret)
            if session.now > invite.expires {
                remove(id)
                report.skipped.append("invite \(invite.id.prefix(8)) expired unused; its box was removed")
                continue
            }
            let claims = remote.claims(id).compactMap { claim -> InviteClaim? in
                guard let device = UUID(uuidString: claim.device) else { return nil }
                return InviteClaim.open(claim.bytes, code: code, device: device)
            }
            let claimants = Set(claims.map(\.device))
            if claimants.count > 1 {
                remove(id)
                report.warnings.append(
                    "\(claimants.count) devices claimed invite \(invite.id.prefix(8)): the code reached someone else, so none was enrolled; make a new invite with 'sshelf sync invite'")
                continue
            }
            if let claim = claims.first {
                if let member = session.roster.everMembers[claim.device] {
                    if member.signingKey != claim.signingKey {
                        report.warnings.append("device \(claim.device.lowerText.prefix(8)) claimed an invite with another key than the one it is enrolled with; refused")
                    }
                    finished.append(id)
                    continue
                }
                _ = try session.issue(.add(device: claim.device, name: claim.name, signingKey: claim.signingKey, invite: id,
                                           epochs: invite.epochs.compactMap(UUID.init(uuidString:))))
                report.events.append("enrolled \(claim.name) (\(claim.device.lowerText.prefix(8))) with invite \(invite.id.prefix(8))")
                finished.append(id)
                continue
            }
            if !remote.hasInviteBox(id) {
                let box = try makeBox(invite: invite, credentials: credentials)
                try remote.writeInviteBox(id, box.seal(code))
                try store.write { try $0.addInvite(PendingInvite(id: invite.id, created: invite.created, expires: invite.expires,
                                                                 epochs: box.epochs.map(\.id.lowerText))) }
            }
        }
        return finished
    }

    /// Removes an invite everywhere: its box and claims on the remote, its secret and its row here.
    func remove(_ id: UUID) {
        remote.removeInvite(id)
        _ = try? session.vault.clearInviteSecret(id, class: SyncSession.keyClass)
        try? store.write { try $0.removeInvite(id.lowerText) }
    }

    func makeBox(invite: PendingInvite, credentials: Bool) throws -> InviteBox {
        var epochs: [(id: UUID, key: SecretBytes)] = []
        for id in session.heldEpochs.sorted(by: { $0.lowerText < $1.lowerText }) {
            if let key = try session.epochKey(id) { epochs.append((id, key)) }
        }
        let heads = try store.peers().compactMap { peer -> InviteBox.Head? in
            guard peer.head > 0, let device = UUID(uuidString: peer.device), let digest = [UInt8](hex: peer.headDigest) else { return nil }
            return InviteBox.Head(device: device, seq: peer.head, digest: digest)
        }
        return InviteBox(group: session.state.group, anchor: session.state.anchor, inviter: session.me, inviterName: session.deviceName,
                         created: invite.created, expires: invite.expires, credentials: credentials,
                         groupSecret: try session.groupSecret(), certificates: session.certificates, epochs: epochs, heads: heads)
    }

    /// The joining device, every run until it is enrolled: done when the roster holds it; otherwise the reason it
    /// is still waiting (its claim rewritten if the remote lost it).
    func awaitEnrollment(_ joining: GroupState.Joining) throws -> SyncFailure? {
        if session.roster.isActive(session.me) {
            try store.write { try GroupState.Joining.clear($0) }
            _ = try? session.vault.clearInviteSecret(joining.invite, class: SyncSession.keyClass)
            return nil
        }
        if session.now > joining.expires {
            return SyncFailure("the invite expired before \(joining.inviter) enrolled this device",
                               hint: "ask for a new one ('sshelf sync invite' on \(joining.inviter)), then run 'sshelf sync join' here")
        }
        if case .found(let secret) = session.vault.loadInviteSecret(joining.invite, class: SyncSession.keyClass),
           remote.hasInviteBox(joining.invite), remote.claims(joining.invite).allSatisfy({ $0.device != session.meText }) {
            let claim = InviteClaim(device: session.me, name: session.deviceName, signingKey: session.keys.signingPublicKey,
                                    time: HybridLogicalClock.milliseconds(session.now))
            try remote.writeClaim(joining.invite, device: session.meText, claim.seal(InviteCode(secret: secret), keys: session.keys))
        }
        return SyncFailure("waiting to be enrolled (invited by \(joining.inviter))",
                           hint: "\(joining.inviter) adds this device on its next sync ('sshelf sync now' there); nothing is sent from here until then")
    }
}

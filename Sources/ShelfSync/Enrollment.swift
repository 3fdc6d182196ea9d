// Enrollment: an invite from its creation to the new device's first run as a member. On the inviting device every
// run writes the box of a new invite, drops expired ones, and answers a single valid claim by signing the claimant
// into the roster (the `add` names the invite: spent, in the signed roster) and writing its welcome, the group's
// keys sealed to the claimant alone (two claims on one invite mean the code leaked: nobody is enrolled). On the
// joining device `sync join` opens the box and leaves its claim; until its welcome arrives it holds no group key,
// syncs nothing and says it is waiting.
import FoundationEssentials
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
        let pending = try store.pendingInvites()
        // A spent invite's box or claim that is on the remote again (put back from git history or a folder's
        // versions, or a claim that came after the enrollment) is refused by removing it, on every member: the
        // roster says the invite was used, whatever the files say.
        let known = Set(pending.compactMap { UUID(uuidString: $0.id) })
        for (invite, _) in remote.inviteOffers()
        where !known.contains(invite) && session.roster.spentInvites[invite] != nil {
            remote.removeInvite(invite)
            report.skipped.append(
                "invite \(invite.lowerText.prefix(8)) was used already; its files on the remote (put back, or a later "
                    + "claim) were removed")
        }
        for invite in pending {
            guard let id = UUID(uuidString: invite.id) else { continue }
            let secret: SecretBytes
            switch session.vault.loadInviteSecret(id, class: SyncSession.keyClass) {
            case .found(let value): secret = value
            case .notStored:
                // Its secret is gone (the vault was reset): nobody can use it any more.
                remove(id)
                continue
            default:
                report.skipped.append(
                    "invite \(invite.id.prefix(8)) cannot be read from the vault now; kept for a later run")
                continue
            }
            let code = InviteCode(secret: secret)
            if session.now > invite.expires {
                remove(id)
                report.skipped.append("invite \(invite.id.prefix(8)) expired unused; its box was removed")
                continue
            }
            let claims = InviteClaim.valid(on: remote, code: code)
            let claimants = Set(claims.map(\.device))
            if claimants.count > 1 {
                remove(id)
                report.warnings.append(
                    "\(claimants.count) devices claimed invite \(invite.id.prefix(8)): the code reached someone else, "
                        + "so none was enrolled; make a new invite with 'sshelf sync invite'")
                continue
            }
            if let spentBy = session.roster.spentInvites[id], claims.first?.device != spentBy {
                // Spent in the roster (this device's store is older than the roster it holds, or another claim came
                // after the enrolled device's): an invite enrolls one device, once.
                remove(id)
                report.warnings.append(
                    "invite \(invite.id.prefix(8)) was already used by \(session.roster.name(of: spentBy)); a later "
                        + "claim on it was refused")
                continue
            }
            if let claim = claims.first {
                if let member = session.roster.everMembers[claim.device] {
                    if member.signingKey != claim.signingKey || session.roster.spentInvites[id] != claim.device {
                        remove(id)
                        report.warnings.append(
                            "device \(claim.device.lowerText.prefix(8)) claimed an invite while already in the group "
                                + "(or with another key); refused")
                        continue
                    }
                    // Enrolled by this invite in a run that did not finish: its welcome is written again.
                    try welcome(claim, invite: id)
                    finished.append(id)
                    continue
                }
                // Two devices of one group with one name (two machines called "vm") get told apart at once; a claim's
                // name loses any character a device name may not hold (it comes from whoever had the code).
                let name = session.roster.distinct(DeviceName.fitted(claim.name), for: claim.device)
                _ = try session.issue(
                    .add(
                        device: claim.device, name: name, signingKey: claim.signingKey, invite: id,
                        epochs: session.heldEpochs.sorted { $0.lowerText < $1.lowerText }))
                try welcome(claim, invite: id)
                report.events.append(
                    "enrolled \(name) (\(claim.device.lowerText.prefix(8))) with invite \(invite.id.prefix(8))")
                finished.append(id)
                continue
            }
            if !remote.hasInviteBox(id) {
                // The name the group knows this device by (it may have been renamed), not the machine's.
                let box = InviteBox(
                    group: session.state.group, anchor: session.state.anchor, inviter: session.me,
                    inviterName: session.roster.name(of: session.me), created: invite.created, expires: invite.expires,
                    credentials: credentials)
                try remote.writeInviteBox(id, box.seal(code))
            }
        }
        return finished
    }

    /// Removes an invite everywhere: its box and claims on the remote, its secret and its row here. A welcome
    /// stays until the device it is sealed to takes it.
    func remove(_ id: UUID) {
        remote.removeInvite(id)
        _ = try? session.vault.clearInviteSecret(id, class: SyncSession.keyClass)
        try? store.write { try $0.removeInvite(id.lowerText) }
    }

    /// Writes the welcome of a device just enrolled: every key and certificate this device holds and the heads it
    /// verified, sealed to the key the device claimed with.
    func welcome(_ claim: InviteClaim, invite: UUID) throws {
        guard let boxKey = SyncCrypto.boxPublicKey(signingPublicKey: claim.signingKey) else { return }
        var epochs: [(id: UUID, key: SecretBytes)] = []
        for id in session.heldEpochs.sorted(by: { $0.lowerText < $1.lowerText }) {
            if let key = try session.epochKey(id) { epochs.append((id, key)) }
        }
        let heads = try store.peers().compactMap { peer -> InviteWelcome.InviteHead? in
            guard peer.head > 0, let device = UUID(uuidString: peer.device), let digest = [UInt8](hex: peer.headDigest)
            else { return nil }
            return InviteWelcome.InviteHead(device: device, seq: peer.head, digest: digest)
        }
        let welcome = InviteWelcome(
            invite: invite, device: claim.device, certificates: session.certificates, heads: heads,
            groupSecret: try session.groupSecret(), epochs: epochs)
        guard let sealed = welcome.seal(to: boxKey) else { return }
        try remote.writeWelcome(invite, device: claim.device.lowerText, sealed)
    }

    /// The joining device, every run until it is enrolled (it has no group keys yet): takes its welcome when the
    /// inviter wrote it — believed only when the roster in it enrolls this device, with its own key, through this
    /// invite — and becomes a member (its invite secret wiped); otherwise the reason it is still waiting (its claim
    /// rewritten if the remote lost it).
    static func receiveWelcome(
        _ joining: GroupState.Joining, store: Store, vault: Vault, remote: FolderRemote, deviceName: String,
        now: Date
    ) throws -> SyncFailure? {
        guard let me = UUID(uuidString: try store.deviceID) else { throw SyncFailure("this store has no device id") }
        let keys: SyncCrypto.DeviceKeys
        do { keys = try vault.deviceKeys(class: SyncSession.keyClass) } catch { throw SyncSession.failure(error) }
        if let sealed = remote.readWelcome(joining.invite, device: me.lowerText) {
            let opened: InviteWelcome?
            do { opened = try InviteWelcome.open(sealed, keys: keys, invite: joining.invite, device: me) } catch {
                return SyncFailure(
                    "the welcome for this device on the remote is damaged (\(error))",
                    hint: "\(joining.inviter) writes it again on its next sync; if not, ask for a new invite")
            }
            if let welcome = opened {
                let roster = Roster(group: joining.group, anchor: joining.anchor, certificates: welcome.certificates)
                guard roster.isActive(me), roster.enrolled[me]?.signingKey == keys.signingPublicKey,
                    roster.spentInvites[joining.invite] == me
                else {
                    return SyncFailure(
                        "the welcome for this device on the remote does not enroll it in the group it "
                            + "was invited to; refused",
                        hint: "ask \(joining.inviter) for a new invite")
                }
                try install(welcome, joining, me: me, store: store, vault: vault)
                remote.removeWelcome(joining.invite, device: me.lowerText)
                return nil
            }
        }
        if now > joining.expires {
            return SyncFailure(
                "the invite expired before \(joining.inviter) enrolled this device",
                hint: "ask for a new one ('sshelf sync invite' on \(joining.inviter)), then run 'sshelf sync join' here"
            )
        }
        if case .found(let secret) = vault.loadInviteSecret(joining.invite, class: SyncSession.keyClass),
            remote.hasInviteBox(joining.invite), remote.claims(joining.invite).allSatisfy({ $0.device != me.lowerText })
        {
            let claim = InviteClaim(
                device: me, name: deviceName, signingKey: keys.signingPublicKey,
                time: HybridLogicalClock.milliseconds(now))
            try remote.writeClaim(
                joining.invite, device: me.lowerText, claim.seal(InviteCode(secret: secret), keys: keys))
        }
        return SyncFailure(
            "waiting to be enrolled (invited by \(joining.inviter))",
            hint:
                "\(joining.inviter) adds this device on its next sync ('sshelf sync now' there); nothing is sent from "
                + "here until then")
    }

    /// Keeps what the welcome brought — keys in the vault, certificates and the heads to reach in the store — and
    /// ends the joining state, wiping the invite's secret (it has done its work).
    static func install(_ welcome: InviteWelcome, _ joining: GroupState.Joining, me: UUID, store: Store, vault: Vault)
        throws
    {
        do {
            try vault.saveGroupSecret(welcome.groupSecret, group: joining.group, class: SyncSession.keyClass)
            for epoch in welcome.epochs {
                try vault.saveEpochKey(epoch.key, epoch: epoch.id, class: SyncSession.keyClass)
            }
        } catch {
            throw SyncSession.failure(error)
        }
        try store.write { store in
            try GroupState(group: joining.group, anchor: joining.anchor).save(store)
            for certificate in welcome.certificates where certificate.group == joining.group {
                try store.addCertificate(
                    StoredCertificate(
                        digest: certificate.digest.hex, body: certificate.bytes.hex, mine: false,
                        published: nil))
            }
            for head in welcome.heads where head.device != me {
                var peer = try store.peer(head.device.lowerText)
                if head.seq > peer.floor {
                    peer.floor = head.seq
                    peer.floorDigest = head.digest.hex
                    try store.savePeer(peer)
                }
            }
            try GroupState.Joining.clear(store)
        }
        do { try vault.clearInviteSecret(joining.invite, class: SyncSession.keyClass) } catch {
            throw SyncSession.failure(error)
        }
    }
}

// SyncEngine: one sync run over a folder layout. Check the remote; read every other device's chain (verify, then
// merge field by field); settle this device's membership (enrolled, waiting for its enrollment, revoked); serve its
// invites, carry out a revocation it was asked for, pick the group key to seal under; run the credential track;
// then write this device's next entry (a delta, or a snapshot) and remove what format 1 left on the remote.
// A bad remote file is refused with a reason naming its device; nothing local is ever lost because of it.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

public struct SyncEngine {
    public let store: Store
    public let remote: FolderRemote
    public let vault: Vault
    public let deviceName: String
    public let now: Date
    /// A device to revoke in this run (`sshelf sync revoke`), after the other chains were read.
    public var revoke: UUID?

    public init(
        store: Store, remote: FolderRemote, vault: Vault, deviceName: String, now: Date = Date(), revoke: UUID? = nil
    ) {
        self.store = store
        self.remote = remote
        self.vault = vault
        // The machine's name, without the characters a device name may not hold (DeviceName).
        self.deviceName = DeviceName.fitted(deviceName)
        self.now = now
        self.revoke = revoke
    }

    static let notEnrolled = SyncFailure(
        "this device is not enrolled in the sync group on this remote",
        hint: "run 'sshelf sync invite' on an enrolled device, then 'sshelf sync join' here")

    /// Throws when the remote cannot be used at all; every other problem is in the report. The run is a pipeline of
    /// steps, each below: a step that ends the run says so (the report then holds why).
    public func run(report: inout SyncReport) throws {
        let format = try remote.check()
        report.credentials = try SyncSettings.credentialsEnabled(store)
        guard try welcome(report: &report) else { return }
        let session = try open(format: format, report: &report)
        try readChains(session, report: &report)
        guard try membership(session, report: &report) else { return }
        if let target = revoke { try revokeDevice(target, session, report: &report) }
        try taint(session, report: &report)
        let enrollment = Enrollment(session: session, remote: remote)
        let finished = try enrollment.serve(credentials: report.credentials, report: &report)
        try remote.writeFormat()
        let (ownSet, credentialFailure) = try credentials(session, report: &report)
        try write(session, ownSet: ownSet, format: format, report: &report)
        for id in finished { enrollment.remove(id) }
        removeFormatOne(report: &report)
        if let credentialFailure { report.fail(credentialFailure) }
    }

    /// A device that joined holds no key of the group until its welcome arrives: it takes it when it is there.
    /// False (the run ends) while it waits.
    func welcome(report: inout SyncReport) throws -> Bool {
        guard try GroupState.load(store) == nil, let joining = try GroupState.Joining.load(store) else { return true }
        if let waiting = try Enrollment.receiveWelcome(
            joining, store: store, vault: vault, remote: remote, deviceName: deviceName,
            now: now)
        {
            report.membership = "waiting"
            report.fail(waiting)
            return false
        }
        report.events.append("enrolled in the sync group by \(joining.inviter)")
        return true
    }

    /// Other devices' chains, until nothing moves (a key or an addition in one chain can unlock another); what
    /// stopped each goes into the report.
    func readChains(_ session: SyncSession, report: inout SyncReport) throws {
        let chains = PeerChains(session: session, remote: remote)
        // A chain that stopped is read again once the roster grew: the certificate it lacked may have come since.
        var stops: [String: (stop: PeerChains.Stop, roster: Int)] = [:]
        var moved = true
        var passes = 0
        // A device this device verified entries of is read even when its folder is gone: that is a rollback too.
        let verified = try store.peers().filter { $0.head > 0 || $0.floor > 0 }.map(\.device).filter(
            RemoteLayout.isValidDeviceID)
        let folders = Set(try remote.deviceFolders()).union(verified).subtracting([session.meText]).sorted()
        // Trust is decided on everything the remote holds before any record is applied, then what it changes about
        // values taken in earlier runs is undone.
        try chains.gatherRoster(folders)
        try taint(session, report: &report)
        while moved && passes < 8 {
            moved = false
            passes += 1
            for folder in folders {
                if let stopped = stops[folder], stopped.roster == session.certificates.count { continue }
                let outcome = try chains.process(folder) { try taint(session, report: &report) }
                report.pulled += outcome.applied
                report.skipped += outcome.notes
                if outcome.entries > 0 { moved = true }
                stops[folder] = outcome.stop.map { ($0, session.certificates.count) }
            }
            if stops.values.contains(where: { $0.roster != session.certificates.count }) { moved = true }
        }
        for (folder, stopped) in stops.sorted(by: { $0.key < $1.key }) {
            let revoked = UUID(uuidString: folder).map { session.roster.revoked[$0] != nil } == true
            switch stopped.stop {
            case .problem(let failure) where revoked:
                // What the remote does to a revoked device's chain stops nothing: what counted of it is relayed by
                // the devices that remain.
                report.skipped.append(failure.reason)
            case .problem(let failure): report.fail(failure)
            case .note(let text) where UUID(uuidString: folder).map(session.roster.isDisenrolled) == true:
                report.warnings.append(text)
            case .note(let text): report.skipped.append(text)
            case .waiting(_, let seq):
                if session.roster.revoked[session.me] == nil {
                    report.skipped.append(
                        "cannot read \(chains.label(UUID(uuidString: folder) ?? session.me))'s entries from \(seq) on "
                            + "yet: this device has not received their group key"
                    )
                }
            }
        }
        // Digests of entries before a device's last snapshot are needed no more (but the one holding its credentials
        // is).
        try store.write { store in
            for peer in try store.peers() where peer.device != session.meText && peer.snapshot > 0 {
                try store.forgetEntries(
                    device: peer.device,
                    before: peer.credentials > 0 ? min(peer.snapshot, peer.credentials) : peer.snapshot)
            }
        }
    }

    /// This device's place in the group: revoked or not enrolled ends the run (false); a member goes on.
    func membership(_ session: SyncSession, report: inout SyncReport) throws -> Bool {
        if let revocation = session.roster.revoked[session.me] {
            report.membership = "revoked"
            let date = ISO8601.format(Date(timeIntervalSince1970: Double(revocation.at) / 1000)).prefix(10)
            report.fail(
                SyncFailure(
                    "revoked by \(session.roster.name(of: revocation.by)) on \(date)",
                    hint: "this device no longer syncs with the group; its local data stays"))
            return false
        }
        guard session.roster.isActive(session.me) else {
            report.fail(SyncEngine.notEnrolled)
            return false
        }
        if let left = try store.setting("sync.join.invite").flatMap(UUID.init(uuidString:)) {
            // Left by an older version, which enrolled without a welcome: the invite's secret goes now.
            try store.write { try GroupState.Joining.clear($0) }
            _ = try? vault.clearInviteSecret(left, class: SyncSession.keyClass)
        }
        report.membership = "member"
        return true
    }

    /// The credential track when it is on (this device's set to send, or why the track paused); the notice when other
    /// devices send credentials and this one does not take them.
    func credentials(
        _ session: SyncSession, report: inout SyncReport
    ) throws
        -> (ownSet: OwnCredentialSet?, failure: SyncFailure?)
    {
        if report.credentials {
            do { return (try credentialTrack(session, report: &report), nil) } catch let failure as SyncFailure {
                return (nil, failure)
            }
        }
        if try store.peers().contains(where: { $0.device != session.meText && $0.credentials > 0 }) {
            report.notice = "credentials not joined on this device"
        }
        return (nil, nil)
    }

    /// This device's next entry, under the epoch it should write with (nothing while a new group key is awaited).
    func write(
        _ session: SyncSession, ownSet: OwnCredentialSet?, format: Int, report: inout SyncReport
    ) throws {
        switch try Epochs(session: session).prepare() {
        case .waiting(let epoch):
            report.skipped.append(
                "waiting for the new group key from \(session.roster.name(of: epoch.creator)); nothing is "
                    + "sent until it arrives"
            )
        case .write(let epoch, let key):
            try publish(
                session, epoch: epoch, key: key, ownSet: ownSet, migrating: format == 1, fresh: format == 0,
                report: &report)
        }
    }

    /// What format 1 left on the remote goes (its plaintext), with a warning when anything did.
    func removeFormatOne(report: inout SyncReport) {
        let removed = remote.removeFormatOneFiles()
        if removed > 0 {
            report.warnings.append(
                "removed \(removed) plaintext file\(removed == 1 ? "" : "s") of the old sync format (1) from the remote"
            )
            report.removedFormatOne = removed
        }
    }

    // MARK: steps

    /// The session for this run: the device's group, founded here when the remote has none yet.
    func open(format: Int, report: inout SyncReport) throws -> SyncSession {
        guard let me = UUID(uuidString: try store.deviceID) else { throw SyncFailure("this store has no device id") }
        let keys: SyncCrypto.DeviceKeys
        do { keys = try vault.deviceKeys(class: SyncSession.keyClass) } catch { throw SyncSession.failure(error) }
        if let state = try GroupState.load(store) {
            return try SyncSession(
                store: store, vault: vault, keys: keys, me: me, deviceName: deviceName, now: now, state: state)
        }
        // A remote that already holds a group: this device must be invited into it.
        if try format != 1 && remote.hasEntries() { throw SyncEngine.notEnrolled }
        let group = UUID()
        let secret = SyncCrypto.randomKey()
        do { try vault.saveGroupSecret(secret, group: group, class: SyncSession.keyClass) } catch {
            throw SyncSession.failure(error)
        }
        let genesis = Certificate(
            group: group, signer: me, time: HybridLogicalClock.milliseconds(now),
            body: .genesis(name: deviceName, signingKey: keys.signingPublicKey), keys: keys)
        let state = GroupState(group: group, anchor: genesis.digest)
        try store.write { store in try state.save(store) }
        let session = try SyncSession(
            store: store, vault: vault, keys: keys, me: me, deviceName: deviceName, now: now, state: state)
        _ = try store.write { _ in try session.keep([genesis], mine: true) }
        report.events.append(
            format == 1
                ? "moved the remote to the trusted format (2) and created the sync group"
                : "created the sync group")
        return session
    }

    /// Marks values from revoked devices after their revocation points (once per revocation and point), and every
    /// value from a device enrolled only by a revoked device after its revocation (point 0: nothing of it counts).
    func taint(_ session: SyncSession, report: inout SyncReport) throws {
        let roster = session.roster
        var points = roster.revoked.mapValues(\.upTo)
        for device in roster.disenrolled.keys { points[device] = 0 }
        for (device, upTo) in points.sorted(by: { $0.key.lowerText < $1.key.lowerText }) {
            let key = "sync.taint." + device.lowerText
            guard try store.setting(key) != String(upTo) else { continue }
            let changed = try store.write { store -> Int in
                let changed = try store.taint(device: device.lowerText, upTo: upTo, at: now)
                try store.dropConflictEvents(author: device.lowerText, after: upTo)
                try store.setSetting(key, String(upTo))
                return changed
            }
            guard changed > 0 else { continue }
            let records = "\(changed) record\(changed == 1 ? "" : "s")"
            if let member = roster.disenrolled[device] {
                let enroller = member.addedBy.map { roster.name(of: $0) } ?? "a revoked device"
                report.warnings.append(
                    "\(records) held values from \(roster.name(of: device)) (\(device.lowerText.prefix(8))), which "
                        + "\(enroller) enrolled after its revocation; they were undone ('sshelf sync conflicts')")
            } else {
                report.warnings.append(
                    "\(records) held values from \(roster.name(of: device)) written after its revocation; they wait "
                        + "for values from other devices ('sshelf sync conflicts')")
            }
        }
    }

    func revokeDevice(_ target: UUID, _ session: SyncSession, report: inout SyncReport) throws {
        let roster = session.roster
        guard target != session.me else {
            throw SyncFailure("a device cannot revoke itself", hint: "revoke it from another enrolled device")
        }
        guard roster.enrolled[target] != nil else {
            throw SyncFailure("device \(target.lowerText.prefix(8)) is not enrolled in this group")
        }
        guard roster.revoked[target] == nil else {
            report.events.append("\(roster.name(of: target)) was already revoked")
            return
        }
        let peer = try store.peer(target.lowerText)
        let kept = session.certificates.filter { $0.signer == target && roster.accepted.contains($0.digest) }.map(
            \.digest)
        // Nothing verified of it yet: all of its entries are refused (the digest then names no entry).
        let digest =
            [UInt8](hex: peer.headDigest).flatMap { $0.count == SyncCrypto.digestLength ? $0 : nil }
            ?? EntryHeader.noPrevious
        _ = try session.issue(.revoke(device: target, upTo: UInt64(peer.head), upToDigest: digest, kept: kept))
        report.events.append(
            "revoked \(roster.name(of: target)): its entries after \(peer.head) are refused, and the "
                + "group key is replaced"
        )
    }

    /// The credential track: the flagless migration pass, deletions, other devices' sets, and this device's set.
    func credentialTrack(
        _ session: SyncSession, report: inout SyncReport
    ) throws -> OwnCredentialSet? {
        let credentials = CredentialSync(
            vault: vault, device: session.meText,
            digestKey: SyncKeys.credentialDigest(try session.groupSecret()))
        report.migrated = try credentials.migrate(store: store)
        try credentials.recordDeletions(store: store)
        for var peer in try store.peers()
        where peer.device != session.meText && peer.credentials > peer.credentialsApplied {
            guard let set = try credentialSet(of: peer, session, report: &report) else { continue }
            report.credentialsReceived += try credentials.apply(
                set, store: store, from: peer.device, local: session.meText,
                kept: &report.skipped)
            peer.credentialsApplied = peer.credentials
            try store.write { try $0.savePeer(peer) }
        }
        return try credentials.currentSet(store: store, report: &report)
    }

    /// The credential set in a peer's entry this device verified earlier (read again: the vault may have been locked
    /// then). Nil, with a note, when the entry is gone or not the one verified.
    func credentialSet(of peer: PeerState, _ session: SyncSession, report: inout SyncReport) throws -> SecretBytes? {
        guard let digest = try store.entryDigest(device: peer.device, seq: peer.credentials),
            let bytes = try? remote.readEntry(peer.device, peer.credentials), SyncCrypto.digest(bytes).hex == digest,
            let entry = try? Entry(parsing: bytes, limit: RemoteLayout.maxEntryBytes),
            let key = try session.epochKey(entry.header.epoch),
            let plaintext = entry.openContent(SyncKeys.content(key)),
            let content = try? EntryContent.decode(plaintext, limit: RemoteLayout.maxEntryBytes),
            let set = content.credentials
        else {
            report.skipped.append(
                "the credentials in entry \(peer.credentials) of device \(peer.device.prefix(8)) are no longer on the "
                    + "remote; its next snapshot brings them"
            )
            return nil
        }
        return set
    }

    /// Writes this device's next entry when it has anything to say.
    func publish(
        _ session: SyncSession, epoch: UUID, key: SecretBytes, ownSet: OwnCredentialSet?,
        migrating: Bool,
        fresh: Bool, report: inout SyncReport
    ) throws {
        let own = OwnChain(session: session, remote: remote)
        let heal = try own.check(report: &report, fresh: fresh)
        let snapshot = try heal || migrating || own.needsSnapshot(epoch: epoch)
        let pending = try session.unpublished()
        var certificates = snapshot ? session.certificates : pending + session.revocationCertificates
        var seen: Set<[UInt8]> = []
        certificates = certificates.filter { seen.insert($0.digest).inserted }.sorted {
            $0.digest.lexicographicallyPrecedes($1.digest)
        }
        let records: [SyncRecord], refused: [String], idle: [(RecordKind, String)]
        if snapshot {
            (records, refused) = try store.allRecords()
            idle = []
        } else {
            (records, refused, idle) = try store.outboxRecords()
        }
        report.skipped += refused.map { "not sent: \($0)" }
        if !idle.isEmpty { try store.write { try $0.clearIdleOutbox(idle) } }
        var credentials: SecretBytes?
        var credentialDigest: String?
        if let ownSet {
            credentialDigest =
                SyncCrypto.keyedDigest(ownSet.plaintext, key: SyncKeys.credentialDigest(try session.groupSecret())).hex
            let lastSent = try store.setting("sync.credentials.digest")
            if snapshot || credentialDigest != lastSent {
                // The set leaves the vault's keeping here: one release-log line naming its keys, or it stays home
                // (the config track goes on; the digest is not saved, so the next run tries again).
                do {
                    credentials = try vault.releaseCredentialSet(
                        ownSet.plaintext, keys: ownSet.keys, deletions: ownSet.deletions)
                } catch {
                    report.warnings.append(
                        "credentials not sent: their line could not be written to the release log (\(error)); "
                            + "they go with the next run once it can be")
                }
            }
        }
        let events = try store.unpublishedConflictEvents().count
        guard snapshot || !records.isEmpty || !pending.isEmpty || credentials != nil || events > 0 else { return }
        let sent = records.map { ($0.kind, $0.id, $0.clock.latest(by: session.meText)) }
        let changes = snapshot ? try store.outboxCount() : records.count
        var signed: [StoredConflictEvent] = []
        try own.publish(
            certificates: certificates,
            content: { seq in
                // Conflicts found and settled here travel as signed events of their own (ConflictEvents).
                let outgoing = try ConflictEvents.outgoing(session, seq: seq, snapshot: snapshot)
                signed = outgoing.signed
                return EntryContent(records: records + outgoing.records, credentials: credentials)
            },
            snapshot: snapshot,
            epoch: epoch, epochKey: key
        ) { store, _ in
            for event in signed {
                try store.markConflictEventPublished(event.event, text: event.text, signature: event.signature)
            }
            try store.clearOutbox(sent: sent)
            if credentials != nil, let credentialDigest {
                try store.setSetting("sync.credentials.digest", credentialDigest)
            }
        }
        // A conflict found or settled here is a change sent too (its event).
        report.pushed += changes + signed.count
        if credentials != nil { report.credentialsSent = ownSet?.count ?? 0 }
    }
}

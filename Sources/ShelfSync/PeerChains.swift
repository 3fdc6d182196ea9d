// PeerChains: reading other devices' chains. For each new entry, in order: bounded parse → the writer is enrolled
// and, if revoked, the entry is within its revocation → signature → sequence and previous-digest link (a gap is
// allowed only before a snapshot) → roster section → content, opened with its epoch's key → every change in a
// delta stamped by its writer → applied in one transaction with the new head. Anything wrong stops that device's
// chain there with a reason naming it; nothing from that entry is applied. Rollbacks and forks are caught against
// the heads and digests this device verified before.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

struct PeerChains {
    let session: SyncSession
    let remote: FolderRemote

    enum Stop: Equatable {
        /// Something is wrong with this device's chain: a fallback reason.
        case problem(SyncFailure)
        /// Expected and harmless (a revoked device that keeps writing, another group's folder): a note.
        case note(String)
        /// The entry is sealed under an epoch whose key this device does not have yet.
        case waiting(epoch: UUID, seq: Int64)

        static func == (a: Stop, b: Stop) -> Bool {
            switch (a, b) {
            case (.problem(let x), .problem(let y)): x.reason == y.reason
            case (.note(let x), .note(let y)): x == y
            case (.waiting(let e1, let s1), .waiting(let e2, let s2)): e1 == e2 && s1 == s2
            default: false
            }
        }
    }

    struct Outcome {
        var applied = 0
        var entries = 0
        var stop: Stop?
        var notes: [String] = []
    }

    var store: Store { session.store }
    var roster: Roster { session.roster }

    func label(_ device: UUID) -> String { "\(roster.name(of: device)) (\(device.lowerText.prefix(8)))" }

    /// Reads and applies `device`'s new entries as far as they go. `taint` runs when a revocation becomes known.
    func process(_ folder: String, taint: () throws -> Void) throws -> Outcome {
        var outcome = Outcome()
        guard let device = UUID(uuidString: folder) else { return outcome }
        var peer = try store.peer(folder)
        if let problem = remote.folderProblem(folder) {
            outcome.stop = .problem(SyncFailure(problem, hint: "sshelf never writes a link there: remove \(remote.layout.deviceDirectory(folder))"))
            return outcome
        }
        let seqs: [Int64]
        do { seqs = try remote.entries(of: folder) } catch {
            // A folder flooded with names stops this chain only; the others still sync.
            outcome.stop = .problem(error)
            return outcome
        }
        let top = seqs.last ?? 0
        let name = label(device)

        // A revoked device's chain ends at its revocation point: nothing after it is read, and once this device has
        // everything up to there, what the remote does with the rest does not matter.
        let end = roster.revoked[device]?.upTo
        if let end, peer.head >= end {
            if (seqs.last ?? 0) > end { outcome.stop = .note("\(name) was revoked; its entries after \(end) are refused") }
            return outcome
        }
        // What this device verified before must still be there.
        let known = max(peer.head, peer.floor)
        if known > 0 && top < known {
            outcome.stop = .problem(SyncFailure(
                "rollback detected: \(name)'s entries end at \(top), this device has verified \(known)",
                hint: "the remote lost or rolled back files; check the sync folder or repository (nothing from \(name) is applied until it is back)"))
            return outcome
        }
        if peer.head > 0, seqs.contains(peer.head), let stop = checkKnown(folder, device, seq: peer.head, digest: peer.headDigest) {
            outcome.stop = stop
            return outcome
        }

        for seq in seqs where seq > peer.head {
            if let end = roster.revoked[device]?.upTo, seq > end {
                outcome.stop = .note("\(name) was revoked; its entries after \(end) are refused")
                return outcome
            }
            let expected = peer.head + 1
            let bytes: [UInt8]
            do { bytes = try remote.readEntry(folder, seq) } catch {
                outcome.stop = .problem(SyncFailure("entry \(seq) from \(name) is unreadable: \(error.reason)"))
                return outcome
            }
            let entry: Entry
            do { entry = try Entry(parsing: bytes, limit: RemoteLayout.maxEntryBytes) } catch {
                outcome.stop = .problem(SyncFailure("entry \(seq) from \(name) is damaged (\(error)), or still being copied in",
                                                    hint: "if it stays, the remote altered it"))
                return outcome
            }
            let header = entry.header
            if header.group != session.state.group {
                // Two groups on one remote (two devices set sync up at once, or a device still leaving one): their
                // devices cannot see each other's data, so say so until one side joins the other.
                outcome.stop = .problem(SyncFailure(
                    "the remote also holds another sync group (device \(folder.prefix(8)) writes to it); the two do not see each other's data",
                    hint: "join one group: 'sshelf sync invite' on a device of the group to keep, 'sshelf sync join' on the others"))
                return outcome
            }
            guard header.device == device, header.seq == UInt64(seq) else {
                outcome.stop = .problem(SyncFailure(
                    "tampered entry \(seq) from \(name): it is entry \(header.seq) of device \(header.device.lowerText.prefix(8)) (moved or renamed on the remote)"))
                return outcome
            }
            guard let member = roster.enrolled[device] else {
                outcome.stop = .problem(SyncFailure("entries from device \(folder.prefix(8)), which is not an enrolled device, refused",
                                                    hint: "a device writes only after an enrolled device has added it ('sshelf sync devices')"))
                return outcome
            }
            guard roster.mayWrite(device, seq: seq) else {
                let upTo = roster.revoked[device]?.upTo ?? 0
                outcome.stop = .note("\(name) was revoked; its entries after \(upTo) are refused")
                return outcome
            }
            guard entry.isSigned(by: member.signingKey) else {
                outcome.stop = .problem(SyncFailure("tampered entry \(seq) from \(name): its signature does not verify"))
                return outcome
            }
            if seq == expected {
                let previous = peer.head == 0 ? EntryHeader.noPrevious : ([UInt8](hex: peer.headDigest) ?? [])
                guard header.previous == previous else {
                    outcome.stop = .problem(SyncFailure("fork: \(name)'s entry \(seq) does not follow the entry \(seq - 1) this device verified",
                                                        hint: "\(name) wrote two entries numbered \(seq - 1), or the remote replaced one"))
                    return outcome
                }
            } else if !header.snapshot {
                outcome.stop = .problem(SyncFailure(
                    "\(name)'s entry \(expected) is missing (removed by the remote, or not copied in yet)",
                    hint: "entries from \(name) after it wait until it is there"))
                return outcome
            }
            if seq == peer.floor, entry.digest.hex != peer.floorDigest {
                outcome.stop = .problem(SyncFailure("fork: \(name) wrote two entries numbered \(seq)",
                                                    hint: "the device that invited this one verified another entry \(seq)"))
                return outcome
            }

            // Roster first: a revocation, an addition or a key shared in this entry counts for its own content.
            guard let rosterPlain = entry.openRoster(try session.rosterKey()) else {
                outcome.stop = .problem(SyncFailure("entry \(seq) from \(name) does not open with the group's key"))
                return outcome
            }
            let certificates: [Certificate]
            do { certificates = try RosterSection.decode(rosterPlain) } catch {
                outcome.stop = .problem(SyncFailure("entry \(seq) from \(name) has a damaged roster section: \(error)"))
                return outcome
            }
            let before = roster.revoked.keys
            _ = try store.write { _ in try session.keep(certificates) }
            if Set(roster.revoked.keys) != Set(before) { try taint() }
            guard roster.mayWrite(device, seq: seq) else {
                outcome.stop = .note("\(name) was revoked; its entries after \(roster.revoked[device]?.upTo ?? 0) are refused")
                return outcome
            }
            try session.collectShares()
            guard let key = try session.epochKey(header.epoch) else {
                outcome.stop = .waiting(epoch: header.epoch, seq: seq)
                return outcome
            }
            guard let plaintext = entry.openContent(SyncKeys.content(key)) else {
                outcome.stop = .problem(SyncFailure("tampered entry \(seq) from \(name): its content does not open with its epoch's key"))
                return outcome
            }
            let content: EntryContent
            do { content = try EntryContent.decode(plaintext, limit: RemoteLayout.maxEntryBytes) } catch {
                outcome.stop = .problem(SyncFailure("entry \(seq) from \(name) has damaged content: \(error)"))
                return outcome
            }
            if !header.snapshot, let foreign = content.records.first(where: { !stampedOnlyBy(folder, $0) }) {
                outcome.stop = .problem(SyncFailure(
                    "tampered entry \(seq) from \(name): it carries a change to \(foreign.kind.rawValue) \(foreign.id.lowerText.prefix(8)) stamped by another device"))
                return outcome
            }
            let vouched = Set(certificates.compactMap { certificate -> String? in
                guard case .revoke(let revoked, _, _, _) = certificate.body, roster.accepted.contains(certificate.digest) else { return nil }
                return revoked.lowerText
            })
            var unknownKinds: Set<String> = []
            let applied: Int
            do {
                // A snapshot's thousands of rows go in as a bulk write (the catalog triggers step aside, one token
                // change at the end); a few changes take the ordinary transaction.
                let write: ((Store) throws -> Int) throws -> Int = content.records.count > 256 ? store.bulkWrite : store.write
                applied = try write { store -> Int in
                    var applied = 0
                    for record in content.records {
                        // A kind a newer sshelf added is left for that version; everything else must apply.
                        guard record.kind.isKnown else {
                            unknownKinds.insert(record.kind.rawValue)
                            continue
                        }
                        let annotated = annotate(record, writer: folder, seq: seq, vouched: vouched)
                        let key = "\(record.kind.rawValue) \(record.id.lowerText)"
                        switch try store.apply(annotated, from: folder, at: session.now,
                                               localArrivedThisRun: session.receivedThisRun.contains(key)) {
                        case .applied:
                            applied += 1
                            session.receivedThisRun.insert(key)
                        case .kept: break
                        case .skipped(let why): throw SkippedRecord(why: why)
                        }
                    }
                    try store.recordEntry(device: folder, seq: seq, digest: entry.digest.hex)
                    peer.head = seq
                    peer.headDigest = entry.digest.hex
                    if header.snapshot { peer.snapshot = seq }
                    if content.credentials != nil { peer.credentials = seq }
                    peer.lastSeen = session.now
                    try store.savePeer(peer)
                    return applied
                }
            } catch let skipped as SkippedRecord {
                outcome.stop = .problem(SyncFailure("entry \(seq) from \(name) refused: \(skipped.why)"))
                return outcome
            }
            for kind in unknownKinds.sorted() {
                outcome.notes.append("entry \(seq) from \(name): record kind '\(kind)' is from a newer sshelf; left out")
            }
            outcome.applied += applied
            outcome.entries += 1
        }
        return outcome
    }

    /// A record a newer sshelf wrote, or one the credential rule refuses: the whole entry is not applied.
    struct SkippedRecord: Error, CustomStringConvertible {
        var why: String
        var description: String { why }
    }

    /// The entry this device verified as `seq` must still be the same file.
    func checkKnown(_ folder: String, _ device: UUID, seq: Int64, digest: String) -> Stop? {
        guard let bytes = try? remote.readEntry(folder, seq), SyncCrypto.digest(bytes).hex != digest else { return nil }
        let name = label(device)
        if let entry = try? Entry(parsing: bytes, limit: RemoteLayout.maxEntryBytes), let member = roster.enrolled[device],
           entry.isSigned(by: member.signingKey) {
            return .problem(SyncFailure("fork: \(name) wrote two entries numbered \(seq)",
                                        hint: "the remote holds another entry \(seq) than the one this device verified"))
        }
        return .problem(SyncFailure("tampered entry \(seq) from \(name): it differs from the one this device verified"))
    }

    /// Whether every stamp in a delta record is its writer's (a delta never speaks for another device).
    func stampedOnlyBy(_ device: String, _ record: SyncRecord) -> Bool {
        let stamps = record.clock.groups.values.map(\.stamp) + [record.clock.tombstone?.stamp].compactMap { $0 }
        return stamps.allSatisfy { $0 == .zero || $0.device == device }
    }

    /// Where each value came from, as this device sees it: the author's own entry, a relay, or a relay by a device
    /// that knew its author was revoked (which vouches for what it did not mark tainted).
    func annotate(_ record: SyncRecord, writer: String, seq: Int64, vouched: Set<String>) -> SyncRecord {
        func mark(_ stamp: GroupStamp) -> GroupStamp {
            guard stamp.stamp != .zero else { return stamp }
            var out = stamp
            let author = stamp.stamp.device
            if author == writer {
                out.via = seq
                out.tainted = false
            } else if let id = UUID(uuidString: author), roster.revoked[id] != nil {
                out.via = vouched.contains(author) ? GroupStamp.vouched : GroupStamp.relayed
                out.tainted = stamp.tainted || !vouched.contains(author)
            } else {
                out.via = GroupStamp.relayed
            }
            return out
        }
        var out = record
        out.clock.tombstone = record.clock.tombstone.map(mark)
        for (name, stamp) in record.clock.groups { out.clock.groups[name] = mark(stamp) }
        return out
    }
}

// PeerChains: reading other devices' chains. Each new entry goes through one step after another (`admit`), each a
// function from what the step before proved (a type: Wanted, Parsed, Enrolled, Signed, Linked, Rostered, Opened —
// made only by its step, so no step can run on what an earlier one did not find) to the next, or the reason to stop:
// parse (bounded read, format, header) → enrolled (and, if revoked, within its revocation) → signature → link
// (sequence and previous digest; a gap only before a snapshot) → roster section → content (opened with its epoch's
// key; a delta's changes all stamped by its writer) → apply (one transaction with the new head). Anything wrong stops
// that device's chain there with a reason naming it; nothing from that entry is applied. Rollbacks and forks are
// caught against the heads and digests verified before.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

struct PeerChains {
    let session: SyncSession
    let remote: FolderRemote
    /// Entries `gatherRoster` read already (taken once each).
    var prefetched = Prefetched()

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
            outcome.stop = .problem(
                SyncFailure(
                    problem, hint: "sshelf never writes a link there: remove \(remote.layout.deviceDirectory(folder))"))
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
            if (seqs.last ?? 0) > end {
                outcome.stop = .note("\(name) was revoked; its entries after \(end) are refused")
            }
            return outcome
        }
        // What this device verified before must still be there.
        let known = max(peer.head, peer.floor)
        if known > 0 && top < known {
            outcome.stop = .problem(
                SyncFailure(
                    "rollback detected: \(name)'s entries end at \(top), this device has verified \(known)",
                    hint:
                        "the remote lost or rolled back files; check the sync folder or repository (nothing from "
                        + "\(name) is applied until it is back)"
                ))
            return outcome
        }
        if peer.head > 0, seqs.contains(peer.head),
            let stop = checkKnown(folder, device, seq: peer.head, digest: peer.headDigest)
        {
            outcome.stop = stop
            return outcome
        }

        for seq in seqs where seq > peer.head {
            let wanted = Wanted(folder: folder, device: device, seq: seq, name: name)
            if let stop = try admit(wanted, peer: &peer, outcome: &outcome, taint: taint) {
                outcome.stop = stop
                return outcome
            }
        }
        return outcome
    }

    // MARK: the pipeline, one entry at a time

    /// One entry of another device's chain to read, before any step.
    struct Wanted {
        let folder: String
        let device: UUID
        let seq: Int64
        /// The device as messages name it.
        let name: String
    }

    /// Past parse: the entry read, its header naming this group and the folder's device and number.
    struct Parsed {
        let wanted: Wanted
        let entry: Entry
        fileprivate init(_ wanted: Wanted, _ entry: Entry) { (self.wanted, self.entry) = (wanted, entry) }
    }

    /// Past enrolled: its writer an enrolled member that may write this entry.
    struct Enrolled {
        let parsed: Parsed
        let member: Roster.Member
        fileprivate init(_ parsed: Parsed, _ member: Roster.Member) { (self.parsed, self.member) = (parsed, member) }
        var wanted: Wanted { parsed.wanted }
        var entry: Entry { parsed.entry }
    }

    /// Past signature: the whole entry signed with the member's enrolled key.
    struct Signed {
        let enrolled: Enrolled
        fileprivate init(_ enrolled: Enrolled) { self.enrolled = enrolled }
        var wanted: Wanted { enrolled.wanted }
        var entry: Entry { enrolled.entry }
    }

    /// Past link: the entry follows the one this device verified before it (or starts at a snapshot).
    struct Linked {
        let signed: Signed
        fileprivate init(_ signed: Signed) { self.signed = signed }
        var wanted: Wanted { signed.wanted }
        var entry: Entry { signed.entry }
    }

    /// Past the roster section: its certificates, kept.
    struct Rostered {
        let linked: Linked
        let certificates: [Certificate]
        fileprivate init(_ linked: Linked, _ certificates: [Certificate]) {
            (self.linked, self.certificates) = (linked, certificates)
        }
        var wanted: Wanted { linked.wanted }
        var entry: Entry { linked.entry }
    }

    /// Past content: opened with its epoch's key, parsed, a delta's changes all stamped by its writer.
    struct Opened {
        let rostered: Rostered
        let content: EntryContent
        fileprivate init(_ rostered: Rostered, _ content: EntryContent) {
            (self.rostered, self.content) = (rostered, content)
        }
        var wanted: Wanted { rostered.wanted }
        var entry: Entry { rostered.entry }
        var certificates: [Certificate] { rostered.certificates }
    }

    /// What a step found: what the next step takes, or the reason to stop.
    enum Step<Next> {
        case next(Next)
        case stop(Stop)

        /// The next step run on what this one found; a stop stays a stop.
        func then<Later>(_ step: (Next) throws -> Step<Later>) rethrows -> Step<Later> {
            switch self {
            case .next(let found): try step(found)
            case .stop(let stop): .stop(stop)
            }
        }

        var stop: Stop? {
            if case .stop(let stop) = self { stop } else { nil }
        }

        var passed: Next? {
            if case .next(let found) = self { found } else { nil }
        }
    }

    /// parse → enrolled → signature → link → roster → content → apply: the first step that finds a reason to stop
    /// returns it, and nothing of the entry is applied.
    func admit(_ wanted: Wanted, peer: inout PeerState, outcome: inout Outcome, taint: () throws -> Void) throws
        -> Stop?
    {
        var notes: [String] = []
        let rostered = try parse(wanted).then(enrolled).then(signature).then { link($0, peer: peer) }
            .then { try rosterSection($0, notes: &notes, taint: taint) }
        outcome.notes += notes
        switch try rostered.then(content) {
        case .stop(let stop): return stop
        case .next(let opened): return try apply(opened, peer: &peer, outcome: &outcome)
        }
    }

    /// Parse: a revoked device's chain ends at its revocation point; then the bounded read, the format, and a header
    /// that names this group and the folder's device and number.
    func parse(_ wanted: Wanted) -> Step<Parsed> {
        let (folder, seq, name) = (wanted.folder, wanted.seq, wanted.name)
        if let end = roster.revoked[wanted.device]?.upTo, seq > end {
            return .stop(.note("\(name) was revoked; its entries after \(end) are refused"))
        }
        let entry: Entry
        if let read = prefetched.take(folder, seq) {
            entry = read
        } else {
            let bytes: [UInt8]
            do { bytes = try remote.readEntry(folder, seq) } catch {
                return .stop(.problem(SyncFailure("entry \(seq) from \(name) is unreadable: \(error.reason)")))
            }
            do { entry = try Entry(parsing: bytes, limit: RemoteLayout.maxEntryBytes) } catch {
                return .stop(
                    .problem(
                        SyncFailure(
                            "entry \(seq) from \(name) is damaged (\(error)), or still being copied in",
                            hint: "if it stays, the remote altered it")))
            }
        }
        let header = entry.header
        if header.group != session.state.group {
            // Two groups on one remote (two devices set sync up at once, or a device still leaving one): their
            // devices cannot see each other's data, so say so until one side joins the other.
            return .stop(
                .problem(
                    SyncFailure(
                        "the remote also holds another sync group (device \(folder.prefix(8)) writes to it); the two "
                            + "do not see each other's data",
                        hint:
                            "join one group: 'sshelf sync invite' on a device of the group to keep, 'sshelf "
                            + "sync join' on the others"
                    )))
        }
        guard header.device == wanted.device, header.seq == UInt64(seq) else {
            return .stop(
                .problem(
                    SyncFailure(
                        "tampered entry \(seq) from \(name): it is entry \(header.seq) of device "
                            + "\(header.device.lowerText.prefix(8)) (moved or renamed on the remote)"
                    )))
        }
        return .next(Parsed(wanted, entry))
    }

    /// Enrolled: the writer is in the roster and, if revoked, the entry is within its revocation point.
    func enrolled(_ parsed: Parsed) -> Step<Enrolled> {
        let wanted = parsed.wanted
        if let added = roster.disenrolled[wanted.device] {
            let enroller = added.addedBy.map { label($0) } ?? "a revoked device"
            return .stop(
                .note(
                    "entries from \(wanted.name), which \(enroller) enrolled after its revocation, refused: nothing "
                        + "it writes counts"))
        }
        guard let member = roster.enrolled[wanted.device] else {
            return .stop(
                .problem(
                    SyncFailure(
                        "entries from device \(wanted.folder.prefix(8)), which is not an enrolled device, refused",
                        hint: "a device writes only after an enrolled device has added it ('sshelf sync devices')")))
        }
        guard roster.mayWrite(wanted.device, seq: wanted.seq) else {
            return .stop(
                .note(
                    "\(wanted.name) was revoked; its entries after \(roster.revoked[wanted.device]?.upTo ?? 0) "
                        + "are refused"))
        }
        return .next(Enrolled(parsed, member))
    }

    /// Signature: the writer's enrolled key signed the whole entry.
    func signature(_ enrolled: Enrolled) -> Step<Signed> {
        guard enrolled.entry.isSigned(by: enrolled.member.signingKey) else {
            let (seq, name) = (enrolled.wanted.seq, enrolled.wanted.name)
            return .stop(.problem(SyncFailure("tampered entry \(seq) from \(name): its signature does not verify")))
        }
        return .next(Signed(enrolled))
    }

    /// Link: the next entry names the digest of the one verified before it; a gap only before a snapshot; an entry at
    /// the floor from the invite has the digest the inviter verified.
    func link(_ signed: Signed, peer: PeerState) -> Step<Linked> {
        let entry = signed.entry
        let (seq, name) = (signed.wanted.seq, signed.wanted.name)
        if seq == peer.head + 1 {
            let previous = peer.head == 0 ? EntryHeader.noPrevious : ([UInt8](hex: peer.headDigest) ?? [])
            guard entry.header.previous == previous else {
                return .stop(
                    .problem(
                        SyncFailure(
                            "fork: \(name)'s entry \(seq) does not follow the entry \(seq - 1) this device verified",
                            hint: "\(name) wrote two entries numbered \(seq - 1), or the remote replaced one")))
            }
        } else if !entry.header.snapshot {
            return .stop(
                .problem(
                    SyncFailure(
                        "\(name)'s entry \(peer.head + 1) is missing (removed by the remote, or not copied in yet)",
                        hint: "entries from \(name) after it wait until it is there")))
        }
        if seq == peer.floor, entry.digest.hex != peer.floorDigest {
            return .stop(
                .problem(
                    SyncFailure(
                        "fork: \(name) wrote two entries numbered \(seq)",
                        hint: "the device that invited this one verified another entry \(seq)")))
        }
        return .next(Linked(signed))
    }

    /// Roster: the section opens and parses; its certificates are kept first, so a revocation, an addition or a key
    /// shared in this entry counts for its own content (the undo of late values runs at once). A name certificate
    /// new here that does not count is named in a note (it changes nothing; the entry's other contents stand).
    func rosterSection(_ linked: Linked, notes: inout [String], taint: () throws -> Void) throws -> Step<Rostered> {
        let (seq, name, device) = (linked.wanted.seq, linked.wanted.name, linked.wanted.device)
        guard let plaintext = linked.entry.openRoster(try session.rosterKey()) else {
            return .stop(.problem(SyncFailure("entry \(seq) from \(name) does not open with the group's key")))
        }
        let certificates: [Certificate]
        do { certificates = try RosterSection.decode(plaintext) } catch {
            return .stop(.problem(SyncFailure("entry \(seq) from \(name) has a damaged roster section: \(error)")))
        }
        let before = roster.revoked.keys
        let kept = try store.write { _ in try session.keep(certificates) }
        // New here: kept now, or kept when the run read this entry ahead (gatherRoster).
        let arrived = kept + certificates.filter { prefetched.arrived.remove($0.digest) != nil }
        if Set(roster.revoked.keys) != Set(before) { try taint() }
        notes = arrived.compactMap { certificate in
            guard let naming = certificate.naming, let why = roster.refusedNames[certificate.digest] else { return nil }
            return "entry \(seq) from \(name) carries a name certificate for \(label(naming.device)) signed as "
                + "\(label(certificate.signer)), refused: \(why)"
        }
        guard roster.mayWrite(device, seq: seq) else {
            return .stop(
                .note("\(name) was revoked; its entries after \(roster.revoked[device]?.upTo ?? 0) are refused"))
        }
        return .next(Rostered(linked, certificates))
    }

    /// Content: opened with its epoch's key (the chain waits when this device has not received it yet), parsed, and
    /// in a delta every change stamped by its writer.
    func content(_ rostered: Rostered) throws -> Step<Opened> {
        let entry = rostered.entry
        let (seq, name) = (rostered.wanted.seq, rostered.wanted.name)
        try session.collectShares()
        guard let key = try session.epochKey(entry.header.epoch) else {
            return .stop(.waiting(epoch: entry.header.epoch, seq: seq))
        }
        guard let plaintext = entry.openContent(SyncKeys.content(key)) else {
            return .stop(
                .problem(
                    SyncFailure("tampered entry \(seq) from \(name): its content does not open with its epoch's key")))
        }
        let content: EntryContent
        do { content = try EntryContent.decode(plaintext, limit: RemoteLayout.maxEntryBytes) } catch {
            return .stop(.problem(SyncFailure("entry \(seq) from \(name) has damaged content: \(error)")))
        }
        if !entry.header.snapshot,
            let foreign = content.records.first(where: { !stampedOnlyBy(rostered.wanted.folder, $0) })
        {
            return .stop(
                .problem(
                    SyncFailure(
                        "tampered entry \(seq) from \(name): it carries a change to \(foreign.kind.rawValue) "
                            + "\(foreign.id.lowerText.prefix(8)) stamped by another device"
                    )))
        }
        return .next(Opened(rostered, content))
    }

    /// Apply: every record merged in one transaction with the new head; a record the credential rule refuses refuses
    /// the whole entry; a kind a newer sshelf made is left out with a note.
    func apply(_ opened: Opened, peer: inout PeerState, outcome: inout Outcome) throws -> Stop? {
        let (entry, content) = (opened.entry, opened.content)
        let (folder, seq) = (opened.wanted.folder, opened.wanted.seq)
        let vouched = Set(
            opened.certificates.compactMap { certificate -> String? in
                guard case .revoke(let revoked, _, _, _) = certificate.body,
                    roster.accepted.contains(certificate.digest)
                else { return nil }
                return revoked.lowerText
            })
        var unknownKinds: Set<String> = []
        var eventNotes: [String] = []
        var head = peer
        let applied: Int
        do {
            // A snapshot's thousands of rows go in as a bulk write (the catalog triggers step aside, one token
            // change at the end); a few changes take the ordinary transaction.
            let write: ((Store) throws -> Int) throws -> Int =
                content.records.count > 256 ? store.bulkWrite : store.write
            applied = try write { store -> Int in
                var applied = 0
                // Conflict events first: a clash of two settling edits in this entry is then known as a dispute.
                eventNotes = try ConflictEvents.receive(
                    content.records.filter { $0.kind == ConflictEvents.kind }, writer: folder, seq: seq,
                    entryName: opened.wanted.name, session: session, store: store)
                for record in content.records where record.kind != ConflictEvents.kind {
                    // A kind a newer sshelf added is left for that version; everything else must apply.
                    guard record.kind.isKnown else {
                        unknownKinds.insert(record.kind.rawValue)
                        continue
                    }
                    let annotated = annotate(record, writer: folder, seq: seq, vouched: vouched)
                    let key = "\(record.kind.rawValue) \(record.id.lowerText)"
                    switch try store.apply(
                        annotated, from: folder, at: session.now,
                        localArrivedThisRun: session.receivedThisRun.contains(key))
                    {
                    case .applied:
                        applied += 1
                        session.receivedThisRun.insert(key)
                    case .kept: break
                    case .skipped(let why): throw SkippedRecord(why: why)
                    }
                }
                try store.recordEntry(device: folder, seq: seq, digest: entry.digest.hex)
                head.head = seq
                head.headDigest = entry.digest.hex
                if entry.header.snapshot { head.snapshot = seq }
                if content.credentials != nil { head.credentials = seq }
                head.lastSeen = session.now
                try store.savePeer(head)
                return applied
            }
        } catch let skipped as SkippedRecord {
            return .problem(SyncFailure("entry \(seq) from \(opened.wanted.name) refused: \(skipped.why)"))
        }
        peer = head
        outcome.notes += eventNotes
        for kind in unknownKinds.sorted() {
            outcome.notes.append(
                "entry \(seq) from \(opened.wanted.name): record kind '\(kind)' is from a newer sshelf; left out")
        }
        outcome.applied += applied
        outcome.entries += 1
        return nil
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
        if let entry = try? Entry(parsing: bytes, limit: RemoteLayout.maxEntryBytes),
            let member = roster.enrolled[device],
            entry.isSigned(by: member.signingKey)
        {
            return .problem(
                SyncFailure(
                    "fork: \(name) wrote two entries numbered \(seq)",
                    hint: "the remote holds another entry \(seq) than the one this device verified"))
        }
        return .problem(SyncFailure("tampered entry \(seq) from \(name): it differs from the one this device verified"))
    }

    /// Whether every stamp in a delta record is its writer's (a delta never speaks for another device).
    func stampedOnlyBy(_ device: String, _ record: SyncRecord) -> Bool {
        let stamps =
            record.clock.groups.values.map(\.stamp) + [record.clock.tombstone?.stamp].compactMap { $0 }
            + record.clock.sets.values.flatMap(\.stamps).map(\.stamp)
        return stamps.allSatisfy { $0 == .zero || $0.device == device }
    }

    /// Where each value came from, as this device sees it: the author's own entry, a relay, or a relay by a device
    /// that knew its author was revoked (which vouches for what it did not mark tainted).
    func annotate(_ record: SyncRecord, writer: String, seq: Int64, vouched: Set<String>) -> SyncRecord {
        func mark(_ stamp: GroupStamp) -> GroupStamp {
            guard stamp.stamp != .zero else { return stamp }
            var out = stamp
            let author = stamp.stamp.device
            if let id = UUID(uuidString: author), roster.isDisenrolled(id) {
                // Enrolled only by a revoked device after its revocation: nothing it wrote counts, whoever relays it.
                out.via = GroupStamp.relayed
                out.tainted = true
            } else if author == writer {
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
        for (name, set) in record.clock.sets {
            out.clock.sets[name] = ElementSet(
                entries: set.entries.mapValues { ElementSet.Entry(stamp: mark($0.stamp), present: $0.present) },
                floor: set.floor.map(mark))
        }
        return out
    }
}

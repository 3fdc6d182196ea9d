// OwnChain: this device's own chain on the remote. It checks what the remote holds against the head kept here (an
// entry of its own that a crash left unrecorded is adopted; a file it did not write is removed; entries the remote
// lost are reported and healed with a snapshot), never reuses a sequence number, writes the next entry, and after
// a snapshot removes its older files so the remote does not grow without end.
import FoundationEssentials
import ShelfCore
import ShelfStore
import ShelfVault

struct OwnChain {
    let session: SyncSession
    let remote: FolderRemote

    var store: Store { session.store }
    var folder: String { session.meText }

    /// Checks the remote's copy of this chain; returns true when a snapshot is needed to heal it. `fresh`: the remote
    /// was empty (sync was just pointed at it), so missing entries are expected, not lost.
    func check(report: inout SyncReport, fresh: Bool = false) throws -> Bool {
        var own = try store.peer(folder)
        var heal = false
        let seqs = try remote.entries(of: folder)
        for seq in seqs where seq <= own.head {
            if seq < own.snapshot {
                // This device removed everything below its last snapshot: anything there now, it did not write.
                remote.removeEntry(folder, seq)
                report.warnings.append(
                    "removed devices/\(folder)/\(RemoteLayout.entryName(seq)): this device did not write it")
                continue
            }
            // Deltas are small and checked every run; the snapshot they follow is read again only when its size or
            // time changed since it was last found intact.
            guard let digest = try store.entryDigest(device: folder, seq: seq) else { continue }
            let signature = fileSignature(seq)
            if seq == own.snapshot, try store.setting("sync.own.snapshot.file") == signature { continue }
            if let bytes = try? remote.readEntry(folder, seq), SyncCrypto.digest(bytes).hex == digest {
                if seq == own.snapshot { try store.write { try $0.setSetting("sync.own.snapshot.file", signature) } }
                continue
            }
            remote.removeEntry(folder, seq)
            report.warnings.append(
                "removed devices/\(folder)/\(RemoteLayout.entryName(seq)): it is not the entry this device wrote")
            heal = true
        }
        for seq in seqs where seq > own.head {
            // An entry of its own that a crash kept out of the store is adopted; anything else goes.
            if let bytes = try? remote.readEntry(folder, seq),
                let entry = try? Entry(parsing: bytes, limit: RemoteLayout.maxEntryBytes),
                entry.header.group == session.state.group, entry.header.device == session.me,
                entry.header.seq == UInt64(seq),
                entry.isSigned(by: session.keys.signingPublicKey),
                entry.header.previous == (own.head == 0 ? EntryHeader.noPrevious : ([UInt8](hex: own.headDigest) ?? []))
            {
                try store.write { store in
                    own.head = seq
                    own.headDigest = entry.digest.hex
                    if entry.header.snapshot { own.snapshot = seq }
                    try store.recordEntry(device: folder, seq: seq, digest: entry.digest.hex)
                    try store.savePeer(own)
                }
            } else {
                // Not signed by this device, or from a sync group it has left: either way not part of its chain here.
                remote.removeEntry(folder, seq)
                report.warnings.append(
                    "removed devices/\(folder)/\(RemoteLayout.entryName(seq)): this device did not "
                        + "write it in this group")
                heal = true
            }
        }
        let remaining = try remote.entries(of: folder)
        if fresh, own.head > 0, remaining.isEmpty {
            heal = true
        } else if own.head > 0, (remaining.last ?? 0) < own.head {
            report.warnings.append(
                "the remote lost this device's entries (it holds up to \(remaining.last ?? 0), this device wrote up "
                    + "to \(own.head)); republished everything in a snapshot")
            heal = true
        } else if own.snapshot > 0,
            let lost = (own.snapshot...max(own.snapshot, own.head)).first(where: { !Set(remaining).contains($0) })
        {
            // A hole after the last snapshot would stop every reader there: a new snapshot lets them jump it.
            report.warnings.append("the remote lost this device's entry \(lost); republished everything in a snapshot")
            heal = true
        }
        return heal
    }

    /// Size and modification time of one of this device's files: whether it changed since it was last checked.
    func fileSignature(_ seq: Int64) -> String { remote.signature(folder, seq) }

    /// Writes the next entry and records it; returns its number. `afterWrite` runs inside the transaction that
    /// records the entry (clearing the outbox, marking certificates published).
    @discardableResult
    func publish(
        certificates: [Certificate], content makeContent: (Int64) throws -> EntryContent, snapshot: Bool, epoch: UUID,
        epochKey: SecretBytes, afterWrite: (Store, Int64) throws -> Void
    ) throws -> Int64 {
        var own = try store.peer(folder)
        let seq = max(own.head, (try remote.entries(of: folder)).last ?? 0) + 1
        let header = EntryHeader(
            group: session.state.group, device: session.me, seq: UInt64(seq),
            previous: own.head == 0 ? EntryHeader.noPrevious : ([UInt8](hex: own.headDigest) ?? EntryHeader.noPrevious),
            epoch: epoch, snapshot: snapshot)
        let content = try makeContent(seq)
        let entry = Entry(
            header: header, roster: RosterSection.encode(certificates), rosterKey: try session.rosterKey(),
            content: try content.encode(), contentKey: SyncKeys.content(epochKey), keys: session.keys)
        try remote.writeEntry(folder, seq, entry.bytes)
        try store.write { store in
            own.head = seq
            own.headDigest = entry.digest.hex
            if snapshot { own.snapshot = seq }
            if content.credentials != nil { own.credentials = seq }
            own.lastSeen = session.now
            try store.savePeer(own)
            try store.recordEntry(device: folder, seq: seq, digest: entry.digest.hex)
            try store.markCertificatesPublished(certificates.filter { mine($0) }.map(\.digest.hex), in: seq)
            try store.setSetting("sync.epoch.written", epoch.lowerText)
            try afterWrite(store, seq)
        }
        if snapshot { compact(before: seq) }
        return seq
    }

    private func mine(_ certificate: Certificate) -> Bool { certificate.signer == session.me }

    /// Removes this device's files older than its snapshot `seq`: a reader behind it starts at the snapshot.
    func compact(before seq: Int64) {
        for old in (try? remote.entries(of: folder)) ?? [] where old < seq { remote.removeEntry(folder, old) }
        try? store.write { try $0.forgetEntries(device: folder, before: seq) }
    }

    /// Whether the next entry should be a snapshot: none yet, a new epoch to seal under, or a long run of deltas.
    func needsSnapshot(epoch: UUID) throws -> Bool {
        let own = try store.peer(folder)
        if own.snapshot == 0 { return true }
        if try store.setting("sync.epoch.written") != epoch.lowerText { return true }
        return own.head - own.snapshot >= OwnChain.deltasPerSnapshot
    }

    /// After this many deltas the next entry is a snapshot (and the older files go).
    static let deltasPerSnapshot: Int64 = 64
}

// PeerRoster: before any record of a run is applied, the certificates of every new entry on the remote that counts,
// decided on the whole group state at once — so a revocation in one device's folder governs what another folder's
// entries may do whatever order the folders are read in (a device enrolled by a revoked device after its
// revocation is refused before its first value is looked at). docs/SYNC.md, "Reading a chain".
import FoundationEssentials
import ShelfVault

extension PeerChains {
    /// An entry read ahead: where it is, the certificates its roster section carries, and the signing key it
    /// verifies with (the entry itself is not kept: a remote may hold thousands).
    struct Ahead {
        let device: UUID
        let seq: Int64
        let signedBy: [UInt8]?
        let certificates: [Certificate]
    }

    /// Entries read ahead and small enough to keep for the chain pass (a big snapshot is read again instead).
    final class Prefetched {
        static let keepBelow = 4 << 20
        /// At most this many bytes of entries are kept for the chain pass, whatever the remote holds.
        static let keepAtMost = 64 << 20
        var entries: [String: Entry] = [:]
        var kept = 0
        /// Certificates first kept here: the chain pass names the refused ones among them as it reaches their entry.
        var arrived: Set<[UInt8]> = []

        func take(_ folder: String, _ seq: Int64) -> Entry? { entries.removeValue(forKey: "\(folder)/\(seq)") }
    }

    /// Reads every new entry of `folders` whose device a held certificate added, as far as its header, signature and
    /// roster section go, then keeps the certificates of those that count under the roster they make together: an
    /// entry counts when its writer may write it (enrolled, within any revocation point) under that roster and its
    /// signature verifies with the writer's enrolled key, and every earlier new entry of its chain counts. Repeated
    /// until nothing changes (a revocation can take back what an addition allowed). Nothing here applies a record;
    /// at most 64 MiB of entries are kept for the chain pass.
    func gatherRoster(_ folders: [String]) throws {
        var ahead: [Ahead] = []
        let rosterKey = try session.rosterKey()
        for folder in folders {
            // Only devices some certificate held here added: an unknown folder's entries can count for nothing
            // before its addition does (the chain pass reads it then), and are not read twice.
            guard let device = UUID(uuidString: folder), let member = roster.everMembers[device],
                remote.folderProblem(folder) == nil, let seqs = try? remote.entries(of: folder)
            else { continue }
            let head = try store.peer(folder).head
            for seq in seqs where seq > head {
                let wanted = Wanted(folder: folder, device: device, seq: seq, name: label(device))
                guard let entry = parse(wanted).passed?.entry,
                    let plaintext = entry.openRoster(rosterKey),
                    let certificates = try? RosterSection.decode(plaintext)
                else { break }
                let signed = entry.isSigned(by: member.signingKey) ? member.signingKey : nil
                ahead.append(Ahead(device: device, seq: seq, signedBy: signed, certificates: certificates))
                if entry.bytes.count < Prefetched.keepBelow,
                    prefetched.kept + entry.bytes.count <= Prefetched.keepAtMost
                {
                    prefetched.entries["\(folder)/\(seq)"] = entry
                    prefetched.kept += entry.bytes.count
                }
                // A chain counts no further than its first entry that does not verify.
                if signed == nil { break }
            }
        }
        guard !ahead.isEmpty else { return }
        var counts = [Bool](repeating: false, count: ahead.count)
        for _ in 0..<8 {
            let held = session.certificates + ahead.indices.filter { counts[$0] }.flatMap { ahead[$0].certificates }
            let trial = Roster(group: session.state.group, anchor: session.state.anchor, certificates: held)
            var next = counts
            var stopped: Set<UUID> = []
            for (index, item) in ahead.enumerated() {
                guard !stopped.contains(item.device), trial.mayWrite(item.device, seq: item.seq),
                    let key = trial.enrolled[item.device]?.signingKey
                else {
                    stopped.insert(item.device)
                    next[index] = false
                    continue
                }
                next[index] = item.signedBy == key
                if !next[index] { stopped.insert(item.device) }
            }
            if next == counts { break }
            counts = next
        }
        let counted = ahead.indices.filter { counts[$0] }.flatMap { ahead[$0].certificates }
        guard !counted.isEmpty else { return }
        let arrived = try store.write { _ in try session.keep(counted) }
        prefetched.arrived.formUnion(arrived.map(\.digest))
    }
}

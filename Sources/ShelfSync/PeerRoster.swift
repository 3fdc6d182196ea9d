// PeerRoster: before any record of a run is applied, the certificates of every new entry on the remote that counts,
// decided on the whole group state at once — so a revocation in one device's folder governs what another folder's
// entries may do whatever order the folders are read in (a device enrolled by a revoked device after its
// revocation is refused before its first value is looked at). docs/SYNC.md, "Reading a chain".
import FoundationEssentials
import ShelfVault

extension PeerChains {
    /// An entry read ahead: where it is, what it is, and the certificates its roster section carries.
    struct Ahead {
        let device: UUID
        let seq: Int64
        let entry: Entry
        let certificates: [Certificate]
    }

    /// Entries read ahead and small enough to keep for the chain pass (a big snapshot is read again instead).
    final class Prefetched {
        static let keepBelow = 4 << 20
        var entries: [String: Entry] = [:]
        /// Certificates first kept here: the chain pass names the refused ones among them as it reaches their entry.
        var arrived: Set<[UInt8]> = []

        func take(_ folder: String, _ seq: Int64) -> Entry? { entries.removeValue(forKey: "\(folder)/\(seq)") }
    }

    /// Reads every new entry of `folders` as far as its header, signature and roster section go, then keeps the
    /// certificates of those that count under the roster they make together: an entry counts when its writer may
    /// write it (enrolled, within any revocation point) under that roster and its signature verifies with the
    /// writer's enrolled key, and every earlier new entry of its chain counts. Repeated until nothing changes (a
    /// revocation can take back what an addition allowed). Nothing here applies a record.
    func gatherRoster(_ folders: [String]) throws {
        var ahead: [Ahead] = []
        let rosterKey = try session.rosterKey()
        for folder in folders {
            guard let device = UUID(uuidString: folder), remote.folderProblem(folder) == nil,
                let seqs = try? remote.entries(of: folder)
            else { continue }
            let head = try store.peer(folder).head
            for seq in seqs where seq > head {
                var candidate = Candidate(folder: folder, device: device, seq: seq, name: label(device))
                guard parse(&candidate) == nil, let entry = candidate.entry,
                    let plaintext = entry.openRoster(rosterKey),
                    let certificates = try? RosterSection.decode(plaintext)
                else { break }
                ahead.append(Ahead(device: device, seq: seq, entry: entry, certificates: certificates))
                if entry.bytes.count < Prefetched.keepBelow { prefetched.entries["\(folder)/\(seq)"] = entry }
            }
        }
        guard !ahead.isEmpty else { return }
        var counts = [Bool](repeating: false, count: ahead.count)
        var verified: [Int: (key: [UInt8], signed: Bool)] = [:]
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
                if verified[index]?.key != key { verified[index] = (key, item.entry.isSigned(by: key)) }
                next[index] = verified[index]?.signed == true
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

// StoreSyncState: what this device has verified of its sync group, kept locally so a remote that drops or rolls
// back files cannot make it forget — the certificates (the roster is computed from them), each device's chain
// head and the digests of the entries verified, pending invites, and the conflicts merges recorded.
import FoundationEssentials
import ShelfCore

/// How far this device has verified one device's chain (this device's own chain included).
public struct PeerState: Sendable, Equatable {
    public var device: String
    /// The last entry verified and applied, and its digest (hex); 0 before any.
    public var head: Int64 = 0
    public var headDigest = ""
    /// An entry another member had verified when it invited this device: the chain must reach it, with this digest.
    public var floor: Int64 = 0
    public var floorDigest = ""
    /// The last snapshot entry verified.
    public var snapshot: Int64 = 0
    /// The newest entry that carried this device's credentials, and the one last applied to the vault.
    public var credentials: Int64 = 0
    public var credentialsApplied: Int64 = 0
    public var lastSeen: Date?

    public init(device: String) { self.device = device }
}

/// A certificate as kept here: its digest and bytes (hex), whether this device made it, and the entry of this
/// device's chain that published it (nil while it waits to be published).
public struct StoredCertificate: Sendable, Equatable {
    public var digest: String
    public var body: String
    public var mine: Bool
    public var published: Int64?

    public init(digest: String, body: String, mine: Bool, published: Int64?) {
        self.digest = digest
        self.body = body
        self.mine = mine
        self.published = published
    }
}

/// An invite this device made and still waits on.
public struct PendingInvite: Sendable, Equatable {
    public var id: String
    public var created: Date
    public var expires: Date
    /// The epochs whose keys the invite carries (their holders then include the device that uses it).
    public var epochs: [String]

    public init(id: String, created: Date, expires: Date, epochs: [String]) {
        self.id = id
        self.created = created
        self.expires = expires
        self.epochs = epochs
    }
}

/// One recorded merge conflict.
public struct StoredConflict: Sendable, Equatable, Codable {
    public var id: Int
    public var at: Date
    public var kind: String
    public var record: String
    public var name: String
    public var field: String
    public var kept: String
    public var keptBy: String
    public var lost: String
    public var lostBy: String
    public var why: String
    public var seen: Bool
    /// When each side was written (nil when not known: conflicts recorded before this was kept).
    public var keptAt: Date?
    public var lostAt: Date?
    /// How it was settled: `kept` or `other`; nil while open or disputed.
    public var settled: String?
    /// The device that settled it (this one's id too); nil while open or disputed.
    public var settledBy: String?
    /// `open`, `settled` or `disputed` (two devices settled it differently without seeing each other's choice) — the
    /// same on every device that holds the same events (StoreConflictEvents).
    public var state: String = "open"
    /// In a dispute, the side whose value stands (the later choice) and every device's choice.
    public var stands: String?
    public var choices: [ConflictChoice] = []
    /// The conflict's name in the events that travel (empty for a conflict recorded before they did).
    public var identity: String = ""
}

extension Store {
    // MARK: peers and chains

    public func peer(_ device: String) throws -> PeerState {
        try db.query(
            """
            SELECT head, head_digest, floor, floor_digest, snapshot, credentials, credentials_applied, last_seen
            FROM sync_peers WHERE device = ?
            """, [.text(device)]
        ) { row in
            var peer = PeerState(device: device)
            peer.head = Int64(row.int(0))
            peer.headDigest = row.text(1)
            peer.floor = Int64(row.int(2))
            peer.floorDigest = row.text(3)
            peer.snapshot = Int64(row.int(4))
            peer.credentials = Int64(row.int(5))
            peer.credentialsApplied = Int64(row.int(6))
            peer.lastSeen = row.optionalDate(7)
            return peer
        }.first ?? PeerState(device: device)
    }

    public func peers() throws -> [PeerState] {
        try db.query("SELECT device FROM sync_peers ORDER BY device") { $0.text(0) }.map { try peer($0) }
    }

    public func savePeer(_ peer: PeerState) throws {
        try db.run(
            """
            INSERT INTO sync_peers(device, head, head_digest, floor, floor_digest, snapshot, credentials,
            credentials_applied, last_seen)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(device) DO UPDATE SET head=excluded.head, head_digest=excluded.head_digest,
            floor=excluded.floor,
              floor_digest=excluded.floor_digest, snapshot=excluded.snapshot, credentials=excluded.credentials,
              credentials_applied=excluded.credentials_applied, last_seen=excluded.last_seen
            """,
            [
                .text(peer.device), .int(Int(peer.head)), .text(peer.headDigest), .int(Int(peer.floor)),
                .text(peer.floorDigest),
                .int(Int(peer.snapshot)), .int(Int(peer.credentials)), .int(Int(peer.credentialsApplied)),
                .optional(peer.lastSeen),
            ])
    }

    /// Forgets every other device's chain position (sync now points at another remote); this device's own numbering
    /// is kept, so it never writes two entries with one number.
    public func resetPeers(except device: String) throws {
        try db.run("DELETE FROM sync_peers WHERE device != ?", [.text(device)])
        try db.run("DELETE FROM sync_chain WHERE device != ?", [.text(device)])
    }

    /// Records that entry `seq` of `device` was verified with this digest (hex).
    public func recordEntry(device: String, seq: Int64, digest: String) throws {
        try db.run(
            "INSERT OR REPLACE INTO sync_chain(device, seq, digest) VALUES (?, ?, ?)",
            [.text(device), .int(Int(seq)), .text(digest)])
    }

    /// The digest (hex) this device verified for entry `seq` of `device`, if it did.
    public func entryDigest(device: String, seq: Int64) throws -> String? {
        try db.query("SELECT digest FROM sync_chain WHERE device = ? AND seq = ?", [.text(device), .int(Int(seq))]) {
            $0.text(0)
        }.first
    }

    /// Forgets the digests of entries before `seq` (a snapshot made them unnecessary).
    public func forgetEntries(device: String, before seq: Int64) throws {
        try db.run("DELETE FROM sync_chain WHERE device = ? AND seq < ?", [.text(device), .int(Int(seq))])
    }

    // MARK: certificates

    public func certificates() throws -> [StoredCertificate] {
        try db.query("SELECT digest, body, mine, published FROM sync_certs ORDER BY digest") { row in
            StoredCertificate(
                digest: row.text(0), body: row.text(1), mine: row.int(2) != 0,
                published: row.isNull(3) ? nil : Int64(row.int(3)))
        }
    }

    /// Keeps a certificate; returns false when it was known already.
    @discardableResult
    public func addCertificate(_ certificate: StoredCertificate) throws -> Bool {
        let known = try db.query("SELECT 1 FROM sync_certs WHERE digest = ?", [.text(certificate.digest)]) { $0.int(0) }
        guard known.isEmpty else { return false }
        try db.run(
            "INSERT INTO sync_certs(digest, body, mine, published) VALUES (?, ?, ?, ?)",
            [
                .text(certificate.digest), .text(certificate.body), .int(certificate.mine ? 1 : 0),
                certificate.published.map { .int(Int($0)) } ?? .null,
            ])
        return true
    }

    public func markCertificatesPublished(_ digests: [String], in seq: Int64) throws {
        for digest in digests {
            try db.run("UPDATE sync_certs SET published = ? WHERE digest = ?", [.int(Int(seq)), .text(digest)])
        }
    }

    /// Forgets the roster and every device's chain (leaving a group, or joining another).
    public func forgetSyncGroup() throws {
        try db.execute(
            "DELETE FROM sync_certs; DELETE FROM sync_peers; DELETE FROM sync_chain; DELETE FROM sync_invites;")
    }

    // MARK: invites

    public func pendingInvites() throws -> [PendingInvite] {
        try db.query("SELECT id, created, expires, epochs FROM sync_invites ORDER BY created") { row in
            PendingInvite(
                id: row.text(0), created: row.date(1), expires: row.date(2),
                epochs: row.text(3).split(separator: " ").map(String.init))
        }
    }

    public func addInvite(_ invite: PendingInvite) throws {
        try db.run(
            "INSERT OR REPLACE INTO sync_invites(id, created, expires, epochs) VALUES (?, ?, ?, ?)",
            [
                .text(invite.id), .double(invite.created.timeIntervalSince1970),
                .double(invite.expires.timeIntervalSince1970),
                .text(invite.epochs.joined(separator: " ")),
            ])
    }

    public func removeInvite(_ id: String) throws { try db.run("DELETE FROM sync_invites WHERE id = ?", [.text(id)]) }

    // MARK: conflicts

    func recordConflict(
        _ conflict: FieldConflict, kind: RecordKind, id: UUID, name: String, at time: Date, seen: Bool = false
    ) throws {
        let kept = ConflictEvent.Side(value: conflict.kept, by: conflict.keptBy, at: conflict.keptAt)
        let lost = ConflictEvent.Side(value: conflict.lost, by: conflict.lostBy, at: conflict.lostAt)
        let identity = ConflictEvent.identity(
            kind: kind.rawValue, record: id.storeText, field: conflict.group, why: conflict.why.rawValue,
            sides: [kept, lost])
        // Two settling edits of one conflict that did not know each other: that conflict's dispute, shown there.
        if conflict.why == .concurrent,
            try settlesOneConflict(
                kind: kind.rawValue, record: id.storeText, field: conflict.group, (kept.by, kept.at),
                (lost.by, lost.at))
        {
            return
        }
        // One conflict, one entry: the same two values with the same writers (either way round) are not listed again
        // when the entries that carry them are read again (a delta repeats every group its writer stamped), nor when
        // another device's event listed it first.
        let known = try db.query(
            """
            SELECT id FROM sync_conflicts WHERE identity = ? OR (kind = ? AND record = ? AND field = ? AND why = ? AND
            ((kept = ? AND kept_by = ? AND kept_at = ? AND lost = ? AND lost_by = ? AND lost_at = ?) OR
            (kept = ? AND kept_by = ? AND kept_at = ? AND lost = ? AND lost_by = ? AND lost_at = ?)))
            """,
            [
                .text(identity),
                .text(kind.rawValue), .text(id.storeText), .text(conflict.group), .text(conflict.why.rawValue),
                .text(conflict.kept), .text(conflict.keptBy), .int(Int(conflict.keptAt)),
                .text(conflict.lost), .text(conflict.lostBy), .int(Int(conflict.lostAt)),
                .text(conflict.lost), .text(conflict.lostBy), .int(Int(conflict.lostAt)),
                .text(conflict.kept), .text(conflict.keptBy), .int(Int(conflict.keptAt)),
            ]
        ) { $0.int(0) }
        if !known.isEmpty, !seen {
            // Listed first from another device's event: this device's own merge finding it counts it as new here.
            try db.run(
                "UPDATE sync_conflicts SET seen = 0, from_event = 0 WHERE identity = ? AND from_event = 1",
                [.text(identity)])
        }
        if known.isEmpty {
            try insertConflict(
                kind: kind.rawValue, record: id.storeText, name: name, field: conflict.group,
                why: conflict.why.rawValue, kept: kept, lost: lost, identity: identity, seen: seen, at: time)
        }
        // Found here: every other device lists it too, once this device's event reaches it.
        let me = try deviceID
        let told = try db.query(
            "SELECT 1 FROM sync_conflict_events WHERE identity = ? AND author = ? AND action = 'found'",
            [.text(identity), .text(me)]
        ) { $0.int(0) }
        guard told.isEmpty else { return }
        try addOwnEvent(
            ConflictEvent(
                action: .found, kind: kind.rawValue, record: id.storeText, name: name, field: conflict.group,
                why: conflict.why.rawValue, kept: kept, lost: lost, author: me,
                wall: HybridLogicalClock.milliseconds(time), counter: 0))
    }

    public func conflicts(unseenOnly: Bool = false) throws -> [StoredConflict] {
        try db.query(
            """
            SELECT \(Store.conflictColumns) FROM sync_conflicts \(unseenOnly ? "WHERE seen = 0" : "") ORDER BY id
            """, row: Store.conflictRow
        ).map(withState)
    }

    /// One conflict by its number (nil when there is none).
    public func conflict(_ id: Int) throws -> StoredConflict? {
        try db.query(
            "SELECT \(Store.conflictColumns) FROM sync_conflicts WHERE id = ?", [.int(id)], row: Store.conflictRow
        ).first.map(withState)
    }

    /// The state its events give it; a conflict recorded before events travelled keeps the local note it had.
    func withState(_ stored: StoredConflict) throws -> StoredConflict {
        var out = stored
        if out.settled != nil { out.state = "settled" }
        guard !stored.identity.isEmpty else { return out }
        let derived = try settlementState(
            identity: stored.identity,
            kept: ConflictEvent.Side(value: stored.kept, by: stored.keptBy, at: Store.milliseconds(stored.keptAt)),
            lost: ConflictEvent.Side(value: stored.lost, by: stored.lostBy, at: Store.milliseconds(stored.lostAt)))
        guard derived.state != "open" else { return out }
        out.state = derived.state
        out.settled = derived.settled
        out.settledBy = derived.settledBy
        out.stands = derived.stands
        out.choices = derived.choices
        return out
    }

    static let conflictColumns =
        "id, at, kind, record, name, field, kept, kept_by, lost, lost_by, why, seen, kept_at, lost_at, settled, "
        + "identity"

    static func conflictRow(_ row: Statement) -> StoredConflict {
        func time(_ ms: Int) -> Date? { ms > 0 ? Date(timeIntervalSince1970: Double(ms) / 1000) : nil }
        return StoredConflict(
            id: row.int(0), at: row.date(1), kind: row.text(2), record: row.text(3), name: row.text(4),
            field: row.text(5), kept: row.text(6), keptBy: row.text(7), lost: row.text(8), lostBy: row.text(9),
            why: row.text(10), seen: row.int(11) != 0, keptAt: time(row.int(12)), lostAt: time(row.int(13)),
            settled: row.text(14).isEmpty ? nil : String(row.text(14).prefix { $0 != "@" }),
            settledBy: row.text(14).split(separator: "@", maxSplits: 1).dropFirst().first.map(String.init),
            identity: row.text(15))
    }

    public func unseenConflictCount() throws -> Int {
        try db.scalarInt("SELECT count(*) FROM sync_conflicts WHERE seen = 0")
    }

    /// Marks every conflict seen; returns how many were not.
    @discardableResult
    public func markConflictsSeen() throws -> Int {
        let unseen = try unseenConflictCount()
        try db.run("UPDATE sync_conflicts SET seen = 1 WHERE seen = 0")
        return unseen
    }
}

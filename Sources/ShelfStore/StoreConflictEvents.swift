// StoreConflictEvents: the conflict events this device holds (ConflictEvent) and the states derived from them. A
// conflict found here, or settled here, is an event queued for this device's next entry (signed there); one received
// is kept as its author wrote it, and lists the conflict here too. A conflict's state comes from its settlements
// alone, by one rule every device applies: the settlements no later one knew of (the heads) — none: open; all taking
// one side: settled, by the earliest of them; taking different sides: disputed, each choice shown, the later one's
// value standing (the merge's own rule) until a device settles it again knowing both.
import FoundationEssentials
import ShelfCore

/// One conflict event as stored: its text as signed (empty signature until this device published it).
public struct StoredConflictEvent: Sendable {
    public var event: ConflictEvent
    public var text: String
    public var signature: String

    public init(event: ConflictEvent, text: String, signature: String) {
        self.event = event
        self.text = text
        self.signature = signature
    }
}

extension Store {
    /// A conflict side's time as kept (ms; 0 when not known), read back exactly from its Date.
    static func milliseconds(_ date: Date?) -> Int64 {
        date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0
    }

    /// Queues an event made here (its text is final when published). Call inside `write`.
    func addOwnEvent(_ event: ConflictEvent) throws {
        try db.run(
            """
            INSERT OR IGNORE INTO sync_conflict_events(identity, author, wall, counter, action, seq, body, signature)
            VALUES (?, ?, ?, ?, ?, 0, ?, '')
            """,
            [
                .text(event.identity), .text(event.author), .int(Int(event.wall)), .int(event.counter),
                .text(event.action.rawValue), .text(event.text),
            ])
    }

    /// Events made here not yet in an entry.
    public func unpublishedConflictEvents() throws -> [ConflictEvent] {
        try db.query("SELECT body FROM sync_conflict_events WHERE signature = '' ORDER BY wall, counter") {
            ConflictEvent(text: $0.text(0))
        }.compactMap { $0 }
    }

    /// Every event published (by this device or received), as signed: what a snapshot relays.
    public func publishedConflictEvents() throws -> [StoredConflictEvent] {
        try db.query("SELECT body, signature FROM sync_conflict_events WHERE signature != '' ORDER BY wall, counter") {
            row in
            ConflictEvent(text: row.text(0)).map {
                StoredConflictEvent(event: $0, text: row.text(0), signature: row.text(1))
            }
        }.compactMap { $0 }
    }

    /// Records an event of this device as published in its entry `seq`, with the text signed. Call inside `write`.
    public func markConflictEventPublished(_ event: ConflictEvent, text: String, signature: String) throws {
        try db.run(
            """
            UPDATE sync_conflict_events SET seq = ?, body = ?, signature = ?
            WHERE identity = ? AND author = ? AND wall = ? AND counter = ? AND action = ?
            """,
            [
                .int(Int(event.seq)), .text(text), .text(signature), .text(event.identity), .text(event.author),
                .int(Int(event.wall)), .int(event.counter), .text(event.action.rawValue),
            ])
    }

    /// Keeps an event another device signed (verified by the caller) and lists its conflict here if it was not.
    /// Returns whether it was new. Call inside `write`.
    @discardableResult
    public func receiveConflictEvent(_ event: ConflictEvent, text: String, signature: String, at time: Date) throws
        -> Bool
    {
        let identity = event.identity
        try db.run(
            """
            INSERT OR IGNORE INTO sync_conflict_events(identity, author, wall, counter, action, seq, body, signature)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(identity), .text(event.author), .int(Int(event.wall)), .int(event.counter),
                .text(event.action.rawValue), .int(Int(event.seq)), .text(text), .text(signature),
            ])
        guard db.changes > 0 else { return false }
        let listed = try db.query("SELECT id FROM sync_conflicts WHERE identity = ?", [.text(identity)]) { $0.int(0) }
        if listed.isEmpty {
            // Listed, not counted: the device that found it counts it (as for two values arriving in one run).
            try insertConflict(
                kind: event.kind, record: event.record, name: event.name, field: event.field, why: event.why,
                kept: event.kept, lost: event.lost, identity: identity, seen: true, at: time)
            try db.run("UPDATE sync_conflicts SET from_event = 1 WHERE identity = ?", [.text(identity)])
        }
        if event.action == .settled {
            // A settlement arriving makes the conflict seen; a choice that disputes another makes it new again.
            let disputed =
                try settlementState(identity: identity, kept: event.kept, lost: event.lost).state == "disputed"
            try db.run(
                "UPDATE sync_conflicts SET seen = ? WHERE identity = ?", [.int(disputed ? 0 : 1), .text(identity)])
        }
        return true
    }

    /// Forgets what `author` wrote after its entry `upTo` (a revoked device's late events), and any conflict only
    /// they listed here. Call inside `write`.
    public func dropConflictEvents(author: String, after upTo: Int64) throws {
        try db.run(
            "DELETE FROM sync_conflict_events WHERE author = ? AND seq > ? AND signature != ''",
            [.text(author), .int(Int(upTo))])
        try db.run(
            """
            DELETE FROM sync_conflicts WHERE identity != '' AND NOT EXISTS
            (SELECT 1 FROM sync_conflict_events e WHERE e.identity = sync_conflicts.identity)
            """)
    }

    func insertConflict(
        kind: String, record: String, name: String, field: String, why: String, kept: ConflictEvent.Side,
        lost: ConflictEvent.Side, identity: String, seen: Bool, at time: Date
    ) throws {
        try db.run(
            """
            INSERT INTO sync_conflicts(at, kind, record, name, field, kept, kept_by, lost, lost_by, why, seen,
            kept_at, lost_at, identity)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .double(time.timeIntervalSince1970), .text(kind), .text(record), .text(name), .text(field),
                .text(kept.value), .text(kept.by), .text(lost.value), .text(lost.by), .text(why), .int(seen ? 1 : 0),
                .int(Int(kept.at)), .int(Int(lost.at)), .text(identity),
            ])
    }

    /// The settlements of a conflict, oldest first.
    func settlements(identity: String) throws -> [ConflictEvent] {
        try db.query(
            "SELECT body FROM sync_conflict_events WHERE identity = ? AND action = 'settled'", [.text(identity)]
        ) { ConflictEvent(text: $0.text(0)) }.compactMap { $0 }.sorted { $0.stamp < $1.stamp }
    }

    /// Whether two stamps are both settling edits of one conflict of this record's field: their clash is that
    /// conflict's dispute, not a conflict of its own.
    func settlesOneConflict(kind: String, record: String, field: String, _ a: (String, Int64), _ b: (String, Int64))
        throws -> Bool
    {
        func identities(_ side: (String, Int64)) throws -> Set<String> {
            Set(
                try db.query(
                    "SELECT body FROM sync_conflict_events WHERE action = 'settled' AND author = ? AND wall = ?",
                    [.text(side.0), .int(Int(side.1))]
                ) { ConflictEvent(text: $0.text(0)) }.compactMap { event in
                    event.flatMap { $0.kind == kind && $0.record == record && $0.field == field ? $0.identity : nil }
                })
        }
        return !(try identities(a).intersection(try identities(b))).isEmpty
    }

    /// A conflict's state from its settlements (see the header).
    func settlementState(identity: String, kept: ConflictEvent.Side, lost: ConflictEvent.Side) throws
        -> (state: String, settled: String?, settledBy: String?, stands: String?, choices: [ConflictChoice])
    {
        let settles = try settlements(identity: identity)
        guard !settles.isEmpty else { return ("open", nil, nil, nil, []) }
        let known = Set(settles.flatMap(\.knew))
        let heads = settles.filter { !known.contains($0.id) }
        func side(_ event: ConflictEvent) -> String {
            guard let took = event.took else { return "later" }
            if took.by == kept.by && took.at == kept.at { return "kept" }
            if took.by == lost.by && took.at == lost.at { return "other" }
            return took.value == kept.value ? "kept" : took.value == lost.value ? "other" : "later"
        }
        guard let first = heads.first, let last = heads.last else { return ("open", nil, nil, nil, []) }
        let choices = heads.map { ConflictChoice(by: $0.author, took: side($0), at: $0.wall) }
        if Set(choices.map(\.took)).count == 1 { return ("settled", side(first), first.author, nil, []) }
        return ("disputed", nil, nil, side(last), choices)
    }
}

/// One device's choice in a disputed conflict.
public struct ConflictChoice: Sendable, Equatable, Codable {
    public var by: String
    public var took: String
    /// When (ms), by the settling edit's stamp.
    public var at: Int64
}

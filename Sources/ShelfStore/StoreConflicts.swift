// StoreConflicts: settling a merge conflict (`sync conflicts resolve ID --take other|kept`). The side taken is
// written as an edit made here — stamped after both sides, so every device takes it on its next sync and none
// records a new conflict for it — and the choice is recorded as a settlement event (StoreConflictEvents), which
// travels signed in this device's next entry and settles the conflict on every device that receives it.
import FoundationEssentials
import ShelfCore

extension Store {
    public enum ConflictSide: String, Sendable, CaseIterable { case kept, other }

    /// Writes the chosen side of conflict `id` as a local edit of its record and marks the conflict settled.
    /// Call inside `write`.
    public func settleConflict(_ id: Int, take side: ConflictSide) throws {
        guard let conflict = try conflict(id) else {
            throw StoreError(
                kind: .constraint, message: "no merge conflict number \(id)", hint: "see 'sshelf sync conflicts'")
        }
        if let settled = conflict.settled {
            let me = try deviceID
            let by = conflict.settledBy.flatMap { $0 == me ? nil : " on device \($0.prefix(8))" } ?? ""
            throw StoreError(
                kind: .constraint, message: "conflict \(id) was settled already\(by) (took \(settled))",
                hint: "edit the record itself to change it again")
        }
        let kind = RecordKind(rawValue: conflict.kind)
        guard let record = UUID(uuidString: conflict.record), Store.table(kind) != nil else {
            throw StoreError(
                kind: .constraint, message: "conflict \(id) names a record this version does not know", hint: nil)
        }
        guard let clock = try clock(kind, record), !clock.isDeleted, let body = try rawBody(kind, record) else {
            throw StoreError(
                kind: .constraint,
                message:
                    "the \(conflict.kind) of conflict \(id) is deleted; a deletion is final, so "
                    + "neither side can be taken",
                hint: "make it again if you still need it; 'sshelf sync conflicts --seen' marks the conflict seen")
        }
        let text = side == .kept ? conflict.kept : conflict.lost
        guard let taken = ConflictWords.taking(text, group: conflict.field, kind: kind, in: body) else {
            throw StoreError(
                kind: .constraint,
                message:
                    "the \(side == .kept ? "kept" : "other") side of conflict \(id) is \(text), not a value to take",
                hint: "take the other side, or edit the record itself")
        }
        var full = taken
        full["id"] = .string(record.storeText)
        if let failure = try storeBody(kind, full) { throw StoreError(kind: .constraint, message: failure, hint: nil) }
        let prior = PriorRecord(clock: clock, body: body)
        if FieldGroups.changed(kind: kind, from: body, to: taken).isEmpty {
            // The value stands already: stamped anew anyway, so the choice travels and outranks both sides.
            try restamp(kind, record, group: conflict.field, clock: clock, body: body)
        } else {
            try stampSave(kind, record, prior: prior) { taken }
        }
        try recordSettlement(conflict, took: side, kind: kind, record: record)
    }

    /// The settlement as an event that travels: who took which side, at the settling edit's stamp, knowing every
    /// earlier settlement of this conflict held here (so it ends a dispute).
    func recordSettlement(_ conflict: StoredConflict, took side: ConflictSide, kind: RecordKind, record: UUID) throws {
        let kept = ConflictEvent.Side(
            value: conflict.kept, by: conflict.keptBy, at: Store.milliseconds(conflict.keptAt))
        let lost = ConflictEvent.Side(
            value: conflict.lost, by: conflict.lostBy, at: Store.milliseconds(conflict.lostAt))
        var identity = conflict.identity
        if identity.isEmpty {
            identity = ConflictEvent.identity(
                kind: conflict.kind, record: conflict.record, field: conflict.field, why: conflict.why,
                sides: [kept, lost])
            try db.run("UPDATE sync_conflicts SET identity = ? WHERE id = ?", [.text(identity), .int(conflict.id)])
        }
        let stamp = try clock(kind, record)?.group(conflict.field).stamp ?? nextStamp()
        let event = ConflictEvent(
            action: .settled, kind: conflict.kind, record: conflict.record, name: conflict.name,
            field: conflict.field, why: conflict.why, kept: kept, lost: lost, author: stamp.device, wall: stamp.wall,
            counter: stamp.counter, took: side == .kept ? kept : lost,
            knew: try settlements(identity: identity).map(\.id))
        try addOwnEvent(event)
        try db.run("UPDATE sync_conflicts SET seen = 1 WHERE id = ?", [.int(conflict.id)])
    }

    /// A group's value stamped now without a change (a set group's values each), and queued for sync.
    func restamp(_ kind: RecordKind, _ id: UUID, group: String, clock: RecordClock, body: [String: JSONValue]) throws {
        let stamp = try nextStamp()
        var out = clock
        if let set = clock.sets[group] {
            var entries = set.entries
            for (value, entry) in set.entries {
                entries[value] = ElementSet.Entry(
                    stamp: GroupStamp(stamp: stamp, base: entry.stamp.stamp), present: entry.present)
            }
            let stamped = ElementSet(entries: entries, floor: set.floor)
            out.sets[group] = stamped
            out.groups[group] = stamped.stamp
        } else {
            let previous = clock.group(group)
            out.groups[group] = GroupStamp(stamp: stamp, base: previous.stamp == .zero ? nil : previous.stamp)
        }
        try writeClock(kind, id, out)
        try db.run(
            "INSERT OR IGNORE INTO sync_outbox(kind, id) VALUES (?, ?)", [.text(kind.rawValue), .text(id.storeText)])
    }
}

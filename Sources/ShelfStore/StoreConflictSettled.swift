// StoreConflictSettled: a conflict settled on another device shows as settled here too. Settling writes the chosen
// value as an edit stamped after both sides, with the side it replaced as its base (StoreConflicts); when such a value
// arrives — from another device, winning the merge, its base at or after both sides of an open conflict of that field
// — the conflict is marked settled here, by that device, with the side it took (or `later`: a value that is neither,
// an edit made knowing both), and `sync conflicts resolve` stops offering it. Two devices settling differently without
// seeing each other's choice meet as a new conflict of the two settling edits (FieldMerge), listed on both.
import FoundationEssentials
import ShelfCore

extension Store {
    /// Marks the open conflicts of `kind` `id` that `incoming` settles (see above). Call inside `write`.
    func noteSettled(
        kind: RecordKind, id: UUID, incoming: RecordClock, merged: RecordClock, body: [String: JSONValue]
    ) throws {
        let me = try deviceID
        for (group, stamp) in incoming.groups where incoming.sets[group] == nil {
            guard stamp.stamp != .zero, stamp.stamp.device != me, !stamp.tainted,
                merged.group(group).stamp == stamp.stamp, let base = stamp.base
            else { continue }
            let open = try db.query(
                """
                SELECT id, kept, lost, kept_at, lost_at, kept_by, lost_by FROM sync_conflicts
                WHERE kind = ? AND record = ? AND field = ? AND why = ? AND settled = ''
                """,
                [
                    .text(kind.rawValue), .text(id.storeText), .text(group),
                    .text(FieldConflict.Why.concurrent.rawValue),
                ]
            ) { row in
                (
                    id: row.int(0), kept: row.text(1), lost: row.text(2), keptAt: Int64(row.int(3)),
                    lostAt: Int64(row.int(4)), keptBy: row.text(5), lostBy: row.text(6)
                )
            }
            let value = FieldGroups.text(of: group, kind: kind, in: body)
            for row in open where row.keptAt > 0 && row.lostAt > 0 && base.wall >= max(row.keptAt, row.lostAt) {
                // The settling edit is neither side of the conflict itself.
                let writes = [(row.keptBy, row.keptAt), (row.lostBy, row.lostAt)]
                guard !writes.contains(where: { $0 == (stamp.stamp.device, stamp.stamp.wall) }) else { continue }
                let (conflict, kept, lost) = (row.id, row.kept, row.lost)
                let side = value == kept ? "kept" : value == lost ? "other" : "later"
                try db.run(
                    "UPDATE sync_conflicts SET settled = ?, seen = 1 WHERE id = ?",
                    [.text(side + "@" + stamp.stamp.device), .int(conflict)])
            }
        }
    }
}

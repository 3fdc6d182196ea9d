// FieldMergeSets: FieldMerge's part for set-like groups (FieldSets) — merging one set group of a record, the
// values a record first seen holds, and the undo of a revoked device's late adds and removes.
import FoundationEssentials

extension FieldMerge {
    /// `body` with each set group that has per-value stamps holding exactly the values its set says.
    static func setValues(_ clock: RecordClock, body: [String: JSONValue], kind: RecordKind) -> [String: JSONValue] {
        var out = body
        for (name, set) in clock.sets where FieldGroups.setNames(for: kind).contains(name) {
            out[name] = .array(set.values.map(JSONValue.string))
        }
        return out
    }

    /// One set group of one record being merged or undone: the record's clock, body and history as they go.
    struct SetMerge {
        let name: String
        var clock: RecordClock
        var body: [String: JSONValue]
        var history: FieldHistory
        var changed = false
        var conflicts: [FieldConflict] = []

        init(name: String, clock: RecordClock, body: [String: JSONValue], history: FieldHistory) {
            self.name = name
            self.clock = clock
            self.body = body
            self.history = history
        }

        /// The key under which a set's previous state is kept in the record's history (local only).
        static let keptSet = "~set"

        /// This device's set: its per-value stamps, or its one whole-list write.
        func current(_ clock: RecordClock, _ body: [String: JSONValue]?) -> ElementSet {
            clock.sets[name] ?? ElementSet.whole(clock.group(name), values: FieldGroups.values(of: name, in: body))
        }

        mutating func run(local: RecordClock, incoming: RecordClock, incomingBody: [String: JSONValue]) {
            let mine = current(local, body), theirs = current(incoming, incomingBody)
            let (merged, clashes) = ElementSet.merge(mine, theirs)
            let before = FieldGroups.values(of: name, in: body)
            let values: [String]
            if merged.isWhole, let floor = merged.floor {
                // One whole-list write holds it all: kept as before sets, in its writer's order.
                clock.sets[name] = nil
                clock.groups[name] = floor
                values =
                    mine.isWhole && mine.floor?.stamp == floor.stamp
                    ? before : FieldGroups.values(of: name, in: incomingBody)
            } else {
                clock.sets[name] = merged.isEmpty ? nil : merged
                clock.groups[name] = merged.stamp
                values = merged.values
            }
            if merged != mine, theirs.stamps.contains(where: { $0.stamp.device != local.group(name).stamp.device }),
                local.group(name).stamp != .zero
            {
                // One step back, for the undo of a revoked device's late values (FieldHistory).
                history.groups[name] = FieldHistory.Kept(
                    stamp: local.group(name),
                    fields: [
                        name: .array(before.map(JSONValue.string)),
                        SetMerge.keptSet: .string(mine.items(name, keepVia: true).joined(separator: " ")),
                    ])
            }
            if values != before {
                body[name] = .array(values.map(JSONValue.string))
                changed = true
            }
            for clash in clashes {
                conflicts.append(
                    FieldConflict(
                        group: name, kept: SetMerge.text(clash.value, clash.kept),
                        keptBy: clash.kept.stamp.stamp.device,
                        lost: SetMerge.text(clash.value, clash.lost), lostBy: clash.lost.stamp.stamp.device,
                        why: .concurrent, keptAt: clash.kept.stamp.stamp.wall, lostAt: clash.lost.stamp.stamp.wall))
            }
        }

        /// A clash's side as conflict text: `{"added":"db"}` or `{"removed":"db"}` (`sync conflicts` words it).
        static func text(_ value: String, _ entry: ElementSet.Entry) -> String {
            let object: JSONValue = .object([entry.present ? "added" : "removed": .string(value)])
            return String(decoding: object.jsonBytes, as: UTF8.self)
        }

        /// Undoes the adds and removes `late` says a revoked device made after its revocation point: each value goes
        /// back to what this device held before, or to nothing. False when the set holds none.
        mutating func undo(late: (GroupStamp) -> Bool) -> Bool {
            guard let set = clock.sets[name], set.stamps.contains(where: late) else { return false }
            var previous = ElementSet()
            if case .string(let text)? = history.groups[name]?.fields[SetMerge.keptSet],
                let parsed = RecordClock(text: "*=0.0@ " + text, kind: .host, latest: .zero, deleted: false)
            {
                previous = parsed.sets[name] ?? ElementSet()
            }
            var out = ElementSet(
                entries: set.entries.filter { !late($0.value.stamp) },
                floor: set.floor.flatMap { late($0) ? previous.floor.flatMap { late($0) ? nil : $0 } : $0 })
            for (value, entry) in set.entries where late(entry.stamp) {
                if let before = previous.entries[value], !late(before.stamp) { out.entries[value] = before }
            }
            history.groups[name] = nil
            if out.isWhole, let floor = out.floor {
                clock.sets[name] = nil
                clock.groups[name] = floor
            } else {
                clock.sets[name] = out.isEmpty ? nil : out
                clock.groups[name] = out.stamp
            }
            body[name] = .array(out.values.map(JSONValue.string))
            return true
        }
    }
}

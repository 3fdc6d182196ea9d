// FieldMerge: the merge rules, as pure functions over a record's clock and body (docs/SYNC.md, "Merge").
// Per field group the value with the greater stamp wins, so any delivery order ends in the same state; concurrent
// edits of one group with different values are reported as conflicts; a deletion is final and an edit it discards
// is reported too, so nothing vanishes silently. A value a revoked device wrote after its revocation point
// (tainted) is never taken, and is erased where it had been taken before the revocation was known.
import FoundationEssentials

/// Two values of one field group that were written without knowing of each other (or an edit a deletion
/// discarded): what was kept and what was not, for `sync conflicts` and the status line.
public struct FieldConflict: Sendable, Equatable {
    public enum Why: String, Sendable { case concurrent, deleted, revoked }
    public var group: String
    public var kept: String
    public var keptBy: String
    public var lost: String
    public var lostBy: String
    public var why: Why
    /// When each side was written: its stamp's milliseconds (0 when not known).
    public var keptAt: Int64
    public var lostAt: Int64

    public init(
        group: String, kept: String, keptBy: String, lost: String, lostBy: String, why: Why, keptAt: Int64 = 0,
        lostAt: Int64 = 0
    ) {
        self.group = group
        self.kept = kept
        self.keptBy = keptBy
        self.lost = lost
        self.lostBy = lostBy
        self.why = why
        self.keptAt = keptAt
        self.lostAt = lostAt
    }
}

public enum FieldMerge {
    public struct Result: Sendable, Equatable {
        public var clock: RecordClock
        /// The merged body; nil when the record is deleted.
        public var body: [String: JSONValue]?
        /// Whether anything visible (a value, the deletion) changed.
        public var changed: Bool
        public var conflicts: [FieldConflict] = []
        /// What this device had before another device's values replaced it (see FieldHistory).
        public var history = FieldHistory()
    }

    /// Merges an incoming copy of a record into the local one (nil when this device does not have it). Returns
    /// nil when nothing is to be stored: a tainted copy of a record this device does not have.
    public static func merge(
        kind: RecordKind, local: (clock: RecordClock, body: [String: JSONValue]?)?,
        history: FieldHistory = FieldHistory(), incoming rawIncoming: RecordClock,
        body rawBody: [String: JSONValue]?
    ) -> Result? {
        // Tainted values are not part of anyone's state: an incoming one counts as never written.
        let (incoming, incomingBody) = withoutTainted(rawIncoming, body: rawBody, kind: kind)
        if let tombstone = incoming.tombstone {
            guard !tombstone.tainted else {
                return local.map { Result(clock: $0.clock, body: $0.body, changed: false, history: history) }
            }
            guard let local else { return Result(clock: incoming, body: nil, changed: true) }
            if let kept = local.clock.tombstone {
                let winner = better(kept, tombstone)
                var history = history
                if winner != kept, kept.stamp.device != winner.stamp.device { history.tombstone = kept }
                return Result(clock: RecordClock(tombstone: winner), body: nil, changed: false, history: history)
            }
            // The deletion wins; edits its writer had not seen are reported; the record as it was is kept here.
            var conflicts: [FieldConflict] = []
            for name in FieldGroups.names(for: kind) where !FieldGroups.isQuiet(name, kind: kind) {
                let stamp = local.clock.group(name)
                guard stamp.stamp != .zero, !seen(stamp, by: tombstone) else { continue }
                conflicts.append(
                    FieldConflict(
                        group: name, kept: "(deleted)", keptBy: tombstone.stamp.device,
                        lost: FieldGroups.text(of: name, kind: kind, in: local.body),
                        lostBy: stamp.stamp.device, why: .deleted, keptAt: tombstone.stamp.wall,
                        lostAt: stamp.stamp.wall))
            }
            let before = FieldHistory(
                record: FieldHistory.KeptRecord(clock: local.clock, body: local.body ?? [:], groups: history.groups))
            return Result(clock: incoming, body: nil, changed: true, conflicts: conflicts, history: before)
        }
        guard let incomingBody else { return nil }
        guard let local else {
            // A record first seen here: only if something in it was written (and not by a revoked device late).
            guard incoming.groups.values.contains(where: { $0.stamp != .zero }) else { return nil }
            return Result(
                clock: incoming, body: FieldMerge.setValues(incoming, body: incomingBody, kind: kind), changed: true)
        }
        if let tombstone = local.clock.tombstone {
            // Deletion is final. An edit made without knowing of it is reported, once per group.
            var conflicts: [FieldConflict] = []
            for name in FieldGroups.names(for: kind) where !FieldGroups.isQuiet(name, kind: kind) {
                let stamp = incoming.group(name)
                guard stamp.stamp != .zero, !seen(stamp, by: tombstone) else { continue }
                conflicts.append(
                    FieldConflict(
                        group: name, kept: "(deleted)", keptBy: tombstone.stamp.device,
                        lost: FieldGroups.text(of: name, kind: kind, in: incomingBody),
                        lostBy: stamp.stamp.device, why: .deleted, keptAt: tombstone.stamp.wall,
                        lostAt: stamp.stamp.wall))
            }
            return Result(clock: local.clock, body: nil, changed: false, conflicts: conflicts, history: history)
        }
        var clock = local.clock
        var body = local.body ?? [:]
        var kept = history
        var changed = false
        var conflicts: [FieldConflict] = []
        for name in FieldGroups.names(for: kind) {
            if FieldGroups.setNames(for: kind).contains(name),
                local.clock.sets[name] != nil || incoming.sets[name] != nil
            {
                var merge = SetMerge(name: name, clock: clock, body: body, history: kept)
                merge.run(local: local.clock, incoming: incoming, incomingBody: incomingBody)
                (clock, body, kept) = (merge.clock, merge.body, merge.history)
                changed = changed || merge.changed
                conflicts += merge.conflicts
                continue
            }
            let mine = local.clock.group(name), theirs = incoming.group(name)
            let quiet = FieldGroups.isQuiet(name, kind: kind)
            let mineText = FieldGroups.fields(of: name, kind: kind, in: body)
            let theirsText = FieldGroups.fields(of: name, kind: kind, in: incomingBody)
            if theirs.outranks(mine) {
                if !quiet, mine.stamp != .zero, !theirs.succeeds(mine), mineText != theirsText {
                    conflicts.append(
                        conflict(
                            name, kind: kind, kept: theirs, keptBody: incomingBody, lost: mine, lostBody: body,
                            why: .concurrent))
                }
                // One step back: what this device had before another device's writes to this group.
                if mine.stamp != .zero, mine.stamp.device != theirs.stamp.device {
                    kept.groups[name] = FieldHistory.Kept(stamp: mine, fields: mineText)
                }
                clock.groups[name] = theirs
                if mineText != theirsText {
                    body = FieldGroups.replacing(name, kind: kind, in: body, from: incomingBody)
                    changed = true
                }
            } else if mine.outranks(theirs) {
                if !quiet, theirs.stamp != .zero, !mine.succeeds(theirs), mineText != theirsText {
                    conflicts.append(
                        conflict(
                            name, kind: kind, kept: mine, keptBody: body, lost: theirs, lostBody: incomingBody,
                            why: .concurrent))
                }
            } else if mine.stamp == theirs.stamp, betterProvenance(theirs.via, than: mine.via) {
                clock.groups[name]?.via = theirs.via
            }
        }
        return Result(clock: clock, body: body, changed: changed, conflicts: conflicts, history: kept)
    }

    /// Whether merging `incoming` would change no value here, because every group (or the tombstone) already has its
    /// stamp: then the clock with any better provenance it brings (or nil when it is not so). Lets a device skip the
    /// bodies of a snapshot it already holds.
    public static func alreadyKnown(local: RecordClock, incoming: RecordClock, kind: RecordKind) -> RecordClock? {
        if let tombstone = incoming.tombstone {
            guard let kept = local.tombstone else { return nil }
            if tombstone.tainted { return local }
            guard kept.stamp == tombstone.stamp else { return nil }
            var out = local
            if betterProvenance(tombstone.via, than: kept.via) { out.tombstone?.via = tombstone.via }
            return out
        }
        guard !local.isDeleted else { return nil }
        for (name, set) in incoming.sets where !set.isEmpty {
            // Known when every value stamp it brings is the one held here (otherwise the merge decides).
            guard let held = local.sets[name], set.floor?.stamp == nil || set.floor?.stamp == held.floor?.stamp,
                set.entries.allSatisfy({
                    $0.value.stamp.tainted || held.state(of: $0.key)?.stamp.stamp == $0.value.stamp.stamp
                })
            else { return nil }
        }
        var out = local
        for name in FieldGroups.names(for: kind) {
            let mine = local.group(name), theirs = incoming.group(name)
            if theirs.tainted || theirs.stamp == .zero { continue }
            guard mine.stamp == theirs.stamp else { return nil }
            if betterProvenance(theirs.via, than: mine.via) { out.groups[name]?.via = theirs.via }
        }
        return out
    }

    /// `clock` and `body` with every tainted group as if never written (its stamp absent, its fields gone).
    static func withoutTainted(
        _ clock: RecordClock, body: [String: JSONValue]?, kind: RecordKind
    )
        -> (RecordClock, [String: JSONValue]?)
    {
        let taintedSets = clock.sets.values.contains { $0.stamps.contains(where: \.tainted) }
        guard taintedSets || clock.groups.values.contains(where: \.tainted) else { return (clock, body) }
        var out = clock
        var stripped = body
        for (name, stamp) in clock.groups where stamp.tainted {
            out.groups[name] = .absent
            if let current = stripped {
                stripped = current.filter { FieldGroups.fields(of: name, kind: kind, in: current)[$0.key] == nil }
            }
        }
        for (name, set) in clock.sets {
            let kept = ElementSet(
                entries: set.entries.filter { !$0.value.stamp.tainted },
                floor: set.floor.flatMap { $0.tainted ? nil : $0 })
            out.sets[name] = kept.isEmpty ? nil : kept
            if !kept.isEmpty { out.groups[name] = kept.stamp }
        }
        return (out, stripped)
    }

    /// The clock after an edit made here: groups whose value changed get `stamp`, with the base they were built on.
    /// Nil when nothing changed.
    public static func localEdit(
        kind: RecordKind, old: RecordClock, oldBody: [String: JSONValue],
        newBody: [String: JSONValue], stamp: ClockStamp
    ) -> RecordClock? {
        let changed = FieldGroups.changed(kind: kind, from: oldBody, to: newBody)
        guard !changed.isEmpty else { return nil }
        var clock = old
        for name in changed {
            if FieldGroups.setNames(for: kind).contains(name) {
                let before =
                    old.sets[name]
                    ?? ElementSet.whole(old.group(name), values: FieldGroups.values(of: name, in: oldBody))
                let after = before.editing(
                    from: FieldGroups.values(of: name, in: oldBody), to: FieldGroups.values(of: name, in: newBody),
                    stamp: stamp)
                clock.sets[name] = after
                clock.groups[name] = after.stamp
                continue
            }
            let previous = old.group(name)
            let base =
                previous.stamp.device == stamp.device ? previous.base : (previous.stamp == .zero ? nil : previous.stamp)
            clock.groups[name] = GroupStamp(stamp: stamp, base: base)
        }
        return clock
    }

    /// The tombstone of a record deleted here: it knew every value up to the record's latest stamp.
    public static func localDelete(old: RecordClock?, stamp: ClockStamp) -> RecordClock {
        RecordClock(tombstone: GroupStamp(stamp: stamp, base: old.map(\.latest)))
    }

    /// What a record becomes here once device `device` is known to be revoked after its entry `upTo`.
    public enum Taint: Equatable, Sendable {
        case unchanged
        /// Nothing of it counts any more (it came only from the revoked device late): forget it here; any device that
        /// holds it legitimately brings it back.
        case forget
        /// The record as it is now: `groups` held the revoked device's late values and were given back what this
        /// device had before (or erased, when it had nothing); a late deletion is undone the same way.
        case update(clock: RecordClock, body: [String: JSONValue], history: FieldHistory, groups: [String])
    }

    /// Values that came from the revoked device's entries after `upTo`, or only through devices that did not know of
    /// the revocation (provenance `via`), are undone: what this device had before comes back, or the group is erased.
    /// What came from its entries up to `upTo`, or from a device that knew and vouched for it, stays.
    public static func taint(
        kind: RecordKind, _ clock: RecordClock, body: [String: JSONValue]?, history: FieldHistory,
        device: String, upTo: Int64
    ) -> Taint {
        func late(_ stamp: GroupStamp) -> Bool {
            guard stamp.stamp.device == device, let via = stamp.via else { return false }
            return via == GroupStamp.relayed || via > upTo
        }
        if let tombstone = clock.tombstone {
            guard late(tombstone) else { return .unchanged }
            // A late deletion is undone: the deletion this device had before stands again, or else the record comes
            // back as this device had it (checked in turn).
            if let previous = history.tombstone, !late(previous) {
                var rest = history
                rest.tombstone = nil
                return .update(clock: RecordClock(tombstone: previous), body: [:], history: rest, groups: ["deleted"])
            }
            guard let before = history.record else { return .forget }
            let restored = FieldHistory(groups: before.groups)
            switch taint(kind: kind, before.clock, body: before.body, history: restored, device: device, upTo: upTo) {
            case .unchanged:
                return .update(clock: before.clock, body: before.body, history: restored, groups: ["deleted"])
            case .forget: return .forget
            case .update(let clock, let body, let history, let groups):
                return .update(clock: clock, body: body, history: history, groups: ["deleted"] + groups)
            }
        }
        var out = clock
        var current = body ?? [:]
        var kept = history
        var undoneSets: [String] = []
        for name in clock.sets.keys.sorted() {
            var merge = SetMerge(name: name, clock: out, body: current, history: kept)
            guard merge.undo(late: late) else { continue }
            (out, current, kept) = (merge.clock, merge.body, merge.history)
            undoneSets.append(name)
        }
        let undone = clock.groups.filter { late($0.value) && clock.sets[$0.key] == nil }.map(\.key).sorted()
        guard !undone.isEmpty || !undoneSets.isEmpty else { return .unchanged }
        for name in undone {
            if let before = kept.groups[name], !late(before.stamp) {
                out.groups[name] = before.stamp
                current = FieldGroups.replacing(name, kind: kind, in: current, from: before.fields)
            } else {
                out.groups[name] = .absent
                for field in FieldGroups.fields(of: name, kind: kind, in: current).keys { current[field] = nil }
            }
            kept.groups[name] = nil
        }
        guard out.groups.values.contains(where: { $0.stamp != .zero }) else { return .forget }
        return .update(clock: out, body: current, history: kept, groups: (undone + undoneSets).sorted())
    }

    /// Whether a deletion's writer had seen `stamp`.
    static func seen(_ stamp: GroupStamp, by tombstone: GroupStamp) -> Bool {
        if stamp.stamp.device == tombstone.stamp.device { return stamp.stamp <= tombstone.stamp }
        guard let base = tombstone.base else { return false }
        return stamp.stamp <= base
    }

    static func better(_ a: GroupStamp, _ b: GroupStamp) -> GroupStamp { b.outranks(a) ? b : a }

    /// An author's own entry is better evidence than a relay, a vouched relay better than an unvouched one.
    static func betterProvenance(_ new: Int64?, than old: Int64?) -> Bool {
        guard let new else { return false }
        guard let old else { return false }
        if old == GroupStamp.relayed { return new != GroupStamp.relayed }
        if old == GroupStamp.vouched { return new > 0 }
        return false
    }

    static func conflict(
        _ name: String, kind: RecordKind, kept: GroupStamp, keptBody: [String: JSONValue],
        lost: GroupStamp, lostBody: [String: JSONValue], why: FieldConflict.Why
    ) -> FieldConflict {
        FieldConflict(
            group: name, kept: FieldGroups.text(of: name, kind: kind, in: keptBody), keptBy: kept.stamp.device,
            lost: FieldGroups.text(of: name, kind: kind, in: lostBody), lostBy: lost.stamp.device, why: why,
            keptAt: kept.stamp.wall, lostAt: lost.stamp.wall)
    }
}

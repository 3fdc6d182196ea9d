// FieldMerge: the merge rules, as pure functions over a record's clock and body (docs/SYNC.md, "Merge").
// Per field group the value with the greater stamp wins (untainted before tainted), so any delivery order ends
// in the same state; concurrent edits of one group with different values are reported as conflicts; a deletion
// is final and an edit it discards is reported too, so nothing vanishes silently.
import Foundation

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

    public init(group: String, kept: String, keptBy: String, lost: String, lostBy: String, why: Why) {
        self.group = group
        self.kept = kept
        self.keptBy = keptBy
        self.lost = lost
        self.lostBy = lostBy
        self.why = why
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
    }

    /// Merges an incoming copy of a record into the local one (nil when this device does not have it). Returns
    /// nil when nothing is to be stored: a tainted copy of a record this device does not have.
    public static func merge(kind: RecordKind, local: (clock: RecordClock, body: [String: JSONValue]?)?,
                             incoming: RecordClock, body incomingBody: [String: JSONValue]?) -> Result? {
        if let tombstone = incoming.tombstone {
            guard !tombstone.tainted else { return local.map { Result(clock: $0.clock, body: $0.body, changed: false) } }
            guard let local else { return Result(clock: incoming, body: nil, changed: true) }
            if let kept = local.clock.tombstone {
                let clock = RecordClock(tombstone: better(kept, tombstone))
                return Result(clock: clock, body: nil, changed: false)
            }
            // The deletion wins; edits its writer had not seen are reported.
            var conflicts: [FieldConflict] = []
            for name in FieldGroups.names(for: kind) where !FieldGroups.isQuiet(name, kind: kind) {
                let stamp = local.clock.group(name)
                guard stamp.stamp != .zero, !seen(stamp, by: tombstone) else { continue }
                conflicts.append(FieldConflict(group: name, kept: "(deleted)", keptBy: tombstone.stamp.device,
                                               lost: FieldGroups.text(of: name, kind: kind, in: local.body),
                                               lostBy: stamp.stamp.device, why: .deleted))
            }
            return Result(clock: incoming, body: nil, changed: true, conflicts: conflicts)
        }
        guard let incomingBody else { return nil }
        guard let local else {
            // A record first seen here: only if something in it is untainted.
            guard incoming.groups.values.contains(where: { !$0.tainted && $0.stamp != .zero }) else { return nil }
            return Result(clock: incoming, body: incomingBody, changed: true)
        }
        if let tombstone = local.clock.tombstone {
            // Deletion is final. An edit made without knowing of it is reported, once per group.
            var conflicts: [FieldConflict] = []
            for name in FieldGroups.names(for: kind) where !FieldGroups.isQuiet(name, kind: kind) {
                let stamp = incoming.group(name)
                guard stamp.stamp != .zero, !stamp.tainted, !seen(stamp, by: tombstone) else { continue }
                conflicts.append(FieldConflict(group: name, kept: "(deleted)", keptBy: tombstone.stamp.device,
                                               lost: FieldGroups.text(of: name, kind: kind, in: incomingBody),
                                               lostBy: stamp.stamp.device, why: .deleted))
            }
            return Result(clock: local.clock, body: nil, changed: false, conflicts: conflicts)
        }
        var clock = local.clock
        var body = local.body ?? [:]
        var changed = false
        var conflicts: [FieldConflict] = []
        for name in FieldGroups.names(for: kind) {
            let mine = local.clock.group(name), theirs = incoming.group(name)
            let quiet = FieldGroups.isQuiet(name, kind: kind)
            let mineText = FieldGroups.fields(of: name, kind: kind, in: body)
            let theirsText = FieldGroups.fields(of: name, kind: kind, in: incomingBody)
            if theirs.outranks(mine) {
                if !quiet, !mine.tainted, !theirs.tainted, mine.stamp != .zero, !theirs.succeeds(mine), mineText != theirsText {
                    conflicts.append(conflict(name, kind: kind, kept: theirs, keptBody: incomingBody, lost: mine, lostBody: body,
                                              why: .concurrent))
                }
                if mine.tainted && !theirs.tainted && mineText != theirsText && !quiet {
                    conflicts.append(conflict(name, kind: kind, kept: theirs, keptBody: incomingBody, lost: mine, lostBody: body,
                                              why: .revoked))
                }
                clock.groups[name] = theirs
                if mineText != theirsText {
                    body = FieldGroups.replacing(name, kind: kind, in: body, from: incomingBody)
                    changed = true
                }
            } else if mine.outranks(theirs) {
                if !quiet, !mine.tainted, !theirs.tainted, theirs.stamp != .zero, !mine.succeeds(theirs), mineText != theirsText {
                    conflicts.append(conflict(name, kind: kind, kept: mine, keptBody: body, lost: theirs, lostBody: incomingBody,
                                              why: .concurrent))
                }
            } else if mine.stamp == theirs.stamp, betterProvenance(theirs.via, than: mine.via) {
                clock.groups[name]?.via = theirs.via
            }
        }
        return Result(clock: clock, body: body, changed: changed, conflicts: conflicts)
    }

    /// The clock after an edit made here: groups whose value changed get `stamp`, with the base they were built on.
    /// Nil when nothing changed.
    public static func localEdit(kind: RecordKind, old: RecordClock, oldBody: [String: JSONValue],
                                 newBody: [String: JSONValue], stamp: ClockStamp) -> RecordClock? {
        let changed = FieldGroups.changed(kind: kind, from: oldBody, to: newBody)
        guard !changed.isEmpty else { return nil }
        var clock = old
        for name in changed {
            let previous = old.group(name)
            let base = previous.stamp.device == stamp.device ? previous.base : (previous.stamp == .zero ? nil : previous.stamp)
            clock.groups[name] = GroupStamp(stamp: stamp, base: base)
        }
        return clock
    }

    /// The tombstone of a record deleted here: it knew every value up to the record's latest stamp.
    public static func localDelete(old: RecordClock?, stamp: ClockStamp) -> RecordClock {
        RecordClock(tombstone: GroupStamp(stamp: stamp, base: old.map(\.latest)))
    }

    /// A record's clock once device `device` is known to be revoked after its entry `upTo`: what came from its
    /// entries after that, or only through other devices that did not know, is tainted. Returns nil when the
    /// record is to be forgotten here (its deletion, or every value in it, is tainted).
    public static func taint(_ clock: RecordClock, device: String, upTo: Int64) -> RecordClock? {
        func check(_ stamp: GroupStamp) -> GroupStamp {
            guard stamp.stamp.device == device, !stamp.tainted, let via = stamp.via else { return stamp }
            var out = stamp
            out.tainted = via == GroupStamp.relayed || via > upTo
            return out
        }
        if let tombstone = clock.tombstone { return check(tombstone).tainted ? nil : clock }
        var out = clock
        for (name, stamp) in clock.groups { out.groups[name] = check(stamp) }
        return out.groups.values.contains { !$0.tainted && $0.stamp != .zero } ? out : nil
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

    static func conflict(_ name: String, kind: RecordKind, kept: GroupStamp, keptBody: [String: JSONValue],
                         lost: GroupStamp, lostBody: [String: JSONValue], why: FieldConflict.Why) -> FieldConflict {
        FieldConflict(group: name, kept: FieldGroups.text(of: name, kind: kind, in: keptBody), keptBy: kept.stamp.device,
                      lost: FieldGroups.text(of: name, kind: kind, in: lostBody), lostBy: lost.stamp.device, why: why)
    }
}

// FieldClock: the merge state of one record — a clock stamp per field group (or a tombstone), each with the stamp
// of the value its writer built on (its base), where this device got it from (its provenance), and whether it is
// tainted (written by a revoked device after its revocation point). Stored compactly in the store's
// `record_clock.clock` text: most records have one stamp for every group, written as nothing at all.
import FoundationEssentials

/// The clock of one field group, or of a tombstone.
public struct GroupStamp: Hashable, Sendable {
    public var stamp: ClockStamp
    /// The last stamp from another device this group held before its writer's own edits (nil: none known).
    public var base: ClockStamp?
    /// Where this device got the value: nil — made here, or before provenance was kept; `0` — relayed in
    /// another device's snapshot; `-1` — relayed by a device that knew its author was revoked and vouched
    /// for it; `n > 0` — the author's own entry number `n`.
    public var via: Int64?
    /// Written by a revoked device after its revocation point: kept only until any untainted value arrives.
    public var tainted: Bool

    public init(stamp: ClockStamp, base: ClockStamp? = nil, via: Int64? = nil, tainted: Bool = false) {
        self.stamp = stamp
        self.base = base
        self.via = via
        self.tainted = tainted
    }

    public static let relayed: Int64 = 0
    public static let vouched: Int64 = -1

    /// A group nothing has been written to yet (a record known only from part of its fields).
    public static let absent = GroupStamp(stamp: .zero)

    var withoutVia: GroupStamp { GroupStamp(stamp: stamp, base: base, tainted: tainted) }

    /// `wall.counter@device[<base][#via][!]`.
    public func text(keepVia: Bool = true) -> String {
        var out = "\(stamp)"
        if let base { out += "<\(base)" }
        if keepVia, let via { out += "#\(via)" }
        if tainted { out += "!" }
        return out
    }

    public init?(text: Substring) {
        var rest = text
        var stamp = GroupStamp(stamp: .zero)
        if rest.hasSuffix("!") {
            stamp.tainted = true
            rest = rest.dropLast()
        }
        if let hash = rest.firstIndex(of: "#") {
            guard let via = Int64(rest[rest.index(after: hash)...]) else { return nil }
            stamp.via = via
            rest = rest[..<hash]
        }
        if let angle = rest.firstIndex(of: "<") {
            guard let base = ClockStamp(text: rest[rest.index(after: angle)...]) else { return nil }
            stamp.base = base
            rest = rest[..<angle]
        }
        guard let main = ClockStamp(text: rest) else { return nil }
        stamp.stamp = main
        self = stamp
    }

    /// Merge order: any untainted value before any tainted one, then the later stamp.
    public func outranks(_ other: GroupStamp) -> Bool {
        if tainted != other.tainted { return !tainted }
        return stamp > other.stamp
    }

    /// Whether this value was written knowing `other` (so they were not concurrent): the same device wrote both
    /// (in order), or its writer had seen `other` or something newer.
    public func succeeds(_ other: GroupStamp) -> Bool {
        if other.stamp == .zero { return true }
        if stamp.device == other.stamp.device { return stamp >= other.stamp }
        if let base { return base >= other.stamp }
        return false
    }
}

extension ClockStamp {
    /// Sorts before every real stamp.
    public static let zero = ClockStamp(wall: 0, counter: 0, device: "")

    /// `wall.counter@device`, as written in record clocks and on the wire.
    public init?(text: Substring) {
        guard let at = text.firstIndex(of: "@") else { return nil }
        let numbers = text[..<at].split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 2, let wall = Int64(numbers[0]), let counter = Int(numbers[1]), wall >= 0, counter >= 0
        else { return nil }
        let device = text[text.index(after: at)...]
        guard device.utf8.count <= 64, !device.utf8.contains(where: { $0 == 0x20 || $0 == 0x3c || $0 == 0x23 }) else {
            return nil
        }
        self.init(wall: wall, counter: counter, device: String(device))
    }
}

/// A record's clock: one stamp per group for a live record, or a tombstone.
public struct RecordClock: Hashable, Sendable {
    public var groups: [String: GroupStamp]
    /// Set when the record is deleted; deletion is final (see FieldMerge).
    public var tombstone: GroupStamp?
    /// Per-value stamps of set-like groups (FieldSets); a set group without them holds one whole-list write.
    public var sets: [String: ElementSet] = [:]

    public init(groups: [String: GroupStamp] = [:], tombstone: GroupStamp? = nil, sets: [String: ElementSet] = [:]) {
        self.groups = groups
        self.tombstone = tombstone
        self.sets = sets
    }

    /// Every group of `kind` stamped alike (a record made here, or by a device before field stamps existed).
    public static func uniform(_ stamp: GroupStamp, kind: RecordKind) -> RecordClock {
        RecordClock(groups: Dictionary(uniqueKeysWithValues: FieldGroups.names(for: kind).map { ($0, stamp) }))
    }

    public var isDeleted: Bool { tombstone != nil }

    /// The stamp of `name`, absent when nothing was ever written to it.
    public func group(_ name: String) -> GroupStamp { groups[name] ?? .absent }

    /// The newest stamp anywhere in the record (the store indexes it; the local clock never runs behind it).
    public var latest: ClockStamp {
        let all =
            groups.values.map(\.stamp) + [tombstone?.stamp].compactMap { $0 }
            + sets.values.flatMap(\.stamps).map(\.stamp)
        return all.max() ?? .zero
    }

    /// The newest stamp `device` wrote in the record (zero when none): what tells whether it changed the record
    /// again, whatever other devices wrote since.
    public func latest(by device: String) -> ClockStamp {
        let all =
            groups.values.map(\.stamp) + [tombstone?.stamp].compactMap { $0 }
            + sets.values.flatMap(\.stamps).map(\.stamp)
        return all.filter { $0.device == device }.max() ?? .zero
    }

    // MARK: text form

    /// `name=wall.counter@device[<base][#via][!]` items separated by spaces; `*` names the default for groups
    /// not listed, `~` the tombstone. The empty text means: every group stamped `latest`, nothing else known.
    public func text(kind: RecordKind, keepVia: Bool = true) -> String {
        func item(_ name: String, _ stamp: GroupStamp) -> String { "\(name)=\(stamp.text(keepVia: keepVia))" }
        if let tombstone { return item("~", tombstone) }
        let names = FieldGroups.names(for: kind)
        let stamps = names.map { keepVia ? group($0) : group($0).withoutVia }
        var counts: [GroupStamp: Int] = [:]
        for stamp in stamps { counts[stamp, default: 0] += 1 }
        // The most frequent stamp is the default; ties go to the first in text order, so the text is canonical.
        guard
            let common = counts.sorted(by: {
                $0.value != $1.value ? $0.value > $1.value : item("*", $0.key) < item("*", $1.key)
            })
            .first?.key
        else { return "" }
        let setItems = sets.keys.sorted().flatMap { sets[$0]?.items($0, keepVia: keepVia) ?? [] }
        if keepVia, counts.count == 1, common == GroupStamp(stamp: common.stamp), setItems.isEmpty { return "" }
        var items = [item("*", common)]
        for (name, stamp) in zip(names, stamps) where stamp != common { items.append(item(name, stamp)) }
        return (items + setItems).joined(separator: " ")
    }

    /// The text form that never relies on the record's latest stamp (for a clock kept apart from its row).
    public func explicitText(kind: RecordKind) -> String {
        let text = text(kind: kind)
        return text.isEmpty ? "*=\(latest)" : text
    }

    /// Parses the text form; `latest` fills in the empty text. Nil for anything malformed.
    public init?(text: String, kind: RecordKind, latest: ClockStamp, deleted: Bool) {
        guard !text.isEmpty else {
            if deleted {
                self.init(tombstone: GroupStamp(stamp: latest))
            } else {
                self = .uniform(GroupStamp(stamp: latest), kind: kind)
            }
            return
        }
        guard text.utf8.count <= 262_144 else { return nil }
        var fallback: GroupStamp?
        var listed: [String: GroupStamp] = [:]
        var tombstone: GroupStamp?
        var sets: [String: ElementSet] = [:]
        let names = Set(FieldGroups.names(for: kind))
        items: for item in text.split(separator: " ") {
            guard let equals = item.firstIndex(of: "=") else { return nil }
            let name = String(item[..<equals])
            guard let stamp = GroupStamp(text: item[item.index(after: equals)...]) else { return nil }
            for setName in FieldGroups.setNames(for: kind) {
                var set = sets[setName] ?? ElementSet()
                switch set.read(item[..<equals], stamp, name: setName) {
                case true?:
                    sets[setName] = set
                    continue items
                case false?: return nil
                case nil: continue
                }
            }
            switch name {
            case "*": fallback = stamp
            case "~": tombstone = stamp
            default:
                // A group this version does not know (a newer sshelf split one) is dropped; its fields merge as
                // `extra`.
                if names.contains(name) { listed[name] = stamp }
            }
        }
        if let tombstone {
            self.init(tombstone: tombstone)
            return
        }
        var groups: [String: GroupStamp] = [:]
        for name in FieldGroups.names(for: kind) {
            if let stamp = listed[name] ?? fallback { groups[name] = stamp }
        }
        self.init(groups: groups, sets: sets)
    }
}

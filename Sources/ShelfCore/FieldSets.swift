// FieldSets: set-like fields (a host's tags and aliases) merge as sets (docs/SYNC.md, "Set merges"). Each value
// carries its own stamp — the last add or remove of that value — so an add on one device and an add or remove of
// another value elsewhere both survive; only an add and a remove of one value made without knowing of each other
// clash, and the later of the two wins (reported as a conflict). A whole-list write (a record from before per-value
// stamps, or a record made with its list) is a *floor*: every value not listed is removed as of its stamp. Per
// value, the later stamp wins, so merging stays commutative, associative and idempotent. The stamps travel in the
// record's clock text (sealed like the rest of the entry); a clock without them merges as a whole-list write.
import FoundationEssentials

public struct ElementSet: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var stamp: GroupStamp
        public var present: Bool

        public init(stamp: GroupStamp, present: Bool) {
            self.stamp = stamp
            self.present = present
        }
    }

    /// The last add or remove of each value.
    public var entries: [String: Entry]
    /// A whole-list write: every value without a later entry is removed as of it.
    public var floor: GroupStamp?

    public init(entries: [String: Entry] = [:], floor: GroupStamp? = nil) {
        self.entries = entries
        self.floor = floor
    }

    public var isEmpty: Bool { entries.isEmpty && floor == nil }

    /// A whole-list write at `stamp` (nothing, when the group was never written).
    public static func whole(_ stamp: GroupStamp, values: [String]) -> ElementSet {
        guard stamp.stamp != .zero else { return ElementSet() }
        return ElementSet(
            entries: Dictionary(values.map { ($0, Entry(stamp: stamp, present: true)) }) { a, _ in a }, floor: stamp)
    }

    /// What this set says of `value`: its entry, or its removal by the floor, whichever is later (nil: nothing).
    public func state(of value: String) -> Entry? {
        let entry = entries[value]
        guard let floor else { return entry }
        guard let entry, !floor.outranks(entry.stamp) else { return Entry(stamp: floor, present: false) }
        return entry
    }

    /// The values present, oldest add first (one edit's values in text order): every device orders them alike.
    public var values: [String] {
        var present: [(stamp: ClockStamp, value: String)] = []
        for value in entries.keys {
            if let entry = state(of: value), entry.present { present.append((entry.stamp.stamp, value)) }
        }
        present.sort { $0.stamp != $1.stamp ? $0.stamp < $1.stamp : $0.value < $1.value }
        return present.map(\.value)
    }

    /// The group's stamp: its newest entry or floor (a set's stamp is the same on every device that holds the set).
    public var stamp: GroupStamp {
        let all = entries.values.map(\.stamp) + [floor].compactMap { $0 }
        guard let newest = all.max(by: { $1.outranks($0) }) else { return .absent }
        return GroupStamp(stamp: newest.stamp, via: newest.via, tainted: newest.tainted)
    }

    /// A clash between two sides: `value` present on one and removed on the other, neither written knowing the other.
    public struct Clash: Equatable, Sendable {
        public var value: String
        public var kept: Entry
        public var lost: Entry
    }

    /// Both sides' values, per value the later; entries the floor outdates are dropped (they say nothing any more).
    public static func merge(_ a: ElementSet, _ b: ElementSet) -> (set: ElementSet, clashes: [Clash]) {
        var out = ElementSet(floor: better(a.floor, b.floor))
        var clashes: [Clash] = []
        for value in Set(a.entries.keys).union(b.entries.keys).sorted() {
            let mine = a.state(of: value), theirs = b.state(of: value)
            let winner: Entry?
            switch (mine, theirs) {
            case (let x?, let y?):
                winner = wins(y, over: x) ? y : x
                let loser = winner == y ? x : y
                if x.present != y.present, !y.stamp.succeeds(x.stamp), !x.stamp.succeeds(y.stamp), let winner {
                    clashes.append(Clash(value: value, kept: winner, lost: loser))
                }
            case (let x?, nil): winner = x
            case (nil, let y?): winner = y
            case (nil, nil): winner = nil
            }
            if let winner, !(out.floor.map { $0.outranks(winner.stamp) } ?? false),
                winner.stamp != out.floor || winner.present
            {
                out.entries[value] = winner
            }
        }
        return (out, clashes)
    }

    /// The later entry; two copies of one write agree, and a stamp names one write, so ties only meet equals.
    static func wins(_ a: Entry, over b: Entry) -> Bool {
        if a.stamp.outranks(b.stamp) { return true }
        if b.stamp.outranks(a.stamp) { return false }
        return a.present && !b.present
    }

    static func better(_ a: GroupStamp?, _ b: GroupStamp?) -> GroupStamp? {
        guard let a else { return b }
        guard let b else { return a }
        return b.outranks(a) ? b : a
    }

    /// Whether this set is exactly one whole-list write (then it is kept as a plain group stamp, as before sets).
    public var isWhole: Bool {
        guard let floor else { return false }
        return entries.values.allSatisfy { $0.present && $0.stamp.stamp == floor.stamp && $0.stamp.base == floor.base }
    }

    /// The set after a local edit from `old` to `new` values, stamped `stamp`: each added value present, each
    /// removed one gone, each with the last stamp of another device it held as its base.
    public func editing(from old: [String], to new: [String], stamp: ClockStamp) -> ElementSet {
        var out = self
        let before = Set(old), after = Set(new)
        for value in after.symmetricDifference(before) {
            let previous = state(of: value)?.stamp
            let base = previous.flatMap {
                $0.stamp.device == stamp.device ? $0.base : ($0.stamp == .zero ? nil : $0.stamp)
            }
            out.entries[value] = Entry(stamp: GroupStamp(stamp: stamp, base: base), present: after.contains(value))
        }
        return out
    }

    /// Only the entries (and floor) `device` wrote: what a delta of that device carries.
    public func written(by device: String) -> ElementSet {
        ElementSet(
            entries: entries.filter { $0.value.stamp.stamp.device == device },
            floor: floor.flatMap { $0.stamp.device == device ? $0 : nil })
    }

    /// Every stamp in the set (for checks of who wrote what).
    public var stamps: [GroupStamp] { entries.values.map(\.stamp) + [floor].compactMap { $0 } }

    // MARK: text form, inside a record clock: `NAME+HEX=stamp` (present), `NAME-HEX=stamp` (removed), `NAME_=stamp`

    func items(_ name: String, keepVia: Bool) -> [String] {
        var out = entries.map { value, entry in
            "\(name)\(entry.present ? "+" : "-")\(ElementSet.hex(value))=\(entry.stamp.text(keepVia: keepVia))"
        }
        if let floor { out.append("\(name)_=\(floor.text(keepVia: keepVia))") }
        return out.sorted()
    }

    /// Reads one item into this set; false when `item` is not a set item of `name`.
    mutating func read(_ key: Substring, _ stamp: GroupStamp, name: String) -> Bool? {
        guard key.hasPrefix(name) else { return nil }
        let rest = key.dropFirst(name.count)
        if rest == "_" {
            floor = stamp
            return true
        }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        guard let value = ElementSet.unhex(rest.dropFirst()) else { return false }
        entries[value] = Entry(stamp: stamp, present: sign == "+")
        return true
    }

    static func hex(_ value: String) -> String { value.utf8.map { TextFormat.hex($0) }.joined() }

    static func unhex(_ text: Substring) -> String? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0, digits.count <= 512 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return String(bytes: bytes, encoding: .utf8)
    }
}

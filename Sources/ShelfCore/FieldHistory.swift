// FieldHistory: one step back, kept by this device for each record — the value each field group held before another
// device's value replaced it, the whole record before another device deleted it, and a deletion another device's
// deletion replaced — so that when a value turns out
// to be a revoked device's late write (docs/SYNC.md, "Revocation"), undoing it here restores what this device had,
// instead of leaving a hole only some other device's snapshot could fill. Local bookkeeping: it never travels.
import FoundationEssentials

public struct FieldHistory: Hashable, Sendable {
    /// A group's value as it was: its clock and its fields.
    public struct Kept: Hashable, Sendable {
        public var stamp: GroupStamp
        public var fields: [String: JSONValue]

        public init(stamp: GroupStamp, fields: [String: JSONValue]) {
            self.stamp = stamp
            self.fields = fields
        }
    }

    /// A live record as it was when another device's deletion arrived.
    public struct KeptRecord: Hashable, Sendable {
        public var clock: RecordClock
        public var body: [String: JSONValue]
        public var groups: [String: Kept]
    }

    public var groups: [String: Kept] = [:]
    public var record: KeptRecord?
    /// The deletion this device held before another device's deletion replaced it.
    public var tombstone: GroupStamp?

    public init(groups: [String: Kept] = [:], record: KeptRecord? = nil, tombstone: GroupStamp? = nil) {
        self.groups = groups
        self.record = record
        self.tombstone = tombstone
    }

    public var isEmpty: Bool { groups.isEmpty && record == nil && tombstone == nil }

    // MARK: text form (JSON; empty when there is nothing)

    public func text(kind: RecordKind) -> String {
        guard !isEmpty else { return "" }
        var object: [String: JSONValue] = [:]
        if !groups.isEmpty { object["g"] = .object(FieldHistory.encode(groups)) }
        if let tombstone { object["t"] = .string(tombstone.text()) }
        if let record {
            object["r"] = .object([
                "c": .string(record.clock.explicitText(kind: kind)), "v": .object(record.body),
                "g": .object(FieldHistory.encode(record.groups)),
            ])
        }
        guard let data = try? ShelfJSON.encoder().encode(object) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses the text form; an unreadable history is no history (it only ever helps, never decides a merge).
    public init(text: String, kind: RecordKind) {
        guard !text.isEmpty, let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
        else { return }
        if case .object(let kept)? = object["g"] { groups = FieldHistory.decode(kept) }
        if case .string(let text)? = object["t"] { tombstone = GroupStamp(text: Substring(text)) }
        if case .object(let kept)? = object["r"], case .string(let clockText)? = kept["c"],
            case .object(let body)? = kept["v"],
            let clock = RecordClock(text: clockText, kind: kind, latest: .zero, deleted: false)
        {
            var nested: [String: Kept] = [:]
            if case .object(let groups)? = kept["g"] { nested = FieldHistory.decode(groups) }
            record = KeptRecord(clock: clock, body: body, groups: nested)
        }
    }

    static func encode(_ groups: [String: Kept]) -> [String: JSONValue] {
        groups.mapValues { .object(["s": .string($0.stamp.text()), "v": .object($0.fields)]) }
    }

    static func decode(_ object: [String: JSONValue]) -> [String: Kept] {
        var out: [String: Kept] = [:]
        for (name, value) in object {
            guard case .object(let kept) = value, case .string(let stampText)? = kept["s"],
                let stamp = GroupStamp(text: Substring(stampText)),
                case .object(let fields)? = kept["v"]
            else { continue }
            out[name] = Kept(stamp: stamp, fields: fields)
        }
        return out
    }
}

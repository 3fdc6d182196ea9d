// ConflictEvent: a merge conflict found, or settled, as one device tells every other. The conflict is named by its
// identity — record, field, why, and its two values with their writers (either way round) — so every device that
// holds it, however it came to hold it, names the same conflict. A settlement says who chose which side, when (the
// stamp of the settling edit), and which earlier settlements of the same conflict its author knew. The event travels
// as the JSON text its author wrote and signed (ShelfSync/ConflictEvents), carried verbatim by every relay.
import FoundationEssentials
import ShelfCore

public struct ConflictEvent: Sendable, Equatable {
    public enum Action: String, Sendable { case found, settled }

    /// One side of a conflict: its value (as listed) and who wrote it when (ms; 0 when not known).
    public struct Side: Sendable, Hashable {
        public var value: String
        public var by: String
        public var at: Int64

        public init(value: String, by: String, at: Int64) {
            self.value = value
            self.by = by
            self.at = at
        }

        var key: String { "\(value)\u{0}\(by)\u{0}\(at)" }
        var json: JSONValue { .array([.string(value), .string(by), .number(Double(at))]) }

        init?(json: JSONValue?) {
            guard case .array(let items)? = json, items.count == 3, case .string(let value) = items[0],
                case .string(let by) = items[1], case .number(let at) = items[2], at >= 0, at < 1e15
            else { return nil }
            self.init(value: value, by: by, at: Int64(at))
        }
    }

    public var action: Action
    public var kind: String
    public var record: String
    public var name: String
    public var field: String
    public var why: String
    public var kept: Side
    public var lost: Side
    /// The device that found or settled it, and its stamp (for a settlement: the settling edit's).
    public var author: String
    public var wall: Int64
    public var counter: Int
    /// The author's entry that first carried it (0 until published).
    public var seq: Int64
    /// The side a settlement took (nil for `found`).
    public var took: Side?
    /// The settlements of this conflict the author held when it settled (their `id`s).
    public var knew: [String]

    public init(
        action: Action, kind: String, record: String, name: String, field: String, why: String, kept: Side,
        lost: Side, author: String, wall: Int64, counter: Int, seq: Int64 = 0, took: Side? = nil, knew: [String] = []
    ) {
        self.action = action
        self.kind = kind
        self.record = record
        self.name = name
        self.field = field
        self.why = why
        self.kept = kept
        self.lost = lost
        self.author = author
        self.wall = wall
        self.counter = counter
        self.seq = seq
        self.took = took
        self.knew = knew
    }

    /// The conflict this event is about, the same whichever way round its sides are.
    public var identity: String {
        ConflictEvent.identity(kind: kind, record: record, field: field, why: why, sides: [kept, lost])
    }

    public static func identity(kind: String, record: String, field: String, why: String, sides: [Side]) -> String {
        let text = ([kind, record, field, why] + sides.map(\.key).sorted()).joined(separator: "\u{1}")
        return TextFormat.hex(bytes: Digest.sha256(Array(text.utf8)))
    }

    /// A settlement's name in another's `knew`.
    public var id: String { "\(author)@\(wall).\(counter)" }

    public var stamp: ClockStamp { ClockStamp(wall: wall, counter: counter, device: author) }

    /// The text that travels (and is signed).
    public var text: String {
        var object: [String: JSONValue] = [
            "a": .string(action.rawValue), "k": .string(kind), "r": .string(record), "n": .string(name),
            "f": .string(field), "w": .string(why), "kept": kept.json, "lost": lost.json, "by": .string(author),
            "t": .number(Double(wall)), "c": .number(Double(counter)), "seq": .number(Double(seq)),
        ]
        if let took { object["took"] = took.json }
        if !knew.isEmpty { object["knew"] = .array(knew.map { .string($0) }) }
        return String(decoding: JSONValue.object(object).jsonBytes, as: UTF8.self)
    }

    /// An event from its text; nil when it is not one (a damaged or foreign text).
    public init?(text: String) {
        guard text.utf8.count <= 1 << 20, let value = try? JSONValue.parse(Array(text.utf8)),
            case .object(let o) = value, case .string(let a)? = o["a"], let action = Action(rawValue: a),
            case .string(let kind)? = o["k"], case .string(let record)? = o["r"], case .string(let field)? = o["f"],
            case .string(let why)? = o["w"], case .string(let author)? = o["by"], let kept = Side(json: o["kept"]),
            let lost = Side(json: o["lost"]), case .number(let wall)? = o["t"], case .number(let counter)? = o["c"],
            case .number(let seq)? = o["seq"], wall >= 0, wall < 1e15, counter >= 0, counter < 1e9, seq >= 0,
            seq < 1e15
        else { return nil }
        var name = ""
        if case .string(let text)? = o["n"] { name = text }
        var knew: [String] = []
        if case .array(let items)? = o["knew"] {
            for case .string(let id) in items { knew.append(id) }
        }
        let took = Side(json: o["took"])
        guard (action == .settled) == (took != nil) else { return nil }
        self.init(
            action: action, kind: kind, record: record, name: name, field: field, why: why, kept: kept, lost: lost,
            author: author, wall: Int64(wall), counter: Int(counter), seq: Int64(seq), took: took, knew: knew)
    }
}

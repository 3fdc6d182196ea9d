// HostGroup: a folder of hosts, nested through a flat optional parentID (so sync never needs a tree merge).
import FoundationEssentials

public struct HostGroup: Hashable, Sendable, Codable, Identifiable {
    public var id: UUID
    public var name: String
    public var parentID: UUID?
    public var sortOrder: Int
    public var notes: String
    /// `require`: every host in the group (and its subgroups) goes through OpenSSH with post-quantum key exchange.
    public var pq: PostQuantumSetting
    public var updatedAt: Date
    /// Fields written by a newer version, kept verbatim.
    public var extra: [String: JSONValue]

    public init(
        id: UUID = UUID(), name: String = "", parentID: UUID? = nil, sortOrder: Int = 0, notes: String = "",
        updatedAt: Date = Date(), pq: PostQuantumSetting = .off, extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.name = name
        self.parentID = parentID
        self.sortOrder = sortOrder
        self.notes = notes
        self.pq = pq
        self.updatedAt = updatedAt
        self.extra = extra
    }

    static let knownFields: Set<String> = ["id", "name", "parentID", "sortOrder", "notes", "updatedAt", "pq"]

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        let fallback = HostGroup()
        id = try c.field("id", fallback.id)
        name = try c.field("name", "")
        parentID = try c.field("parentID", nil as UUID?)
        sortOrder = try c.field("sortOrder", 0)
        notes = try c.field("notes", "")
        pq = try c.field("pq", PostQuantumSetting.off)
        updatedAt = try c.field("updatedAt", Date(timeIntervalSince1970: 0))
        extra = try c.unknownFields(known: Self.knownFields)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.put("id", id)
        try c.put("name", name)
        try c.put("parentID", parentID)
        try c.put("sortOrder", sortOrder)
        try c.put("notes", notes)
        if pq != .off { try c.put("pq", pq) }
        try c.put("updatedAt", updatedAt)
        try c.putUnknown(extra)
    }
}

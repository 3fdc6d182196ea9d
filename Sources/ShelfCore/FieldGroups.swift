// FieldGroups: the units a record merges by. Each record kind is cut into groups of fields that are stamped and
// merged together: mostly one field each, but fields that only make sense together travel as one (a host's
// address, port and pinned key; an identity's key material; a forward's spec), so a merge can never pair an
// address with another server's pin. Unknown fields from a newer version merge as one group, `extra`.
import FoundationEssentials

public struct FieldGroup: Sendable, Equatable {
    public var name: String
    public var fields: [String]
    /// Bookkeeping that changes with every edit (times): last writer wins without recording a conflict.
    public var quiet: Bool

    init(_ name: String, _ fields: [String], quiet: Bool = false) {
        self.name = name
        self.fields = fields
        self.quiet = quiet
    }
}

public enum FieldGroups {
    /// Holds every field no group names (fields a newer sshelf added).
    public static let extra = "extra"

    public static func groups(for kind: RecordKind) -> [FieldGroup] {
        switch kind {
        case .host: host
        case .group: group
        case .identity: identity
        case .forward: forward
        case .snippet: snippet
        case .caPin: caPin
        case .other: []
        }
    }

    /// A host's groups come from its field table (HostFields).
    static var host: [FieldGroup] { HostFields.table.fieldGroups }
    static let group = [
        FieldGroup("name", ["name"]),
        FieldGroup("parent", ["parentID"]),
        FieldGroup("order", ["sortOrder"]),
        FieldGroup("notes", ["notes"]),
        FieldGroup("pq", ["pq"]),
        FieldGroup("record", ["record"]),
        FieldGroup("updated", ["updatedAt"], quiet: true),
    ]
    static let identity = [
        FieldGroup("name", ["name"]),
        FieldGroup("key", ["keyType", "publicKey", "privateKeyRef", "passphraseRef", "keyFile"]),
        FieldGroup("confirm", ["confirmEachUse"]),
        FieldGroup("lifetime", ["agentLifetime"]),
        FieldGroup("only", ["onlyTo"]),
        FieldGroup("updated", ["updatedAt"], quiet: true),
    ]
    static let forward = [
        FieldGroup("host", ["hostID"]),
        FieldGroup("name", ["name"]),
        FieldGroup("spec", ["kind", "bindAddress", "bindPort", "targetHost", "targetPort"]),
        FieldGroup("autostart", ["autostart"]),
        FieldGroup("enabled", ["enabled"]),
        FieldGroup("sessions", ["sessions"]),
        FieldGroup("updated", ["updatedAt"], quiet: true),
    ]

    /// A snippet's groups come from its field table (SnippetFields).
    static var snippet: [FieldGroup] { SnippetFields.table.fieldGroups }

    /// A CA pin's key and the names it vouches for are one unit: a merge never pairs a CA with another's patterns.
    static let caPin = [
        FieldGroup("trust", ["keyType", "key", "hosts"]),
        FieldGroup("updated", ["updatedAt"], quiet: true),
    ]

    /// Every group name of a kind, `extra` last.
    public static func names(for kind: RecordKind) -> [String] { groups(for: kind).map(\.name) + [extra] }

    /// The groups of a kind that hold one list and merge as sets (FieldSets): the group and its field share a name.
    public static func setNames(for kind: RecordKind) -> [String] {
        switch kind {
        case .host: HostFields.table.setGroups
        case .snippet: SnippetFields.table.setGroups
        default: []
        }
    }

    /// A set group's values in `body` (nothing when the field is missing or not a list of strings).
    public static func values(of name: String, in body: [String: JSONValue]?) -> [String] {
        guard case .array(let items)? = body?[name] else { return [] }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    public static func isQuiet(_ name: String, kind: RecordKind) -> Bool {
        groups(for: kind).first { $0.name == name }?.quiet ?? false
    }

    /// The fields of `body` that belong to group `name` (for `extra`: every field no group names, except the id).
    public static func fields(of name: String, kind: RecordKind, in body: [String: JSONValue]) -> [String: JSONValue] {
        if name == extra {
            let named = Set(groups(for: kind).flatMap(\.fields) + ["id"])
            return body.filter { !named.contains($0.key) }
        }
        guard let group = groups(for: kind).first(where: { $0.name == name }) else { return [:] }
        var out: [String: JSONValue] = [:]
        for field in group.fields { if let value = body[field] { out[field] = value } }
        return out
    }

    /// `body` with group `name` replaced by the same group of `source`.
    public static func replacing(
        _ name: String, kind: RecordKind, in body: [String: JSONValue],
        from source: [String: JSONValue]
    ) -> [String: JSONValue] {
        var out = body
        for key in fields(of: name, kind: kind, in: body).keys { out[key] = nil }
        for (key, value) in fields(of: name, kind: kind, in: source) { out[key] = value }
        return out
    }

    /// The groups whose values differ between two bodies of one record.
    /// A set group changed only when its values did (a new order alone is not an edit that travels).
    public static func changed(kind: RecordKind, from old: [String: JSONValue], to new: [String: JSONValue]) -> [String]
    {
        let sets = setNames(for: kind)
        return names(for: kind).filter { name in
            if sets.contains(name), case .array? = old[name], case .array? = new[name] {
                return Set(values(of: name, in: old)) != Set(values(of: name, in: new))
            }
            return fields(of: name, kind: kind, in: old) != fields(of: name, kind: kind, in: new)
        }
    }

    /// One group's value as compact JSON, for conflict records and `sync conflicts`.
    public static func text(of name: String, kind: RecordKind, in body: [String: JSONValue]?) -> String {
        guard let body else { return "(deleted)" }
        let values = fields(of: name, kind: kind, in: body)
        if values.count == 1, let only = values.first?.value,
            let data = try? ShelfJSON.encoder().encode(only)
        {
            return String(decoding: data, as: UTF8.self)
        }
        guard let data = try? ShelfJSON.encoder().encode(values) else { return "?" }
        return String(decoding: data, as: UTF8.self)
    }
}

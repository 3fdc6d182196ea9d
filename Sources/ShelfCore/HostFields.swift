// HostFields: every field of a Host, declared once (RecordField): the store's columns, the sync field groups, the
// JSON and the validation all come from this list. Adding a field: docs/ARCHITECTURE.md, "Adding a host field".
// The order is the JSON's writing order; a field group's place is where its first field stands.
import FoundationEssentials

public enum HostFields {
    public static let table = RecordTable<Host>(
        table: "hosts", fields: fields, extra: \.extra,
        blank: { Host(id: noID, createdAt: epoch, updatedAt: epoch) })

    /// A host's row values, in the table's column order, in place of what `out` held: the table's code specialised
    /// for Host here (called from another module, the generic code would look up type metadata at each step of each
    /// of a bulk write's 100,000 rows).
    public static func bindings(_ host: Host, into out: inout [StoredValue]) { table.bindings(host, into: &out) }

    static let epoch = Date(timeIntervalSince1970: 0)
    static let noID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    typealias Field = RecordField<Host>
    typealias Storage = FieldStorage<Host>
    typealias JSON = FieldJSON<Host>

    static let fields: [Field] = [
        Field(
            "id", group: nil,
            storage: .column(\.id, "id", "TEXT PRIMARY KEY NOT NULL", store: { .text($0.storeText) }, load: requiredID),
            json: .id(\.id, "id")),
        Field(
            "name", group: "name", storage: text(\.name, "name"), json: .value(\.name, "name", ""),
            problems: Field.check("name") { Validation.nameProblem($0.name) }),
        Field(
            "aliases", group: "aliases", merge: .set, storage: joined(\.aliases, "aliases"),
            json: .value(\.aliases, "aliases", []),
            problems: Field.checks("aliases") { host, add in HostAliases.problems(host).forEach(add) }),
        Field(
            "hostname", group: "endpoint", storage: text(\.hostname, "hostname"),
            json: .value(\.hostname, "hostname", ""),
            problems: Field.check("hostname") { Validation.hostnameProblem($0.hostname).map { "hostname \($0)" } }),
        Field(
            "port", group: "endpoint",
            storage: .column(
                \.port, "port", "INTEGER NOT NULL DEFAULT 22", store: { .int($0) }, load: { $0.int($1) }),
            json: .value(\.port, "port", Host.defaultPort),
            problems: Field.check("port") { Validation.portProblem($0.port) }),
        Field(
            "user", group: "user", storage: text(\.user, "user"), json: .value(\.user, "user", ""),
            problems: Field.check("user") { Validation.userProblem($0.user) }),
        Field(
            "groupID", group: "group", storage: optionalID(\.groupID, "group_id"),
            json: .optionalID(\.groupID, "groupID")),
        Field(
            "tags", group: "tags", merge: .set, storage: joined(\.tags, "tags"), json: .value(\.tags, "tags", []),
            problems: Field.checks("tags") { host, add in
                if host.tags.count > Validation.maxTags { add("more than \(Validation.maxTags) tags") }
                for tag in host.tags { add(Validation.tagProblem(tag)) }
            }),
        Field(
            "authMethod", group: "auth",
            storage: .column(
                \.authMethod, "auth_method", "TEXT NOT NULL DEFAULT 'auto'", store: { .text($0.rawValue) },
                load: { AuthMethod(rawValue: $0.text($1)) }),
            json: .value(\.authMethod, "authMethod", .auto),
            problems: Field.check("auth") { host in
                host.authMethod.isKnown ? nil : "unknown auth method '\(host.authMethod.rawValue)'"
            }),
        Field(
            "identityID", group: "auth", storage: optionalID(\.identityID, "identity_id"),
            json: .optionalID(\.identityID, "identityID")),
        Field(
            "passwordRef", group: "auth",
            storage: .column(
                \.passwordRef, "password_ref", "TEXT", store: { .optional($0?.rawValue) },
                // A value in the reference column that is not a reference is dropped, never handed on as a secret.
                load: { $0.optionalText($1).flatMap(ReferenceKey.init) }),
            json: .value(\.passwordRef, "passwordRef", nil)),
        Field(
            "jumpHostIDs", group: "jump",
            storage: .column(
                \.jumpHostIDs, "jump_host_ids", "TEXT NOT NULL DEFAULT ''",
                store: { .text($0.map(\.storeText).joined(separator: " ")) },
                load: { row, name in
                    row.text(name).split(separator: " ").compactMap { UUID(uuidString: String($0)) }
                }),
            json: .ids(\.jumpHostIDs, "jumpHostIDs"),
            problems: Field.checks("jump") { host, add in
                if host.jumpHostIDs.contains(host.id) { add("host '\(host.name)' jumps through itself") }
                if host.jumpHostIDs.count > Validation.maxJumpChain {
                    add("jump chain is longer than \(Validation.maxJumpChain) hosts")
                }
            }),
        Field(
            "unresolvedJump", group: "jump", storage: text(\.unresolvedJump, "unresolved_jump"),
            json: .value(\.unresolvedJump, "unresolvedJump", ""),
            problems: Field.checks("jump") { host, add in
                if host.unresolvedJump.utf8.count > Validation.maxFieldLength { add("ProxyJump text is too long") }
                add(Validation.jumpTextProblem(host.unresolvedJump))
            }),
        Field(
            "pinnedHostKey", group: "endpoint", storage: pinnedKey,
            json: .value(\.pinnedHostKey, "pinnedHostKey", nil)),
        Field(
            "options", group: "options",
            storage: .column(
                \.options, "options", "TEXT NOT NULL DEFAULT ''", store: { .text(OptionLines.encode($0)) },
                load: { OptionLines.decode($0.text($1)) }),
            json: .value(\.options, "options", []),
            problems: Field.checks("options") { host, add in SSHOption.problems(host.options).forEach(add) }),
        Field(
            "notes", group: "notes", storage: text(\.notes, "notes"), json: .value(\.notes, "notes", ""),
            problems: Field.checks("notes") { host, add in
                if host.notes.utf8.count > Validation.maxNotesLength {
                    add("notes are longer than \(Validation.maxNotesLength) bytes")
                }
                add(Validation.controlCharacterProblem(host.notes, allowNewlines: true).map { "notes \($0)" })
            }),
        Field(
            "pq", group: "pq",
            storage: .column(
                \.pq, "pq", "TEXT NOT NULL DEFAULT ''", store: { .text($0.storeText) },
                load: { PostQuantumSetting(storeText: $0.text($1)) }),
            json: .unlessDefault(\.pq, "pq", .off)),
        Field(
            "record", group: "record",
            storage: .column(
                \.record, "record", "TEXT NOT NULL DEFAULT ''", store: { .text($0?.rawValue ?? "") },
                load: { RecordSetting(rawValue: $0.text($1)) }),
            json: JSON(
                // Written only when set, as its word (a newer version's word reads back as no setting).
                encode: { host, c in if let record = host.record { try c.put("record", record.rawValue) } },
                decode: { host, c in host.record = RecordSetting.decoded(try c.field("record", nil as String?)) })),
        Field(
            "createdAt", group: "created", merge: .quiet, storage: date(\.createdAt, "created_at"),
            json: .value(\.createdAt, "createdAt", epoch)),
        Field(
            "updatedAt", group: "updated", merge: .quiet, storage: date(\.updatedAt, "updated_at"),
            json: .value(\.updatedAt, "updatedAt", epoch)),
        Field(
            "lastConnectedAt", group: "connected", merge: .quiet,
            storage: .column(
                \.lastConnectedAt, "last_connected_at", "REAL", store: { .optional($0) },
                load: { $0.optionalDate($1) }),
            json: .value(\.lastConnectedAt, "lastConnectedAt", nil)),
    ]

    static func text(_ path: WritableKeyPath<Host, String> & Sendable, _ column: String) -> Storage {
        .text(path, column)
    }
    static func joined(_ path: WritableKeyPath<Host, [String]> & Sendable, _ column: String) -> Storage {
        .joined(path, column)
    }
    static func optionalID(_ path: WritableKeyPath<Host, UUID?> & Sendable, _ column: String) -> Storage {
        .optionalID(path, column)
    }
    static func date(_ path: WritableKeyPath<Host, Date> & Sendable, _ column: String) -> Storage {
        .date(path, column)
    }

    /// A pinned key in two columns, its type and its blob: both or none.
    static let pinnedKey = Storage(
        columns: [StoreColumn("pinned_key_type", "TEXT"), StoreColumn("pinned_key", "TEXT")],
        store: { host, out in
            out.append(.optional(host.pinnedHostKey?.type))
            out.append(.optional(host.pinnedHostKey?.key))
        },
        load: { host, row in
            if let type = row.optionalText("pinned_key_type"), let key = row.optionalText("pinned_key") {
                host.pinnedHostKey = PinnedHostKey(type: type, key: key)
            }
        })

    /// `read` checks the id is there before any field is loaded.
    @Sendable static func requiredID(_ row: any StoredRow, _ column: String) -> UUID { row.uuid(column) ?? noID }
}

/// A list of words in one column, joined by U+001F (which validation forbids inside a tag, an alias or a
/// destination), so no escaping is needed.
public enum StoredList {
    public static func join(_ items: [String]) -> String { items.joined(separator: "\u{1F}") }
    public static func split(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: "\u{1F}", omittingEmptySubsequences: true).map(String.init)
    }
}

/// A host's option lines in their column: a JSON array of strings, or empty when there are none (most hosts; no JSON
/// work then). JSON rather than a separator: a line that came by sync is stored exactly as it came, whatever it holds,
/// and validation (not the storage format) decides what is written to a config.
public enum OptionLines {
    public static func encode(_ lines: [String]) -> String {
        guard !lines.isEmpty, let data = try? ShelfJSON.encoder().encode(lines) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}

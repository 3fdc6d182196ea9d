// RecordTable: a record's fields in one list (RecordField) and everything derived from it — the store's column list
// and SQL, the bindings of a row and the record read back by column name, the sync field groups, the JSON keys a
// version knows, the JSON coding and the validation. Unknown fields ride in `extra` (JSON and its own column).
import FoundationEssentials

public struct RecordTable<Record>: Sendable {
    /// The SQL table the records live in.
    public let table: String
    public let fields: [RecordField<Record>]
    /// Fields a newer version wrote, kept verbatim: in the JSON beside the known keys, in the store in `extra`.
    let extra: WritableKeyPath<Record, [String: JSONValue]> & Sendable
    let extraProperty: StoredProperty<Record, [String: JSONValue]>
    /// A record every field of which is then set from a row or a body (no id or clock read for it).
    let blank: @Sendable () -> Record

    public init(
        table: String, fields: [RecordField<Record>], extra: WritableKeyPath<Record, [String: JSONValue]> & Sendable,
        blank: @escaping @Sendable () -> Record
    ) {
        self.table = table
        self.fields = fields
        self.extra = extra
        extraProperty = StoredProperty(extra)
        self.blank = blank
        knownKeys = Set(fields.map(\.key))
        columns = fields.flatMap(\.storage.columns) + [StoreColumn(Self.extraColumn, "TEXT NOT NULL DEFAULT ''")]
        columnList = columns.map(\.name).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ",")
        insertSQL = "INSERT INTO \(table)(\(columnList)) VALUES (\(placeholders))"
        let updates = columns.dropFirst().map { "\($0.name)=excluded.\($0.name)" }.joined(separator: ", ")
        upsertSQL = insertSQL + " ON CONFLICT(\(columns[0].name)) DO UPDATE SET " + updates
        var groups: [FieldGroup] = []
        for field in fields {
            guard let name = field.group else { continue }
            if let at = groups.firstIndex(where: { $0.name == name }) {
                groups[at].fields.append(field.key)
            } else {
                groups.append(FieldGroup(name, [field.key], quiet: field.merge == .quiet))
            }
        }
        fieldGroups = groups
        setGroups = fields.filter { $0.merge == .set }.compactMap(\.group)
        checks = fields.compactMap(\.check)
    }

    public static var extraColumn: String { "extra" }

    /// Every JSON key this version models (anything else is kept in `extra`).
    public let knownKeys: Set<String>
    /// The table's columns, the id first and `extra` last, as the store's schema has them.
    public let columns: [StoreColumn]
    /// `id, name, …, extra`: for SELECT and INSERT.
    public let columnList: String
    /// A new row only: an existing id is a constraint error, not an update.
    public let insertSQL: String
    /// A new row, or every column of an existing one replaced.
    public let upsertSQL: String
    /// The sync field groups, in the order their first field comes.
    public let fieldGroups: [FieldGroup]
    /// The groups that hold one list and merge as sets (FieldSets): the group and its field share a name.
    public let setGroups: [String]
    /// The fields' rules, in the table's order (fields without any left out).
    let checks: [RecordField<Record>.Check]

    /// The values to bind for `record`, in `columns` order.
    public func bindings(_ record: Record) -> [StoredValue] {
        var out: [StoredValue] = []
        out.reserveCapacity(columns.count)
        bindings(record, into: &out)
        return out
    }

    /// The values to bind for `record`, in `columns` order, in place of what `out` held (a bulk write makes its rows
    /// in one array, not one for each of 100,000 records).
    public func bindings(_ record: Record, into out: inout [StoredValue]) {
        out.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: record) { bytes in
            guard let base = bytes.baseAddress else { return }
            for field in fields {
                if let fromBytes = field.storage.storeFromBytes {
                    fromBytes(base, &out)
                } else {
                    field.storage.store(record, &out)
                }
            }
        }
        out.append(.text(ExtraFields.encode(extraProperty.value(in: record))))
    }

    /// The record a row holds (columns found by name); nil when its id is missing or not an id.
    public func read(_ row: any StoredRow) -> Record? {
        guard row.uuid(columns[0].name) != nil else { return nil }
        var record = blank()
        for field in fields { field.storage.load(&record, row) }
        record[keyPath: extra] = ExtraFields.decode(row.text(Self.extraColumn))
        return record
    }

    /// Every field from a JSON body (each its default when absent or null), the keys it does not know in `extra`.
    public func decode(from decoder: Decoder) throws -> Record {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        var record = blank()
        for field in fields { try field.json.decode(&record, c) }
        record[keyPath: extra] = try c.unknownFields(known: knownKeys)
        return record
    }

    public func encode(_ record: Record, to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        for field in fields { try field.json.encode(record, &c) }
        try c.putUnknown(record[keyPath: extra].filter { !knownKeys.contains($0.key) })
    }

    /// Every field's problems, in the table's order.
    public func problems(_ record: Record) -> [ValidationError] {
        var found: [ValidationError] = []
        for check in checks { check(record, &found) }
        return found
    }
}

/// `extra` in its column: JSON, or empty when there are none (the common case costs no JSON work at 100,000 rows).
public enum ExtraFields {
    public static func encode(_ extra: [String: JSONValue]) -> String {
        guard !extra.isEmpty, let data = try? ShelfJSON.encoder().encode(extra) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [String: JSONValue] {
        guard !text.isEmpty else { return [:] }
        return (try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))) ?? [:]
    }
}

extension UUID {
    /// Lower-case text form used in the store and in reference keys (written directly: Foundation's
    /// `uuidString` formats through printf, which an import of 100,000 hosts pays four times per host).
    public var storeText: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var at = 0
                for (i, byte) in bytes.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        out[at] = 0x2D
                        at += 1
                    }
                    out[at] = digits.utf8Start[Int(byte >> 4)]
                    out[at + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    at += 2
                }
                return at
            }
        }
    }
}

// RecordField: one field of a synced record, described once — its JSON key and coding, its store columns and their
// coding, its sync field group and merge rule, and its validation. A RecordTable lists a record's fields; the store's
// SQL, the row reading, the sync field groups and the JSON all come from that list (docs/ARCHITECTURE.md, "Adding a
// host field").
import FoundationEssentials

/// A value as the store keeps it in one column (ShelfStore binds it; ShelfCore does no IO).
public enum StoredValue: Equatable, Sendable {
    case null
    case int(Int)
    case double(Double)
    case text(String)

    public static func optional(_ text: String?) -> StoredValue { text.map(StoredValue.text) ?? .null }
    public static func optional(_ id: UUID?) -> StoredValue { id.map { .text($0.storeText) } ?? .null }
    public static func optional(_ date: Date?) -> StoredValue {
        date.map { .double($0.timeIntervalSince1970) } ?? .null
    }
}

/// One column of a record's table: its name and its declaration as the schema has it (`TEXT NOT NULL DEFAULT ''`).
public struct StoreColumn: Equatable, Sendable {
    public let name: String
    public let declaration: String

    public init(_ name: String, _ declaration: String) {
        self.name = name
        self.declaration = declaration
    }
}

/// A stored row read by column name (the store resolves each name to its place in the statement once).
public protocol StoredRow {
    func isNull(_ column: String) -> Bool
    func text(_ column: String) -> String
    func int(_ column: String) -> Int
    func double(_ column: String) -> Double
}

extension StoredRow {
    public func optionalText(_ column: String) -> String? { isNull(column) ? nil : text(column) }
    public func date(_ column: String) -> Date { Date(timeIntervalSince1970: double(column)) }
    public func optionalDate(_ column: String) -> Date? { isNull(column) ? nil : date(column) }
    public func uuid(_ column: String) -> UUID? {
        guard !isNull(column) else { return nil }
        var text = text(column)
        return text.withUTF8 { HostTableBuilder.parseUUID($0) }
    }
}

/// How a field merges when two devices changed it (FieldMerge): the last writer wins and a conflict is recorded;
/// value by value as a set (FieldSets: aliases, tags); or quietly, bookkeeping such as times.
public enum MergeRule: Sendable, Equatable {
    case lastWriter
    case set
    case quiet
}

/// How one field of `Record` is kept in the store: its columns, the values it binds, and how a row gives it back.
public struct FieldStorage<Record>: Sendable {
    public let columns: [StoreColumn]
    let store: @Sendable (Record, inout [StoredValue]) -> Void
    let load: @Sendable (inout Record, any StoredRow) -> Void
    /// `store` for a field stored in place in the record: it reads the value from the record's bytes (RecordTable's
    /// `bindings` lays the record out once for all such fields, where handing the record to each field's closure
    /// copied all of it for each field).
    let storeFromBytes: (@Sendable (UnsafeRawPointer, inout [StoredValue]) -> Void)?

    public init(
        columns: [StoreColumn], store: @escaping @Sendable (Record, inout [StoredValue]) -> Void,
        load: @escaping @Sendable (inout Record, any StoredRow) -> Void
    ) {
        self.columns = columns
        self.store = store
        self.load = load
        storeFromBytes = nil
    }

    init(
        columns: [StoreColumn], store: @escaping @Sendable (Record, inout [StoredValue]) -> Void,
        storeFromBytes: (@Sendable (UnsafeRawPointer, inout [StoredValue]) -> Void)?,
        load: @escaping @Sendable (inout Record, any StoredRow) -> Void
    ) {
        self.columns = columns
        self.store = store
        self.storeFromBytes = storeFromBytes
        self.load = load
    }

    /// One column holding the field, `value` turned into what the column holds and back.
    public static func column<Value: Sendable>(
        _ path: WritableKeyPath<Record, Value> & Sendable, _ name: String, _ declaration: String,
        store: @escaping @Sendable (Value) -> StoredValue, load: @escaping @Sendable (any StoredRow, String) -> Value
    ) -> FieldStorage {
        let property = StoredProperty(path)
        var fromBytes: (@Sendable (UnsafeRawPointer, inout [StoredValue]) -> Void)? = nil
        if let offset = property.offset {
            fromBytes = { bytes, out in out.append(store(bytes.load(fromByteOffset: offset, as: Value.self))) }
        }
        return FieldStorage(
            columns: [StoreColumn(name, declaration)],
            store: { record, out in out.append(store(property.value(in: record))) }, storeFromBytes: fromBytes,
            load: { record, row in record[keyPath: path] = load(row, name) })
    }
}

/// A stored property of a record, read where it lies in the record: its place is found once from its key path.
/// Applying a key path at run time goes through the runtime's generic projection (type metadata looked up, the value
/// copied through its witnesses) — most of a bulk write's row making, for the 23 columns of each of 100,000 hosts.
struct StoredProperty<Record, Value>: Sendable {
    let path: KeyPath<Record, Value> & Sendable
    /// The property's byte offset in `Record` (nil for a property that is not stored in place: the key path is used).
    let offset: Int?

    init(_ path: KeyPath<Record, Value> & Sendable) {
        self.path = path
        offset = MemoryLayout<Record>.offset(of: path)
    }

    func value(in record: Record) -> Value {
        guard let offset else { return record[keyPath: path] }
        return withUnsafeBytes(of: record) { $0.load(fromByteOffset: offset, as: Value.self) }
    }
}

extension FieldStorage {
    // The codings fields of every record share.

    public static func text(_ path: WritableKeyPath<Record, String> & Sendable, _ column: String) -> FieldStorage {
        .column(path, column, "TEXT NOT NULL DEFAULT ''", store: { .text($0) }, load: { $0.text($1) })
    }

    /// A list kept joined by U+001F, which validation forbids inside a tag or an alias (no escaping needed).
    public static func joined(_ path: WritableKeyPath<Record, [String]> & Sendable, _ column: String) -> FieldStorage {
        .column(
            path, column, "TEXT NOT NULL DEFAULT ''", store: { .text(StoredList.join($0)) },
            load: { StoredList.split($0.text($1)) })
    }

    public static func optionalID(_ path: WritableKeyPath<Record, UUID?> & Sendable, _ column: String) -> FieldStorage {
        .column(path, column, "TEXT", store: { .optional($0) }, load: { $0.uuid($1) })
    }

    public static func date(_ path: WritableKeyPath<Record, Date> & Sendable, _ column: String) -> FieldStorage {
        .column(
            path, column, "REAL NOT NULL DEFAULT 0", store: { .double($0.timeIntervalSince1970) },
            load: { $0.date($1) })
    }

    /// The record's id, its table's primary key (`RecordTable.read` refuses a row without one first).
    public static func id(_ path: WritableKeyPath<Record, UUID> & Sendable) -> FieldStorage {
        .column(
            path, "id", "TEXT PRIMARY KEY NOT NULL", store: { .text($0.storeText) },
            load: { $0.uuid($1) ?? RecordTableIDs.none })
    }
}

enum RecordTableIDs {
    static let none = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

/// How one field of `Record` is written to and read from its JSON body (sync records, export, `--json`).
public struct FieldJSON<Record>: Sendable {
    let encode: @Sendable (Record, inout KeyedEncodingContainer<AnyCodingKey>) throws -> Void
    let decode: @Sendable (inout Record, KeyedDecodingContainer<AnyCodingKey>) throws -> Void

    public init(
        encode: @escaping @Sendable (Record, inout KeyedEncodingContainer<AnyCodingKey>) throws -> Void,
        decode: @escaping @Sendable (inout Record, KeyedDecodingContainer<AnyCodingKey>) throws -> Void
    ) {
        self.encode = encode
        self.decode = decode
    }

    /// The value under `key`, its default when absent or null.
    public static func value<Value: Codable & Sendable>(
        _ path: WritableKeyPath<Record, Value> & Sendable, _ key: String, _ fallback: Value
    ) -> FieldJSON {
        FieldJSON(
            encode: { record, c in try c.put(key, record[keyPath: path]) },
            decode: { record, c in record[keyPath: path] = try c.field(key, fallback) })
    }

    /// An id, written lower-case (as every id in sshelf's JSON).
    public static func id(_ path: WritableKeyPath<Record, UUID> & Sendable, _ key: String) -> FieldJSON {
        FieldJSON(
            encode: { record, c in try c.put(key, record[keyPath: path]) },
            decode: { record, c in record[keyPath: path] = try c.field(key, UUID()) })
    }

    public static func optionalID(_ path: WritableKeyPath<Record, UUID?> & Sendable, _ key: String) -> FieldJSON {
        FieldJSON(
            encode: { record, c in try c.put(key, record[keyPath: path]) },
            decode: { record, c in record[keyPath: path] = try c.field(key, nil as UUID?) })
    }

    public static func ids(_ path: WritableKeyPath<Record, [UUID]> & Sendable, _ key: String) -> FieldJSON {
        FieldJSON(
            encode: { record, c in try c.put(key, record[keyPath: path]) },
            decode: { record, c in record[keyPath: path] = try c.field(key, [UUID]()) })
    }

    /// A value written only when it is not `absent`: a record that never had the field keeps the body (and the sync
    /// entry) it always had.
    public static func unlessDefault<Value: Codable & Equatable & Sendable>(
        _ path: WritableKeyPath<Record, Value> & Sendable, _ key: String, _ absent: Value
    ) -> FieldJSON {
        FieldJSON(
            encode: { record, c in
                let value = record[keyPath: path]
                if value != absent { try c.put(key, value) }
            },
            decode: { record, c in record[keyPath: path] = try c.field(key, absent) })
    }
}

/// One field of a record, described once. A class: the table's loops (a row's bindings, validation) visit every
/// field of every record, and a struct of closures and strings would be copied — a dozen reference counts — at each
/// visit (a 100,000-host import paid a third more time for it).
public final class RecordField<Record>: Sendable {
    /// The JSON key (and the name a Mirror of the record gives the stored property).
    public let key: String
    /// The sync field group it is stamped and merged with (nil: the record's id, which is not merged).
    public let group: String?
    public let merge: MergeRule
    public let storage: FieldStorage<Record>
    public let json: FieldJSON<Record>
    /// The problems of the field's value in a record, each added under the field name validation reports it under
    /// (nil: a field without rules, which validation skips).
    let check: Check?

    /// Adds to the list the problems of the field's value in a record: the record is borrowed (no copy of it), and a
    /// record without problems makes no array (validation runs on every one of an import's 100,000 hosts).
    public typealias Check = @Sendable (Record, inout [ValidationError]) -> Void

    /// Validation reporting under `name` the one problem `body` finds (nil: none).
    public static func check(_ name: String, _ body: @escaping @Sendable (Record) -> String?) -> Check {
        { record, found in
            if let message = body(record) { found.append(ValidationError(field: name, message: message)) }
        }
    }

    /// Validation reporting under `name` each problem `body` finds: it hands each to its second argument (nil: none).
    public static func checks(_ name: String, _ body: @escaping @Sendable (Record, (String?) -> Void) -> Void) -> Check
    {
        { record, found in
            body(record) { problem in
                if let message = problem { found.append(ValidationError(field: name, message: message)) }
            }
        }
    }

    public init(
        _ key: String, group: String?, merge: MergeRule = .lastWriter, storage: FieldStorage<Record>,
        json: FieldJSON<Record>, problems: Check? = nil
    ) {
        self.key = key
        self.group = group
        self.merge = merge
        self.storage = storage
        self.json = json
        self.check = problems
    }
}

// RecordRows: how each model record maps to its table row and back. Unknown fields ride in `extra` (ExtraFields:
// JSON, empty when there are none, so the common case costs no JSON work at 100,000 rows).
import FoundationEssentials
import ShelfCore

/// A host's row: every column, the SQL and the reading come from its field table (HostFields).
enum HostRow {
    static func joinTags(_ tags: [String]) -> String { StoredList.join(tags) }
    static func splitTags(_ text: String) -> [String] { StoredList.split(text) }

    static var columns: String { HostFields.table.columnList }
    static var upsert: String { HostFields.table.upsertSQL }
    /// A new row only (a bulk insert of hosts never saved): an existing id is a constraint error, not an update.
    static var insert: String { HostFields.table.insertSQL }

    static func bindings(_ host: Host) -> [SQLValue] { HostFields.table.bindings(host).map(SQLValue.init) }

    /// Packs `host`'s row for a bulk insert, its values made in `scratch` (one array for all the rows).
    static func pack(_ host: Host, into rows: inout SQLitePackedRows, scratch: inout [StoredValue]) {
        HostFields.bindings(host, into: &scratch)
        rows.appendRow { row in
            for value in scratch {
                switch value {
                case .null: row.appendNull()
                case .int(let number): row.appendInt(number)
                case .double(let number): row.appendDouble(number)
                case .text(let text): row.appendText(text)
                }
            }
        }
    }

    /// Reads each row of one query; the columns' places are looked up by name on its first row.
    static func reader() -> (Statement) -> Host? {
        var places: ColumnPlaces? = nil
        return { row in
            let found = places ?? ColumnPlaces(row)
            places = found
            return HostFields.table.read(NamedRow(statement: row, places: found))
        }
    }
}

/// Where each result column of a statement stands, by name.
struct ColumnPlaces {
    let byName: [String: Int32]

    init(_ statement: Statement) {
        var byName: [String: Int32] = [:]
        for column in 0..<statement.columnCount { byName[statement.columnName(column)] = column }
        self.byName = byName
    }
}

/// A row read by column name (StoredRow); a name the statement does not have reads as NULL.
struct NamedRow: StoredRow {
    let statement: Statement
    let places: ColumnPlaces

    func isNull(_ column: String) -> Bool { places.byName[column].map(statement.isNull) ?? true }
    func text(_ column: String) -> String { places.byName[column].map(statement.text) ?? "" }
    func int(_ column: String) -> Int { places.byName[column].map(statement.int) ?? 0 }
    func double(_ column: String) -> Double { places.byName[column].map(statement.double) ?? 0 }
}

extension SQLValue {
    init(_ value: StoredValue) {
        switch value {
        case .null: self = .null
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .text(let text): self = .text(text)
        }
    }
}

enum GroupRow {
    static let columns = "id, name, parent_id, sort_order, notes, updated_at, extra"
    static let upsert = """
        INSERT INTO host_groups(\(columns)) VALUES (?,?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET name=excluded.name, parent_id=excluded.parent_id,
          sort_order=excluded.sort_order, notes=excluded.notes, updated_at=excluded.updated_at, extra=excluded.extra
        """

    /// A group's `pq` setting rides in its `extra` column (JSON, beside fields a newer version wrote): groups are few,
    /// read whole, and a group row keeps the shape every schema version had.
    static let pqField = "pq"

    static func bindings(_ group: HostGroup) -> [SQLValue] {
        [
            .text(group.id.storeText), .text(group.name), .optional(group.parentID), .int(group.sortOrder),
            .text(group.notes), .double(group.updatedAt.timeIntervalSince1970),
            .text(ExtraFields.encode(stored(group))),
        ]
    }

    /// A group's `pq` and record settings are kept in its `extra` column (groups are few, and no query selects by
    /// them).
    static func stored(_ group: HostGroup) -> [String: JSONValue] {
        var extra = group.extra
        if group.pq != .off { extra[pqField] = .string(group.pq.rawValue) }
        if let record = group.record { extra["record"] = .string(record.rawValue) }
        return extra
    }

    static func read(_ row: Statement) -> HostGroup? {
        guard let id = row.uuid(0) else { return nil }
        var extra = ExtraFields.decode(row.text(6))
        // Anything but a string is a value this version does not know: it asks for at least require.
        let pq: PostQuantumSetting =
            switch extra.removeValue(forKey: pqField) {
            case nil: .off
            case .string(let raw)?: PostQuantumSetting(rawValue: raw)
            case _?: .require
            }
        var record: RecordSetting? = nil
        if case .string(let text)? = extra.removeValue(forKey: "record") { record = RecordSetting(rawValue: text) }
        return HostGroup(
            id: id, name: row.text(1), parentID: row.uuid(2), sortOrder: row.int(3), notes: row.text(4),
            updatedAt: row.date(5), pq: pq, record: record, extra: extra)
    }
}

enum IdentityRow {
    static let columns = """
        id, name, key_type, public_key, private_key_ref, passphrase_ref, key_file, updated_at, extra, \
        confirm_each_use, agent_lifetime, only_to
        """
    static let upsert = """
        INSERT INTO identities(\(columns)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET name=excluded.name, key_type=excluded.key_type,
          public_key=excluded.public_key, private_key_ref=excluded.private_key_ref,
          passphrase_ref=excluded.passphrase_ref, key_file=excluded.key_file, updated_at=excluded.updated_at,
          extra=excluded.extra, confirm_each_use=excluded.confirm_each_use, agent_lifetime=excluded.agent_lifetime,
          only_to=excluded.only_to
        """

    static func bindings(_ identity: Identity) -> [SQLValue] {
        [
            .text(identity.id.storeText), .text(identity.name), .text(identity.keyType.rawValue),
            .text(identity.publicKey),
            .optional(identity.privateKeyRef?.rawValue), .optional(identity.passphraseRef?.rawValue),
            .text(identity.keyFile), .double(identity.updatedAt.timeIntervalSince1970),
            .text(ExtraFields.encode(identity.extra)), .int(identity.confirmEachUse ? 1 : 0),
            .int(identity.agentLifetime),
            .text(HostRow.joinTags(identity.onlyTo.map(\.description))),
        ]
    }

    static func read(_ row: Statement) -> Identity? {
        guard let id = row.uuid(0) else { return nil }
        return Identity(
            id: id, name: row.text(1), keyType: KeyType(rawValue: row.text(2)), publicKey: row.text(3),
            privateKeyRef: row.optionalText(4).flatMap(ReferenceKey.init),
            passphraseRef: row.optionalText(5).flatMap(ReferenceKey.init), keyFile: row.text(6),
            confirmEachUse: row.int(9) != 0, agentLifetime: row.int(10),
            onlyTo: HostRow.splitTags(row.text(11)).map(KeyDestination.init(text:)), updatedAt: row.date(7),
            extra: ExtraFields.decode(row.text(8)))
    }
}

enum ForwardRow {
    static let columns = """
        id, host_id, name, kind, bind_address, bind_port, target_host, target_port, autostart, enabled, updated_at, \
        extra, sessions
        """
    static let upsert = """
        INSERT INTO forward_rules(\(columns)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET host_id=excluded.host_id, name=excluded.name, kind=excluded.kind,
          bind_address=excluded.bind_address, bind_port=excluded.bind_port, target_host=excluded.target_host,
          target_port=excluded.target_port, autostart=excluded.autostart, enabled=excluded.enabled,
          updated_at=excluded.updated_at, extra=excluded.extra, sessions=excluded.sessions
        """

    static func bindings(_ rule: PortForwardRule) -> [SQLValue] {
        [
            .text(rule.id.storeText), .optional(rule.hostID), .text(rule.name), .text(rule.kind.rawValue),
            .text(rule.bindAddress), .int(rule.bindPort), .text(rule.targetHost), .int(rule.targetPort),
            .int(rule.autostart ? 1 : 0), .int(rule.enabled ? 1 : 0), .double(rule.updatedAt.timeIntervalSince1970),
            .text(ExtraFields.encode(rule.extra)), .int(rule.sessions),
        ]
    }

    static func read(_ row: Statement) -> PortForwardRule? {
        guard let id = row.uuid(0) else { return nil }
        return PortForwardRule(
            id: id, hostID: row.uuid(1), name: row.text(2), kind: ForwardKind(rawValue: row.text(3)),
            bindAddress: row.text(4), bindPort: row.int(5), targetHost: row.text(6),
            targetPort: row.int(7), autostart: row.int(8) != 0, enabled: row.int(9) != 0,
            sessions: row.int(12), updatedAt: row.date(10), extra: ExtraFields.decode(row.text(11)))
    }
}

/// A snippet's row: every column, the SQL and the reading come from its field table (SnippetFields).
enum SnippetRow {
    static var columns: String { SnippetFields.table.columnList }
    static var upsert: String { SnippetFields.table.upsertSQL }
    static func bindings(_ snippet: Snippet) -> [SQLValue] { SnippetFields.table.bindings(snippet).map(SQLValue.init) }

    /// Reads each row of one query; the columns' places are looked up by name on its first row.
    static func reader() -> (Statement) -> Snippet? {
        var places: ColumnPlaces? = nil
        return { row in
            let found = places ?? ColumnPlaces(row)
            places = found
            return SnippetFields.table.read(NamedRow(statement: row, places: found))
        }
    }
}

// StoreCAPins: the CA pins (`trust --ca`) in the store — their table's migration, rows, and the reads and writes
// that stamp them for sync like any config record.
import FoundationEssentials
import ShelfCore

extension Migrations {
    /// CA pins (CAPin): `@cert-authority` trust that syncs, a config record kind like snippets.
    static let caPins = Migration.sql(
        """
        CREATE TABLE ca_pins(
            id TEXT PRIMARY KEY NOT NULL,
            key_type TEXT NOT NULL DEFAULT '',
            key TEXT NOT NULL DEFAULT '',
            hosts TEXT NOT NULL DEFAULT '',
            updated_at REAL NOT NULL DEFAULT 0,
            extra TEXT NOT NULL DEFAULT '');
        """)
}

enum CAPinRow {
    static let columns = "id, key_type, key, hosts, updated_at, extra"
    static let upsert = """
        INSERT INTO ca_pins(\(columns)) VALUES (?,?,?,?,?,?)
        ON CONFLICT(id) DO UPDATE SET key_type=excluded.key_type, key=excluded.key, hosts=excluded.hosts,
          updated_at=excluded.updated_at, extra=excluded.extra
        """

    static func bindings(_ pin: CAPin) -> [SQLValue] {
        [
            .text(pin.id.storeText), .text(pin.keyType), .text(pin.key), .text(pin.hosts),
            .double(pin.updatedAt.timeIntervalSince1970), .text(ExtraFields.encode(pin.extra)),
        ]
    }

    static func read(_ row: Statement) -> CAPin? {
        guard let id = row.uuid(0) else { return nil }
        return CAPin(
            id: id, keyType: row.text(1), key: row.text(2), hosts: row.text(3), updatedAt: row.date(4),
            extra: ExtraFields.decode(row.text(5)))
    }
}

extension Store {
    public func caPins() throws -> [CAPin] {
        try db.query("SELECT \(CAPinRow.columns) FROM ca_pins ORDER BY hosts, key, id", row: CAPinRow.read)
            .compactMap { $0 }
    }

    public func save(_ pin: CAPin) throws {
        let prior = try priorForSave(.caPin, pin.id)
        try db.run(CAPinRow.upsert, CAPinRow.bindings(pin))
        try stampSave(.caPin, pin.id, prior: prior) { try Store.mergeBody(pin) }
    }

    /// What a host certificate said at each host's last session from this device (`HostCertificateNote`).
    public func lastHostCertificates() throws -> [UUID: String] {
        let prefix = "hostcert.last."
        let rows = try db.query(
            "SELECT key, value FROM settings WHERE substr(key, 1, ?) = ?", [.int(prefix.count), .text(prefix)]
        ) { row in (row.text(0), row.text(1)) }
        var found: [UUID: String] = [:]
        for (key, value) in rows {
            if let id = UUID(uuidString: String(key.dropFirst(prefix.count))) { found[id] = value }
        }
        return found
    }

    public func deleteCAPin(_ id: UUID) throws {
        try db.run("DELETE FROM ca_pins WHERE id = ?", [.text(id.storeText)])
        try stampDelete(.caPin, id)
    }
}

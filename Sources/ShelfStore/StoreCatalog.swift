// StoreCatalog: every host as a HostTable (the compact column store the TUI and `list` search), kept in a
// cache file beside the store so a start does not re-read 100,000 rows. Whether the cache is current is
// decided by the store itself: triggers on the hosts table give a catalog token a new random value on every
// insert, update and delete, by any process or version that writes the file; a cache whose token differs is
// rebuilt from the rows in the same read transaction as the token, and replaced by rename (never written in
// place), so a reader's mapping stays valid.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSQLite
import ShelfSystem

extension Migrations {
    /// The catalog token (changed by trigger on every host write) and the case-insensitive name index that
    /// gives the list order (and the first screenful) without sorting.
    static let catalog = Migration.sql(
        """
        CREATE TABLE catalog_version(id INTEGER PRIMARY KEY CHECK (id = 1), token BLOB NOT NULL);
        INSERT INTO catalog_version(id, token) VALUES (1, randomblob(16));
        \(Store.catalogTriggerSQL)
        CREATE INDEX hosts_by_folded_name ON hosts(name COLLATE NOCASE, id);
        """)
}

extension Store {
    /// The catalog cache beside the store file.
    public var catalogCachePath: String { path + ".catalog" }

    static let catalogTriggers = [
        "catalog_after_host_insert", "catalog_after_host_update", "catalog_after_host_delete",
    ]

    /// The triggers that change the catalog token on every write to the hosts table.
    static let catalogTriggerSQL = """
        CREATE TRIGGER catalog_after_host_insert AFTER INSERT ON hosts
            BEGIN UPDATE catalog_version SET token = randomblob(16) WHERE id = 1; END;
        CREATE TRIGGER catalog_after_host_update AFTER UPDATE ON hosts
            BEGIN UPDATE catalog_version SET token = randomblob(16) WHERE id = 1; END;
        CREATE TRIGGER catalog_after_host_delete AFTER DELETE ON hosts
            BEGIN UPDATE catalog_version SET token = randomblob(16) WHERE id = 1; END;
        """

    /// The list order: case-insensitive name, then id (the index `hosts_by_folded_name` serves it).
    static let listOrder = "ORDER BY name COLLATE NOCASE, id"

    /// The record setting travels in the catalog inside `extra` (rare, and the table's format stays as it is):
    /// HostTable.host(at:) takes it out again.
    static let catalogColumns = """
        id, name, hostname, port, user, group_id, tags, auth_method, identity_id, password_ref, jump_host_ids, \
        unresolved_jump, pinned_key_type, pinned_key, notes, created_at, updated_at, last_connected_at, \
        CASE WHEN record = '' THEN extra \
        ELSE json_set(CASE WHEN extra = '' THEN '{}' ELSE extra END, '$.record', record) END AS extra, \
        options, aliases, pq
        """

    /// The current catalog token; nil when the triggers that keep it current are missing (then no cache).
    public func catalogToken() throws -> [UInt8]? {
        let triggers =
            try db.query(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'hosts' AND name IN (?, "
                    + "?, ?)",
                Store.catalogTriggers.map { .text($0) }
            ) { $0.int(0) }.first ?? 0
        guard triggers == Store.catalogTriggers.count else { return nil }
        return try db.query("SELECT token FROM catalog_version WHERE id = 1") { row in row.blob(0) }.first
    }

    /// The cached table when it is current, else nil (then `hostTable()` rebuilds it).
    public func cachedHostTable() throws -> HostTable? {
        try read { store in
            guard let token = try store.catalogToken(), let cached = try? HostTable.map(path: store.catalogCachePath),
                cached.token == token
            else { return nil }
            return cached
        }
    }

    /// Every host as a HostTable in list order: the cache when its token is current, else built from the rows
    /// (and the cache replaced). A cache that cannot be read or written only costs the rebuild.
    public func hostTable(useCache: Bool = true) throws -> HostTable {
        try read { store in
            let token = try store.catalogToken()
            if useCache, let token, let cached = try? HostTable.map(path: store.catalogCachePath), cached.token == token
            {
                return cached
            }
            var builder = HostTableBuilder(expectedCount: try store.hostCount())
            try store.appendHosts(to: &builder, sql: "SELECT \(Store.catalogColumns) FROM hosts \(Store.listOrder)")
            if useCache, let token, store.writeCatalogCache(builder, token: token),
                let written = try? HostTable.map(path: store.catalogCachePath), written.token == token
            {
                return written
            }
            return builder.finish(token: token ?? [])
        }
    }

    /// Hosts matching `filter` by the one search rule (HostMatcher), best first, optionally only those in a
    /// set of groups.
    public func searchHosts(_ filter: String, inGroups groupIDs: Set<UUID>? = nil) throws -> [ShelfCore.Host] {
        try read { store in
            let table = try store.hostTable()
            let matcher = HostMatcher(table: table, groupPaths: try store.groupPaths(for: table))
            let candidates = Store.rows(of: table, inGroups: groupIDs)
            return matcher.search(HostQuery(filter), in: candidates).map { table.host(at: Int($0)) }
        }
    }

    /// The path of each group the table refers to, by the table's group index ("" for a group that is gone).
    public func groupPaths(for table: HostTable) throws -> [String] {
        let tree = GroupTree(try groups())
        return table.groupIDs.map { tree.path(of: $0) }
    }

    /// The table's rows in list order, limited to hosts in `groupIDs` when given.
    public static func rows(of table: HostTable, inGroups groupIDs: Set<UUID>?) -> [Int32] {
        guard let groupIDs else { return (0..<Int32(table.count)).map { $0 } }
        let wanted = Set(table.groupIDs.enumerated().filter { groupIDs.contains($0.element) }.map(\.offset))
        return (0..<table.count).filter { wanted.contains(table.groupIndex($0)) }.map { Int32($0) }
    }

    /// The first `limit` hosts in list order, read through the name index (the first screenful, before the
    /// whole catalog is ready).
    public func firstHosts(limit: Int) throws -> HostTable {
        try read { store in
            var builder = HostTableBuilder(expectedCount: limit)
            try store.appendHosts(to: &builder, sql: Store.firstHostsQuery, bindings: [.int(limit)])
            return builder.finish(token: [])
        }
    }

    public static let firstHostsQuery = "SELECT \(catalogColumns) FROM hosts \(listOrder) LIMIT ?"

    /// How SQLite runs `sql` (EXPLAIN QUERY PLAN details), for tests that guard an index is used.
    public func queryPlan(_ sql: String) throws -> [String] {
        try db.query("EXPLAIN QUERY PLAN " + sql) { $0.text(3) }
    }

    /// Steps `sql` and hands each row's column bytes to the builder without making a String per row.
    func appendHosts(to builder: inout HostTableBuilder, sql: String, bindings: [SQLValue] = []) throws {
        let statement = try db.cached(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        // Each column's place by name, looked up once (not per row).
        let places = ColumnPlaces(statement).byName
        func at(_ name: String) -> Int32 { places[name] ?? -1 }
        let (id, name, hostname, port, user) = (at("id"), at("name"), at("hostname"), at("port"), at("user"))
        let (group, tags, auth, identity, password) = (
            at("group_id"), at("tags"), at("auth_method"), at("identity_id"), at("password_ref")
        )
        let (jumps, unresolved, pinnedType, pinnedKey) = (
            at("jump_host_ids"), at("unresolved_jump"), at("pinned_key_type"), at("pinned_key")
        )
        let (notes, created, updated, connected) = (
            at("notes"), at("created_at"), at("updated_at"), at("last_connected_at")
        )
        let (extra, options, aliases, pq) = (at("extra"), at("options"), at("aliases"), at("pq"))
        while try statement.step() {
            guard let hostID = statement.uuidFast(id) else { continue }
            let row = HostTableRow(
                id: hostID, name: statement.bytes(name), hostname: statement.bytes(hostname),
                user: statement.bytes(user), tags: statement.bytes(tags), port: statement.int(port),
                groupID: statement.uuidFast(group), identityID: statement.uuidFast(identity),
                auth: statement.bytes(auth),
                passwordRef: statement.isNull(password) ? nil : statement.bytes(password),
                jumps: statement.bytes(jumps),
                unresolvedJump: statement.bytes(unresolved),
                pinnedType: statement.isNull(pinnedType) ? nil : statement.bytes(pinnedType),
                pinnedKey: statement.isNull(pinnedKey) ? nil : statement.bytes(pinnedKey),
                notes: statement.bytes(notes),
                created: statement.double(created), updated: statement.double(updated),
                lastConnected: statement.isNull(connected) ? nil : statement.double(connected),
                extra: statement.bytes(extra), options: statement.bytes(options), aliases: statement.bytes(aliases),
                pq: statement.bytes(pq))
            builder.append(row)
        }
    }

    /// Writes the cache to a private temporary file and renames it over the old one; false on any failure
    /// (a full disk or a read-only folder only means no cache).
    func writeCatalogCache(_ builder: HostTableBuilder, token: [UInt8]) -> Bool {
        let target = catalogCachePath
        let temporary = target + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return false }
        var ok = fchmod(fd, 0o600) == 0
        if ok {
            do { try builder.write(token: token, to: fd) } catch { ok = false }
        }
        ok = close(fd) == 0 && ok
        if ok { ok = rename(temporary, target) == 0 }
        if !ok { unlink(temporary) }
        return ok
    }
}

extension Statement {
    /// A UUID column parsed without Foundation's slower parser; nil for NULL or a malformed value.
    func uuidFast(_ column: Int32) -> UUID? {
        isNull(column) ? nil : HostTableBuilder.parseUUID(bytes(column))
    }
}

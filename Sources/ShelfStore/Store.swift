// Store: the config track on disk — groups, hosts, identities and forward rules in one SQLite file (WAL,
// synchronous=FULL, 0600). Refuses a file that is damaged, foreign, newer, or readable by others, and never
// writes to such a file. Writers take the lock up front (BEGIN IMMEDIATE) so concurrent processes queue
// instead of losing an update.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public final class Store {
    /// 'sshf': marks a SQLite file as an sshelf store, so another program's database is never migrated.
    public static let applicationID: Int32 = 0x7373_6866
    public static var latestVersion: Int { Migrations.latest }
    /// How long a writer waits for another process's transaction before giving up.
    public static let busyTimeoutMilliseconds: Int32 = 15_000
    /// The page size of a store made from now on (an older file keeps its own).
    public static let pageSize = 16_384

    public let path: String
    let db: Database
    /// The newest clock stamp, cached for the length of one write transaction (see StoreSync.swift).
    var lastStamp: ClockStamp?
    var cachedDeviceID: String?
    /// Injectable wall clock, so merge tests can stamp deterministic times.
    public var now: @Sendable () -> Date = { Date() }
    /// Called after every outermost write transaction that changed a row, whoever wrote (a command, the TUI, sync,
    /// an import), on the writer's thread and outside the transaction: the one place derived files (the ssh_config
    /// bridge) are kept current.
    public var afterChange: ((Store) -> Void)?

    /// Opens (creating if needed, with its folder) the store at `path`, migrating it to the latest schema.
    public convenience init(path: String) throws(StoreError) {
        try self.init(path: path, migrateTo: Migrations.latest)
    }

    /// Opens with migrations up to `version` only; tests use this to build a first-schema file.
    init(path: String, migrateTo version: Int) throws(StoreError) {
        self.path = path
        let directory = path.parentPath
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw StoreError(
                    kind: .foreign, message: "\(path) is \(RegularFile.describe(info.st_mode)), not a regular file",
                    hint: "sshelf opens its store only as a plain file; move this aside")
            }
            if info.st_mode & 0o077 != 0 {
                throw StoreError(
                    kind: .permissions,
                    message:
                        "store \(path) is readable by other users (mode \(String(info.st_mode & 0o777, radix: 8)))",
                    hint: "run: chmod 600 '\(path)' (sshelf refuses loose files, as ssh refuses loose keys)")
            }
        } else {
            do {
                try PrivateFiles.ensureDirectory(directory)
                try PrivateFiles.ensureFile(path)
            } catch {
                throw StoreError(
                    kind: .permissions, message: "cannot create the store: \(error)",
                    hint: "check that \(directory) is writable")
            }
        }
        db = try Database(path: path)
        db.setBusyTimeout(milliseconds: Store.busyTimeoutMilliseconds)
        try checkIdentity()
        // A new file gets larger pages than SQLite's 4 KiB (fixed once the file has pages): a 100,000-host import
        // writes a quarter as many WAL frames, each a write and a read again at the checkpoint.
        if try db.scalarInt("PRAGMA page_count") == 0 { try db.execute("PRAGMA page_size=\(Store.pageSize)") }
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF;")
        try migrate(to: version)
        // SQLite creates these itself, copying the main file's mode; tighten anyway in case it was created earlier.
        PrivateFiles.tighten(path + "-wal")
        PrivateFiles.tighten(path + "-shm")
    }

    private func checkIdentity() throws(StoreError) {
        let appID = try db.scalarInt("PRAGMA application_id")
        let version = try db.scalarInt("PRAGMA user_version")
        if appID == 0 && version == 0 {
            let tables = try db.scalarInt("SELECT count(*) FROM sqlite_master")
            if tables > 0 {
                throw StoreError(
                    kind: .foreign, message: "\(path) is a SQLite database of another program",
                    hint: "sshelf will not touch it; move it aside or set SSHELF_HOME to another folder")
            }
        } else if appID != Int(Store.applicationID) {
            throw StoreError(
                kind: .foreign, message: "\(path) is a SQLite database of another program",
                hint: "sshelf will not touch it; move it aside or set SSHELF_HOME to another folder")
        }
        if version > Migrations.latest {
            throw StoreError(
                kind: .newerFormat,
                message: "store \(path) has format \(version); this sshelf understands up to \(Migrations.latest)",
                hint: "upgrade sshelf; the file is left as it is")
        }
    }

    private func migrate(to target: Int) throws(StoreError) {
        guard try db.scalarInt("PRAGMA user_version") < target else { return }
        do {
            try write { store in
                // Another process may have migrated while we waited for the lock.
                let current = try store.db.scalarInt("PRAGMA user_version")
                guard current < target else { return }
                for step in Migrations.all[current..<target] {
                    switch step {
                    case .sql(let sql): try store.db.execute(sql)
                    case .code(let body): try body(store.db)
                    }
                }
                try store.db.execute("PRAGMA application_id=\(Store.applicationID); PRAGMA user_version=\(target)")
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(kind: .other, message: "migrating \(path): \(error)", hint: nil)
        }
    }

    public var schemaVersion: Int { (try? db.scalarInt("PRAGMA user_version")) ?? 0 }

    // MARK: transactions

    /// Runs `body` holding the write lock (BEGIN IMMEDIATE): read-modify-write inside it cannot lose an update
    /// to another process. Nested calls join the outer transaction.
    public func write<T>(_ body: (Store) throws -> T) throws -> T {
        // The connection is this thread's until COMMIT: another thread's call waits, and cannot join it.
        try db.connection.exclusive { try writeHolding(body) }
    }

    private func writeHolding<T>(_ body: (Store) throws -> T) throws -> T {
        if db.isInTransaction { return try body(self) }
        try db.execute("BEGIN IMMEDIATE")
        // Another process may have stamped changes since our last transaction: re-read the clock lazily.
        lastStamp = nil
        defer { lastStamp = nil }
        let changesBefore = db.totalChanges
        do {
            let result = try body(self)
            try db.execute("COMMIT")
            StoreCounters.shared.countCommit()
            if db.totalChanges != changesBefore, let afterChange { afterChange(self) }
            return result
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` on one consistent snapshot.
    public func read<T>(_ body: (Store) throws -> T) throws -> T {
        try db.connection.exclusive {
            if db.isInTransaction { return try body(self) }
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            return try body(self)
        }
    }

    // MARK: groups

    public func groups() throws -> [HostGroup] {
        try db.query("SELECT \(GroupRow.columns) FROM host_groups", row: GroupRow.read).compactMap { $0 }
    }

    /// Saves a group and stamps the change for sync (as every save and delete below does).
    public func save(_ group: HostGroup) throws {
        let prior = try priorForSave(.group, group.id)
        try db.run(GroupRow.upsert, GroupRow.bindings(group))
        try stampSave(.group, group.id, prior: prior) { try Store.mergeBody(group) }
    }

    public func deleteGroup(_ id: UUID) throws {
        try db.run("DELETE FROM host_groups WHERE id = ?", [.text(id.storeText)])
        try stampDelete(.group, id)
    }

    // MARK: hosts

    public func hosts() throws -> [ShelfCore.Host] {
        try db.query("SELECT \(HostRow.columns) FROM hosts ORDER BY name COLLATE NOCASE, id", row: HostRow.reader())
            .compactMap { $0 }
    }

    public func host(id: UUID) throws -> ShelfCore.Host? {
        try db.query("SELECT \(HostRow.columns) FROM hosts WHERE id = ?", [.text(id.storeText)], row: HostRow.reader())
            .compactMap { $0 }.first
    }

    /// Hosts whose name is `name` (exact, then case-insensitive); names are not unique, so this is a list. One
    /// lookup through the case-insensitive name index: every exact match is among the case-insensitive ones.
    public func hosts(named name: String) throws -> [ShelfCore.Host] {
        let same = try hosts(sameNameAs: name)
        let exact = same.filter { $0.name.utf8.elementsEqual(name.utf8) }  // byte for byte, as SQLite compares
        return exact.isEmpty ? same : exact
    }

    /// Hosts whose name equals `name` ignoring case (ASCII), in id order: the unique-name rule compares this way,
    /// as ssh compares Host aliases.
    public func hosts(sameNameAs name: String) throws -> [ShelfCore.Host] {
        try db.query(
            "SELECT \(HostRow.columns) FROM hosts WHERE name = ? COLLATE NOCASE ORDER BY id", [.text(name)],
            row: HostRow.reader()
        ).compactMap { $0 }
    }

    /// Hosts that have `alias` among their aliases, ignoring case (ASCII), in id order. Only the hosts with any alias
    /// are read (the partial index `hosts_with_aliases`); the match itself is made here, where the rule is.
    public func hosts(aliased alias: String) throws -> [ShelfCore.Host] {
        try db.query("SELECT \(HostRow.columns) FROM hosts WHERE aliases != '' ORDER BY id", row: HostRow.reader())
            .compactMap { $0 }.filter { $0.aliases.contains { $0.caseInsensitiveASCIIEquals(alias) } }
    }

    /// Hosts that answer to `name` — by their name or an alias, ignoring case — in id order, each once.
    public func hosts(answeringTo name: String) throws -> [ShelfCore.Host] {
        let named = try hosts(sameNameAs: name)
        let aliased = try hosts(aliased: name).filter { host in !named.contains { $0.id == host.id } }
        return aliased.isEmpty ? named : (named + aliased).sorted { $0.id.storeText < $1.id.storeText }
    }

    /// Hosts whose id starts with `prefix` (lower-case hex and dashes), found through the primary key.
    public func hosts(idPrefix prefix: String) throws -> [ShelfCore.Host] {
        try db.query(
            "SELECT \(HostRow.columns) FROM hosts WHERE id >= ? AND id < ? ORDER BY id",
            [.text(prefix), .text(prefix + "\u{7F}")], row: HostRow.reader()
        ).compactMap { $0 }
    }

    public func hostCount() throws -> Int { try db.scalarInt("SELECT count(*) FROM hosts") }

    public func save(_ host: ShelfCore.Host) throws {
        let prior = try priorForSave(.host, host.id)
        try db.run(HostRow.upsert, HostRow.bindings(host))
        try stampSave(.host, host.id, prior: prior) { try Store.mergeBody(host) }
    }

    /// Saves many hosts with one prepared statement (the connection caches it); call inside `write`.
    public func save(hosts: [ShelfCore.Host]) throws {
        for host in hosts {
            let prior = try priorForSave(.host, host.id)
            try db.run(HostRow.upsert, HostRow.bindings(host))
            try stampSave(.host, host.id, prior: prior) { try Store.mergeBody(host) }
        }
    }

    public func deleteHost(_ id: UUID) throws {
        try db.run("DELETE FROM hosts WHERE id = ?", [.text(id.storeText)])
        try stampDelete(.host, id)
    }

    // MARK: identities

    public func identities() throws -> [Identity] {
        try db.query(
            "SELECT \(IdentityRow.columns) FROM identities ORDER BY name COLLATE NOCASE, id",
            row: IdentityRow.read
        ).compactMap { $0 }
    }

    public func save(_ identity: Identity) throws {
        let prior = try priorForSave(.identity, identity.id)
        try db.run(IdentityRow.upsert, IdentityRow.bindings(identity))
        try stampSave(.identity, identity.id, prior: prior) { try Store.mergeBody(identity) }
    }

    public func deleteIdentity(_ id: UUID) throws {
        try db.run("DELETE FROM identities WHERE id = ?", [.text(id.storeText)])
        try stampDelete(.identity, id)
    }

    // MARK: forward rules

    public func forwardRules(hostID: UUID? = nil) throws -> [PortForwardRule] {
        if let hostID {
            return try db.query(
                "SELECT \(ForwardRow.columns) FROM forward_rules WHERE host_id = ? ORDER BY bind_port, id",
                [.text(hostID.storeText)], row: ForwardRow.read
            ).compactMap { $0 }
        }
        return try db.query(
            "SELECT \(ForwardRow.columns) FROM forward_rules ORDER BY host_id, bind_port, id",
            row: ForwardRow.read
        ).compactMap { $0 }
    }

    public func save(_ rule: PortForwardRule) throws {
        let prior = try priorForSave(.forward, rule.id)
        try db.run(ForwardRow.upsert, ForwardRow.bindings(rule))
        try stampSave(.forward, rule.id, prior: prior) { try Store.mergeBody(rule) }
    }

    public func deleteForwardRule(_ id: UUID) throws {
        try db.run("DELETE FROM forward_rules WHERE id = ?", [.text(id.storeText)])
        try stampDelete(.forward, id)
    }

    // MARK: snippets

    public func snippets() throws -> [Snippet] {
        try db.query(
            "SELECT \(SnippetRow.columns) FROM snippets ORDER BY name COLLATE NOCASE, id", row: SnippetRow.reader()
        )
        .compactMap { $0 }
    }

    public func save(_ snippet: Snippet) throws {
        let prior = try priorForSave(.snippet, snippet.id)
        try db.run(SnippetRow.upsert, SnippetRow.bindings(snippet))
        try stampSave(.snippet, snippet.id, prior: prior) { try Store.mergeBody(snippet) }
    }

    public func deleteSnippet(_ id: UUID) throws {
        try db.run("DELETE FROM snippets WHERE id = ?", [.text(id.storeText)])
        try stampDelete(.snippet, id)
    }

    /// Everything cross-record that is wrong (cycles, dangling references), for `sshelf check`.
    public func problems() throws -> [ModelProblem] {
        try read { store in
            ModelCheck.problems(
                groups: try store.groups(), hosts: try store.hosts(), identities: try store.identities(),
                rules: try store.forwardRules())
        }
    }
}

// SQLite: the store's face of the shared SQLite wrapper (ShelfSQLite) — the same `db.query` / `db.run` calls,
// with every SQLite failure turned into a StoreError whose kind and hint speak of the store.
import FoundationEssentials
import ShelfCore
import ShelfSQLite

public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case corrupt, foreign, newerFormat, permissions, busy, io, constraint, other
    }
    public var kind: Kind
    public var message: String
    public var hint: String?
    public var description: String { message }

    public init(kind: Kind, message: String, hint: String?) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    /// SQLite's failure in the store's words.
    init(_ error: SQLiteError) {
        let detail = "\(error.context): \(error.message)"
        switch error.kind {
        case .corrupt:
            self.init(
                kind: .corrupt,
                message: "\(error.context): the file is damaged or not an sshelf store (\(error.message))",
                hint: "sshelf will not overwrite it; move it aside to start afresh, or restore a backup")
        case .busy:
            self.init(
                kind: .busy, message: "\(error.context): the store is locked by another process (\(error.message))",
                hint: "another sshelf is writing; try again")
        case .permissions:
            self.init(
                kind: .permissions, message: detail,
                hint: "check that the file and its folder belong to you and are writable")
        case .io:
            self.init(kind: .io, message: detail, hint: "check free disk space and the disk's health")
        case .constraint:
            self.init(kind: .constraint, message: detail, hint: nil)
        case .other:
            self.init(kind: .other, message: detail, hint: nil)
        }
    }
}

typealias Statement = SQLiteStatement
typealias SQLValue = SQLiteValue
typealias SQLitePackedRows = ShelfSQLite.SQLitePackedRows

extension SQLiteValue {
    static func optional(_ id: UUID?) -> SQLiteValue { id.map { .text($0.storeText) } ?? .null }
    static func optional(_ date: Date?) -> SQLiteValue { date.map { .double($0.timeIntervalSince1970) } ?? .null }
}

extension SQLiteStatement {
    /// A UUID column, parsed from its bytes (Foundation's parser goes through sscanf, whose first call alone cost a
    /// `sshelf list` a tenth of its instructions).
    func uuid(_ column: Int32) -> UUID? { isNull(column) ? nil : HostTableBuilder.parseUUID(bytes(column)) }
    func date(_ column: Int32) -> Date { Date(timeIntervalSince1970: double(column)) }
    func optionalDate(_ column: Int32) -> Date? { isNull(column) ? nil : date(column) }
}

/// The store's connection: each call forwards to ShelfSQLite and rethrows its error as a StoreError.
final class Database {
    let connection: SQLiteDatabase

    init(path: String) throws(StoreError) {
        do { connection = try SQLiteDatabase(path: path) } catch { throw StoreError(error) }
    }

    private func mapped<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw StoreError(error) }
    }

    var isInTransaction: Bool { connection.isInTransaction }
    var changes: Int { connection.changes }
    var totalChanges: Int { connection.totalChanges }
    func setBusyTimeout(milliseconds: Int32) { connection.setBusyTimeout(milliseconds: milliseconds) }

    func execute(_ sql: String) throws(StoreError) {
        try mapped { () throws(SQLiteError) in try connection.execute(sql) }
    }
    func scalarInt(_ sql: String) throws(StoreError) -> Int {
        try mapped { () throws(SQLiteError) in try connection.scalarInt(sql) }
    }
    func prepare(_ sql: String) throws(StoreError) -> Statement {
        try mapped { () throws(SQLiteError) in try connection.prepare(sql) }
    }
    func cached(_ sql: String) throws(StoreError) -> Statement {
        try mapped { () throws(SQLiteError) in try connection.cached(sql) }
    }
    func run(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) {
        try mapped { () throws(SQLiteError) in try connection.run(sql, bindings) }
    }

    /// Runs a prepared statement once for each packed row (bulk inserts: the texts bound where they lie in the pack).
    func runEach(_ statement: Statement, _ rows: SQLitePackedRows) throws(StoreError) {
        try mapped { () throws(SQLiteError) in try statement.runEach(rows) }
    }

    /// Runs one statement with bindings and returns every row; `row` may throw errors of its own.
    func query<T>(_ sql: String, _ bindings: [SQLValue] = [], row: (Statement) throws -> T) throws -> [T] {
        do { return try connection.query(sql, bindings, row: row) } catch let error as SQLiteError {
            throw StoreError(error)
        }
    }
}

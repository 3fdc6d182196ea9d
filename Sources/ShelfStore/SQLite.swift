// SQLite: a small wrapper over the C API — one connection, prepared statements, and one error-checking path
// that turns every result code into a StoreError with SQLite's own message.
import CSQLite
import Foundation

public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case corrupt, foreign, newerFormat, permissions, busy, io, constraint, other }
    public var kind: Kind
    public var message: String
    public var hint: String?
    public var description: String { message }
}

// SQLITE_TRANSIENT tells SQLite to copy bound text; the macro is a cast Swift cannot import.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

final class Database {
    private(set) var handle: OpaquePointer?
    let path: String
    /// Prepared statements by SQL text: imports and lookups run the same few statements thousands of times.
    private var cache: [String: Statement] = [:]

    init(path: String, readOnly: Bool = false) throws(StoreError) {
        self.path = path
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        if rc != SQLITE_OK {
            let error = Database.error(rc, handle, context: "open \(path)")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    static func error(_ rc: Int32, _ handle: OpaquePointer?, context: String) -> StoreError {
        let detail = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        switch rc & 0xff {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return StoreError(kind: .corrupt, message: "\(context): the file is damaged or not an sshelf store (\(detail))",
                              hint: "sshelf will not overwrite it; move it aside to start afresh, or restore a backup")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError(kind: .busy, message: "\(context): the store is locked by another process (\(detail))",
                              hint: "another sshelf is writing; try again")
        case SQLITE_PERM, SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_AUTH:
            return StoreError(kind: .permissions, message: "\(context): \(detail)",
                              hint: "check that the file and its folder belong to you and are writable")
        case SQLITE_IOERR, SQLITE_FULL:
            return StoreError(kind: .io, message: "\(context): \(detail)", hint: "check free disk space and the disk's health")
        case SQLITE_CONSTRAINT:
            return StoreError(kind: .constraint, message: "\(context): \(detail)", hint: nil)
        default:
            return StoreError(kind: .other, message: "\(context): \(detail)", hint: nil)
        }
    }

    func check(_ rc: Int32, _ context: @autoclosure () -> String) throws(StoreError) {
        guard rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE else {
            throw Database.error(rc, handle, context: context())
        }
    }

    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>? = nil
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        sqlite3_free(message)
        try check(rc, "run \(sql.prefix(60))")
    }

    func prepare(_ sql: String) throws(StoreError) -> Statement {
        StoreCounters.shared.countPrepare()
        var statement: OpaquePointer? = nil
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), "prepare \(sql.prefix(60))")
        return Statement(statement, database: self)
    }

    /// A prepared statement reused across calls; callers step it to completion before the next use.
    func cached(_ sql: String) throws(StoreError) -> Statement {
        if let statement = cache[sql] { return statement }
        if cache.count >= 64 { cache.removeAll() }  // searches build varying SQL; keep the cache bounded
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// Runs one statement with bindings and returns every row.
    func query<T>(_ sql: String, _ bindings: [SQLValue] = [], row: (Statement) throws -> T) throws -> [T] {
        let statement = try cached(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    func run(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) {
        let statement = try cached(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() {}
    }

    func scalarInt(_ sql: String) throws(StoreError) -> Int {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int(0) : 0
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
}

enum SQLValue {
    case null
    case int(Int)
    case double(Double)
    case text(String)

    static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    static func optional(_ id: UUID?) -> SQLValue { id.map { .text($0.storeText) } ?? .null }
    static func optional(_ date: Date?) -> SQLValue { date.map { .double($0.timeIntervalSince1970) } ?? .null }
}

final class Statement {
    let handle: OpaquePointer?
    // Unowned: the database caches its statements, and a strong reference back would keep it from closing
    // (and from checkpointing its WAL) at exit.
    private unowned let database: Database

    init(_ handle: OpaquePointer?, database: Database) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLValue]) throws(StoreError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .int(let v): rc = sqlite3_bind_int64(handle, index, Int64(v))
            case .double(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(var v):
                // The bytes with their length: no C-string bridge and no strlen for every parameter.
                rc = v.withUTF8 { bytes in
                    bytes.isEmpty ? sqlite3_bind_text(handle, index, "", 0, transient)
                        : sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
                }
            }
            try database.check(rc, "bind parameter \(index)")
        }
    }

    /// Advances; true while there is a row.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw Database.error(rc, database.handle, context: "query the store")
    }

    /// Releases the statement's read lock and bound text until its next use.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    func uuid(_ column: Int32) -> UUID? { isNull(column) ? nil : UUID(uuidString: text(column)) }
    func date(_ column: Int32) -> Date { Date(timeIntervalSince1970: double(column)) }
    func optionalDate(_ column: Int32) -> Date? { isNull(column) ? nil : date(column) }
}

extension UUID {
    /// Lower-case text form used in the store and in reference keys (written directly: Foundation's
    /// `uuidString` formats through printf, which an import of 100,000 hosts pays four times per host).
    var storeText: String {
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

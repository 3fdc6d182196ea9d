// SQLiteDatabase: the one wrapper over SQLite's C API, used by the store and the vault — one connection,
// prepared statements (cached by SQL text), values in and out, and one error path that turns every result
// code into a SQLiteError with a kind and SQLite's own message. Nothing else in sshelf imports CSQLite.
import CSQLite
import ShelfSystem

public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case corrupt, busy, permissions, io, constraint, other }
    public var kind: Kind
    /// SQLite's extended result code.
    public var code: Int32
    /// SQLite's own words for it.
    public var message: String
    /// What we were doing ("open /path", "prepare SELECT …").
    public var context: String

    public var description: String { "\(context): \(message)" }
    public var isBusy: Bool { kind == .busy }
    public var isCorrupt: Bool { kind == .corrupt }

    init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
        switch code & 0xff {
        case SQLITE_NOTADB, SQLITE_CORRUPT: kind = .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_PERM, SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_AUTH: kind = .permissions
        case SQLITE_IOERR, SQLITE_FULL: kind = .io
        case SQLITE_CONSTRAINT: kind = .constraint
        default: kind = .other
        }
    }
}

public enum SQLiteValue: Sendable, Equatable {
    case null
    case int(Int)
    case double(Double)
    case text(String)
    case blob([UInt8])

    public static func optional(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }

    public var int: Int? { if case .int(let v) = self { v } else { nil } }
    public var text: String? { if case .text(let v) = self { v } else { nil } }
    public var blob: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
}

// SQLITE_TRANSIENT tells SQLite to copy bound values; the macro is a cast Swift cannot import.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

public final class SQLiteDatabase {
    /// SQLite's process-wide set-up, once, before the first connection: no memory statistics (see CSQLite/shim.h).
    private static let configured: Void = { _ = sshelf_sqlite_no_memory_statistics() }()

    /// The memory SQLite counts as in use by this process: 0 while it keeps no statistics (as sshelf configures it).
    public static func memoryCounted() -> Int64 {
        var current: Int64 = 0
        var highest: Int64 = 0
        guard sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highest, 0) == SQLITE_OK else { return -1 }
        return current
    }

    private var handle: OpaquePointer?
    public let path: String
    /// Prepared statements by SQL text: imports and lookups run the same few statements thousands of times.
    private var cache: [String: SQLiteStatement] = [:]
    /// One thread at a time in this connection (see SQLiteConnectionLock).
    let lock = SQLiteConnectionLock()

    /// Opens `path` (never through a symbolic link). `create` makes a missing file; callers that care about
    /// the new file's mode create it themselves first (PrivateFiles.ensureFile).
    public init(path: String, create: Bool = false, readOnly: Bool = false) throws(SQLiteError) {
        self.path = path
        // A FIFO opened read-write does not block, but SQLite's first read of it would, forever.
        do { try RegularFile.check(path, followLinks: false) } catch {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: error.description, context: "open \(path)")
        }
        Self.configured
        var flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        if rc != SQLITE_OK {
            let error = SQLiteError(code: rc, message: Self.message(rc, handle), context: "open \(path)")
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

    private static func message(_ rc: Int32, _ handle: OpaquePointer?) -> String {
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
    }

    func check(_ rc: Int32, _ context: @autoclosure () -> String) throws(SQLiteError) {
        guard rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE else {
            throw SQLiteError(code: rc, message: Self.message(rc, handle), context: context())
        }
    }

    /// Waits up to `milliseconds` for another connection's lock before a statement fails as busy.
    public func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    /// True inside BEGIN … COMMIT (SQLite's autocommit is off).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// Rows changed by this connection since it opened (a transaction that changed nothing leaves it as it was).
    public var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    /// Runs one or more statements that return nothing (schema, pragmas, BEGIN/COMMIT).
    /// Runs `body` with this connection to itself: another thread's call waits until it returns. A transaction
    /// (BEGIN … COMMIT) runs inside one, so no other thread's statement lands in it.
    public func exclusive<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.holding(body)
    }

    public func execute(_ sql: String) throws(SQLiteError) {
        try lock.holding { () throws(SQLiteError) in
            var message: UnsafeMutablePointer<CChar>? = nil
            let rc = sqlite3_exec(handle, sql, nil, nil, &message)
            sqlite3_free(message)
            try check(rc, "run \(sql.prefix(60))")
        }
    }

    /// A statement whose rows are read by the thread that steps it.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try lock.holding { () throws(SQLiteError) in
            SQLiteCounters.countPrepare()
            var statement: OpaquePointer? = nil
            try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), "prepare \(sql.prefix(60))")
            return SQLiteStatement(statement, database: self)
        }
    }

    /// A prepared statement reused across calls; callers step it to completion before the next use.
    public func cached(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try lock.holding { () throws(SQLiteError) in
            if let statement = cache[sql] { return statement }
            if cache.count >= 64 { cache.removeAll() }  // searches build varying SQL; keep the cache bounded
            let statement = try prepare(sql)
            cache[sql] = statement
            return statement
        }
    }

    /// Runs one statement with bindings and returns every row as `row` reads it.
    public func query<T>(_ sql: String, _ bindings: [SQLiteValue] = [], row: (SQLiteStatement) throws -> T) throws
        -> [T]
    {
        try lock.holding {
            let statement = try cached(sql)
            defer { statement.reset() }
            try statement.bind(bindings)
            var rows: [T] = []
            while try statement.step() { rows.append(try row(statement)) }
            return rows
        }
    }

    /// Runs one statement with bindings and returns every row as its column values.
    public func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        try lock.holding { () throws(SQLiteError) in
            let statement = try cached(sql)
            defer { statement.reset() }
            try statement.bind(bindings)
            var rows: [[SQLiteValue]] = []
            while try statement.step() { rows.append(statement.values()) }
            return rows
        }
    }

    /// Runs one statement with bindings, ignoring any rows.
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) {
        try lock.holding { () throws(SQLiteError) in
            let statement = try cached(sql)
            defer { statement.reset() }
            try statement.bind(bindings)
            while try statement.step() {}
        }
    }

    /// The first column of the first row as an integer (0 when there is no row).
    public func scalarInt(_ sql: String) throws(SQLiteError) -> Int {
        try lock.holding { () throws(SQLiteError) in
            let statement = try cached(sql)
            defer { statement.reset() }
            return try statement.step() ? statement.int(0) : 0
        }
    }
}

public final class SQLiteStatement {
    private let handle: OpaquePointer?
    // Unowned: the database caches its statements, and a strong reference back would keep it from closing
    // (and from checkpointing its WAL) at exit.
    private unowned let database: SQLiteDatabase

    init(_ handle: OpaquePointer?, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        try database.lock.holding { () throws(SQLiteError) in
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            for (offset, value) in values.enumerated() { try bindOne(value, Int32(offset + 1)) }
        }
    }

    /// Runs the statement once for each packed row, to its end, for bulk inserts: texts and blobs are bound where
    /// they lie in the pack (SQLITE_STATIC: SQLite neither copies them nor frees them), and the bindings are cleared
    /// before this returns, so nothing points into the pack afterwards.
    public func runEach(_ rows: SQLitePackedRows) throws(SQLiteError) {
        try database.lock.holding { () throws(SQLiteError) in try bindAndRunEach(rows) }
    }

    private func bindAndRunEach(_ rows: SQLitePackedRows) throws(SQLiteError) {
        guard rows.count > 0 else { return }
        sqlite3_reset(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        let columns = rows.columns
        let database = self.database  // once, not an unowned reference taken per value
        let result = rows.bytes.withUnsafeBufferPointer { bytes in
            rows.values.withUnsafeBufferPointer { values in
                Result { () throws(SQLiteError) in
                    let base = UnsafeRawPointer(bytes.baseAddress)
                    for row in 0..<rows.count {
                        for column in 0..<columns {
                            let value = values[row * columns + column]
                            let index = Int32(column + 1)
                            let rc: Int32
                            switch value.kind {
                            case .null: rc = sqlite3_bind_null(handle, index)
                            case .int: rc = sqlite3_bind_int64(handle, index, value.number)
                            case .double:
                                rc = sqlite3_bind_double(
                                    handle, index, Double(bitPattern: UInt64(bitPattern: value.number)))
                            case .text where value.count == 0, .blob where value.count == 0:
                                // No bytes, but a pointer all the same: a NULL one would bind SQL NULL.
                                rc =
                                    value.kind == .text
                                    ? sqlite3_bind_text(handle, index, "", 0, transient)
                                    : sqlite3_bind_zeroblob(handle, index, 0)
                            case .text:
                                let start = base.map { ($0 + value.offset).assumingMemoryBound(to: CChar.self) }
                                rc = sqlite3_bind_text(handle, index, start, Int32(value.count), nil)
                            case .blob:
                                rc = sqlite3_bind_blob(
                                    handle, index, base.map { $0 + value.offset }, Int32(value.count), nil)
                            }
                            try database.check(rc, "bind parameter \(index)")
                        }
                        while try step() {}
                        sqlite3_reset(handle)
                    }
                }
            }
        }
        try result.get()
    }

    private func bindOne(_ value: SQLiteValue, _ index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .int(let v): rc = sqlite3_bind_int64(handle, index, Int64(v))
        case .double(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(var v):
            // The bytes with their length: no C-string bridge and no strlen for every parameter.
            rc = v.withUTF8 { bytes in
                bytes.isEmpty
                    ? sqlite3_bind_text(handle, index, "", 0, transient)
                    : sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        case .blob(let v): rc = sqlite3_bind_blob(handle, index, v, Int32(v.count), transient)
        }
        try database.check(rc, "bind parameter \(index)")
    }

    /// Advances; true while there is a row.
    public func step() throws(SQLiteError) -> Bool {
        let rc = database.lock.holding { sqlite3_step(handle) }
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        try database.check(rc, "query \(database.path)")
        return false
    }

    /// Releases the statement's read lock and bound values until its next use.
    public func reset() {
        database.lock.holding {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
    }

    public var columnCount: Int32 { sqlite3_column_count(handle) }
    /// A result column's name as the statement gives it (its `AS` name, else the column's).
    public func columnName(_ column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer = sqlite3_column_blob(handle, column), count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    public func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    /// A text column's bytes without making a String, valid until the next step or reset (bulk loads).
    public func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_text(handle, column) else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(start: pointer, count: count)
    }

    /// The current row, each column as the type SQLite stored it with.
    public func values() -> [SQLiteValue] {
        (0..<columnCount).map { column in
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: .int(int(column))
            case SQLITE_FLOAT: .double(double(column))
            case SQLITE_TEXT: .text(text(column))
            case SQLITE_BLOB: .blob(blob(column))
            default: .null
            }
        }
    }
}

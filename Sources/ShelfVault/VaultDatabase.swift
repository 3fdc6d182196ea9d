// VaultDatabase: the vault's own small SQLite wrapper (blobs, text, integers; one error path). Kept apart from
// ShelfStore so the vault file has no code path in common with the config store.
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

// SQLITE_TRANSIENT makes SQLite copy bound values; the macro is a cast Swift cannot import.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

struct DatabaseError: Error, Sendable {
    var code: Int32
    var message: String
    var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
    var isCorrupt: Bool { code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB }
}

enum DatabaseValue {
    case null
    case int(Int64)
    case text(String)
    case blob([UInt8])
}

final class VaultDatabase {
    private var handle: OpaquePointer?

    init(path: String) throws(DatabaseError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        if rc != SQLITE_OK {
            let error = DatabaseError(code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "open failed")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    private func check(_ rc: Int32) throws(DatabaseError) {
        guard rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE else {
            throw DatabaseError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
        }
    }

    func execute(_ sql: String) throws(DatabaseError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    /// Runs one statement and returns its rows as arrays of values.
    @discardableResult
    func query(_ sql: String, _ bindings: [DatabaseValue] = []) throws(DatabaseError) -> [[DatabaseValue]] {
        var statement: OpaquePointer? = nil
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        defer { sqlite3_finalize(statement) }
        for (offset, value) in bindings.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: try check(sqlite3_bind_null(statement, index))
            case .int(let v): try check(sqlite3_bind_int64(statement, index, v))
            case .text(let v): try check(sqlite3_bind_text(statement, index, v, -1, transient))
            case .blob(let v): try check(sqlite3_bind_blob(statement, index, v, Int32(v.count), transient))
            }
        }
        var rows: [[DatabaseValue]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { try check(rc); break }
            var row: [DatabaseValue] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(statement, column)))
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    let text = sqlite3_column_text(statement, column).map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                    }
                    row.append(.text(text ?? ""))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    let bytes = sqlite3_column_blob(statement, column).map {
                        Array(UnsafeRawBufferPointer(start: $0, count: count))
                    }
                    row.append(.blob(bytes ?? []))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// BEGIN IMMEDIATE takes the write lock up front, so two writers queue on the busy timeout instead of
    /// failing halfway; anything thrown rolls back.
    /// `killBeforeCommit` (tests only) delivers a real SIGKILL with the transaction written but not committed,
    /// so the crash-safety test does not depend on timing.
    func writeTransaction<T>(killBeforeCommit: Bool = false, _ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            if killBeforeCommit { kill(getpid(), SIGKILL) }
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

extension DatabaseValue {
    var text: String? { if case .text(let v) = self { v } else { nil } }
    var blob: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
    var int: Int64? { if case .int(let v) = self { v } else { nil } }
}

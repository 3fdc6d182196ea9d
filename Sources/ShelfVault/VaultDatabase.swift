// VaultDatabase: the vault's face of the shared SQLite wrapper (ShelfSQLite) — rows as arrays of values
// (blobs, text, 64-bit integers) and write transactions that take the lock up front.
import ShelfSQLite
#if canImport(Glibc)
import Glibc
#endif

/// SQLite's failure as the vault sees it (kind, code, message); VaultError.database puts it in words.
typealias DatabaseError = SQLiteError

enum DatabaseValue {
    case null
    case int(Int64)
    /// Item times, seconds with their fraction.
    case real(Double)
    case text(String)
    case blob([UInt8])

    init(_ value: SQLiteValue) {
        switch value {
        case .null: self = .null
        case .int(let v): self = .int(Int64(v))
        case .double(let v): self = .real(v)
        case .text(let v): self = .text(v)
        case .blob(let v): self = .blob(v)
        }
    }

    var sqlite: SQLiteValue {
        switch self {
        case .null: .null
        case .int(let v): .int(Int(v))
        case .real(let v): .double(v)
        case .text(let v): .text(v)
        case .blob(let v): .blob(v)
        }
    }
}

final class VaultDatabase {
    private let connection: SQLiteDatabase

    /// The file is created (0600, by the caller) before this opens it; SQLite may still create it when asked.
    init(path: String) throws(DatabaseError) {
        connection = try SQLiteDatabase(path: path, create: true)
    }

    func execute(_ sql: String) throws(DatabaseError) {
        try connection.execute(sql)
    }

    /// Runs one statement and returns its rows as arrays of values.
    @discardableResult
    func query(_ sql: String, _ bindings: [DatabaseValue] = []) throws(DatabaseError) -> [[DatabaseValue]] {
        try connection.rows(sql, bindings.map(\.sqlite)).map { $0.map(DatabaseValue.init) }
    }

    /// BEGIN IMMEDIATE takes the write lock up front, so two writers queue on the busy timeout instead of
    /// failing halfway; anything thrown rolls back.
    /// `killBeforeCommit` (tests only) delivers a real SIGKILL with the transaction written but not committed,
    /// so the crash-safety test does not depend on timing.
    func writeTransaction<T>(killBeforeCommit: Bool = false, _ body: () throws -> T) throws -> T {
        // Another thread's call waits until COMMIT instead of landing inside this transaction.
        try connection.exclusive { try writeHolding(killBeforeCommit: killBeforeCommit, body) }
    }

    private func writeHolding<T>(killBeforeCommit: Bool, _ body: () throws -> T) throws -> T {
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

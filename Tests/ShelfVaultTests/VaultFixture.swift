// VaultFixture: a throwaway SSHELF_HOME with a real vault file, and raw SQLite access to that file so tests
// can read (and tamper with) exactly what is on disk.
import CSQLite
import Foundation
import ShelfCore
import ShelfVault
import TestSupport
import XCTest

final class VaultFixture {
    let home = TempHome()
    var locations: DataLocations { DataLocations.resolve(environment: ["SSHELF_HOME": home.sshelfHome]) }
    let warnings = Warnings()

    final class Warnings: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// Off unless a test is about the keyring: class keys cached by tests would outlive their temporary vaults.
    func options(keyring: Bool = false) -> VaultOptions {
        let warnings = self.warnings
        return VaultOptions(useKernelKeyring: keyring, minimumStretch: true, warn: { warnings.add($0) })
    }

    /// A new Vault object: as far as unlock state goes, a fresh process (kernel keyring aside).
    func open(keyring: Bool = false, create: Bool = true) throws -> Vault {
        try Vault.open(locations, options: options(keyring: keyring), createIfMissing: create)
    }

    /// CLI environment for the same home (weak Argon2id so tests stay quick; no kernel keyring unless `keyring`).
    func cli(_ arguments: [String], stdin: String? = nil, umask: mode_t? = nil, keyring: Bool = false,
             extra: [String: String] = [:]) throws -> CLIResult {
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": keyring ? "0" : "1"]
            .merging(extra) { $1 }
        return try home.run(arguments, stdin: stdin, umask: umask)
    }

    // MARK: the file itself

    func rows(_ sql: String) -> [[String]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(locations.vault, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var result: [[String]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
            })
        }
        return result
    }

    func blob(_ sql: String) -> [UInt8] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(locations.vault, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let pointer = sqlite3_column_blob(statement, 0) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, 0))))
    }

    /// Runs one statement against the file with an optional blob parameter (the tampering tool).
    func tamper(_ sql: String, blob: [UInt8]? = nil) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(locations.vault, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { return XCTFail("open") }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, sql, -1, &statement, nil), SQLITE_OK, sql)
        defer { sqlite3_finalize(statement) }
        if let blob {
            sqlite3_bind_blob(statement, 1, blob, Int32(blob.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
        XCTAssertEqual(sqlite3_step(statement), SQLITE_DONE, sql)
    }

    func classOf(_ key: ReferenceKey) -> String? { rows("SELECT class FROM items WHERE key = '\(key.rawValue)'").first?.first }
}

func secret(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

func text(_ lookup: CredentialLookup) -> String? {
    lookup.secret.map { value in value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}

extension CredentialLookup {
    var isNotStored: Bool { if case .notStored = self { true } else { false } }
    var isLocked: Bool { if case .locked = self { true } else { false } }
    var isUnavailable: Bool { if case .vaultUnavailable = self { true } else { false } }
}

// VaultFixture: a throwaway SSHELF_HOME with a real vault file, and raw SQLite access to that file so tests
// can read (and tamper with) exactly what is on disk.
import Foundation
import ShelfCore
import ShelfSQLite
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
    func cli(
        _ arguments: [String], stdin: String? = nil, umask: mode_t? = nil, keyring: Bool = false,
        extra: [String: String] = [:]
    ) throws -> CLIResult {
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": keyring ? "0" : "1"]
            .merging(extra) { $1 }
        return try home.run(arguments, stdin: stdin, umask: umask)
    }

    // MARK: the file itself

    func rows(_ sql: String) -> [[String]] {
        guard let db = try? SQLiteDatabase(path: locations.vault, readOnly: true), let rows = try? db.rows(sql) else {
            return []
        }
        return rows.map { row in
            row.map { value in
                switch value {
                case .null: ""
                case .int(let v): String(v)
                case .double(let v): String(v)
                case .text(let v): v
                case .blob(let v): String(decoding: v.prefix { $0 != 0 }, as: UTF8.self)
                }
            }
        }
    }

    func blob(_ sql: String) -> [UInt8] {
        guard let db = try? SQLiteDatabase(path: locations.vault, readOnly: true) else { return [] }
        return (try? db.rows(sql).first?.first?.blob) ?? []
    }

    /// Runs one statement against the file with an optional blob parameter (the tampering tool).
    func tamper(_ sql: String, blob: [UInt8]? = nil) {
        do {
            let db = try SQLiteDatabase(path: locations.vault)
            try db.run(sql, blob.map { [.blob($0)] } ?? [])
        } catch {
            XCTFail("\(sql): \(error)")
        }
    }

    func classOf(_ key: ReferenceKey) -> String? {
        rows("SELECT class FROM items WHERE key = '\(key.rawValue)'").first?.first
    }
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

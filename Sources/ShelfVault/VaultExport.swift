// VaultExport: `vault export` / `vault import` — items of classes that may leave the device, sealed under an
// export passphrase (Argon2id + XChaCha20-Poly1305). …ThisDeviceOnly items are never written to an export.
import FoundationEssentials
import ShelfCore

extension Vault {
    /// "sshelf-vault-export" v1; then opslimit, memlimit (big-endian u64), salt, and the sealed payload.
    static let exportMagic = Array("sshelf-vault-export\u{1}".utf8)

    /// Seals every exportable item; throws `.locked` when one of their classes is locked. Returns the file's
    /// bytes and how many items it holds.
    /// Every item that leaves is a release: one line each in `log` (by "vault export", to `destination`), written
    /// before the export is handed back; when the log cannot be written, nothing is exported.
    public func export(passphrase: SecretBytes, log: ReleaseLog, destination: String) throws(VaultError)
        -> ExportedVault
    {
        guard !passphrase.isEmpty else { throw VaultError(.invalid, "the export passphrase is empty") }
        let exported = try sealExport(passphrase)
        for key in exported.keys {
            let what = ReferenceKey(key).map(ReleaseEntry.what) ?? "vault item"
            do {
                try record(
                    ReleaseEntry(what: what, item: key, by: "vault export", detail: "to \(destination)"), log: log)
            } catch {
                throw VaultError(
                    .unavailable, "nothing was exported: the release log could not be written (\(error.message))",
                    hint: error.hint)
            }
        }
        return exported
    }

    private func sealExport(_ passphrase: SecretBytes) throws(VaultError) -> ExportedVault {
        let stretch = options.minimumStretch ? Sodium.StretchParameters.minimum() : .moderate()
        let key = try stretchOutsideMutex(passphrase, stretch)
        return try run("export the vault") {
            var parts: [SecretBytes] = []
            var keys: [String] = []
            for row in try db.query("SELECT key, class FROM items ORDER BY key") {
                guard let key = row[0].text, let name = row[1].text,
                    let accessibility = AccessibilityClass(rawValue: name),
                    accessibility.mayLeaveDevice, !accessibility.isRefusedOnWrite
                else { continue }
                switch try readHoldingMutex(key, accessibility) {
                case .found(let value):
                    parts.append(Self.record(key: key, accessibility: accessibility, value: value))
                    keys.append(key)
                case .locked:
                    throw VaultError(
                        .locked, "the vault is locked for \(accessibility) items", hint: "enter the vault passphrase")
                default:
                    throw VaultError(.unavailable, "\(key) cannot be read, so the export would be incomplete")
                }
            }
            let header = Self.exportHeader(stretch)
            return ExportedVault(
                file: header + Sodium.seal(SecretBytes.joined(parts), key: key, associatedData: header), keys: keys)
        }
    }

    /// Restores an export in one transaction (all items or none). Returns how many items were stored.
    @discardableResult
    public func importExport(_ file: [UInt8], passphrase: SecretBytes) throws(VaultError) -> Int {
        let headerLength = Self.exportMagic.count + 16 + Sodium.StretchParameters.saltLength
        guard file.count > headerLength, Array(file[..<Self.exportMagic.count]) == Self.exportMagic else {
            throw VaultError(.invalid, "not an sshelf vault export")
        }
        var offset = Self.exportMagic.count
        func u64() -> UInt64 {
            defer { offset += 8 }
            return file[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let ops = u64(), mem = u64()
        let stretch = Sodium.StretchParameters(
            opsLimit: ops, memLimit: mem,
            salt: Array(file[offset..<offset + Sodium.StretchParameters.saltLength]))
        guard let key = Sodium.stretch(passphrase, stretch) else {
            throw VaultError(.invalid, "the export file's parameters are unusable")
        }
        let header = Array(file[..<headerLength])
        guard let payload = Sodium.open(Array(file[headerLength...]), key: key, associatedData: header) else {
            throw VaultError(.wrongPassphrase, "the export passphrase is not correct, or the file was altered")
        }
        let records = try Self.parseRecords(payload)
        try writeBatch(records)
        return records.count
    }

    /// Seals and stores several items in one write transaction.
    func writeBatch(_ records: [(key: String, accessibility: AccessibilityClass, value: SecretBytes)])
        throws(VaultError)
    {
        try run("import into the vault") {
            var sealed: [(String, AccessibilityClass, [UInt8])] = []
            for record in records {
                guard ReferenceKey(record.key) != nil else {
                    throw VaultError(.invalid, "the export holds a malformed key")
                }
                guard record.accessibility.mayLeaveDevice, !record.accessibility.isRefusedOnWrite else {
                    throw VaultError(
                        .refusedClass,
                        "the export holds \(record.key) as '\(record.accessibility)', which sshelf does not import")
                }
                guard case .key(let classKey) = try classKey(record.accessibility) else {
                    throw VaultError(
                        .locked, "the vault is locked for \(record.accessibility) items",
                        hint: "enter the vault passphrase")
                }
                sealed.append(
                    (
                        record.key, record.accessibility,
                        Sodium.seal(
                            record.value, key: classKey,
                            associatedData:
                                VaultFormat.itemData(
                                    vaultID: vaultID, key: record.key, accessibility: record.accessibility.rawValue))
                    ))
            }
            let now = self.now.timeIntervalSince1970
            try db.writeTransaction(killBeforeCommit: options.killBeforeCommitForTests) {
                for (key, accessibility, blob) in sealed {
                    try db.query(
                        """
                        INSERT OR REPLACE INTO items(key, family, class, format, sealed, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(key), .text(VaultFormat.family(ofKey: key)), .text(accessibility.rawValue),
                            .int(VaultFormat.version), .blob(blob), .real(now),
                        ])
                }
            }
        }
    }

    private static func exportHeader(_ stretch: Sodium.StretchParameters) -> [UInt8] {
        var header = exportMagic
        withUnsafeBytes(of: stretch.opsLimit.bigEndian) { header += $0 }
        withUnsafeBytes(of: stretch.memLimit.bigEndian) { header += $0 }
        return header + stretch.salt
    }

    /// u16 key length, key, u8 class length, class, u32 value length, value (all big-endian).
    private static func record(key: String, accessibility: AccessibilityClass, value: SecretBytes) -> SecretBytes {
        var head: [UInt8] = []
        let keyBytes = Array(key.utf8), classBytes = Array(accessibility.rawValue.utf8)
        withUnsafeBytes(of: UInt16(keyBytes.count).bigEndian) { head += $0 }
        head += keyBytes
        head.append(UInt8(classBytes.count))
        head += classBytes
        withUnsafeBytes(of: UInt32(value.count).bigEndian) { head += $0 }
        return SecretBytes.joined([SecretBytes(head), value])
    }

    /// Bounds-checked reader for the payload; any overrun means a malformed (but authentic) export.
    private static func parseRecords(_ payload: SecretBytes) throws(VaultError)
        -> [(key: String, accessibility: AccessibilityClass, value: SecretBytes)]
    {
        let malformed = VaultError(.invalid, "the export file is malformed")
        return try payload.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(VaultError) in
            var records: [(key: String, accessibility: AccessibilityClass, value: SecretBytes)] = []
            var offset = 0
            func take(_ count: Int) throws(VaultError) -> UnsafeRawBufferPointer {
                guard count >= 0, offset + count <= bytes.count else { throw malformed }
                defer { offset += count }
                return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
            }
            func number(_ width: Int) throws(VaultError) -> Int {
                try take(width).reduce(0) { $0 << 8 | Int($1) }
            }
            while offset < bytes.count {
                let key = String(decoding: try take(try number(2)), as: UTF8.self)
                let name = String(decoding: try take(try number(1)), as: UTF8.self)
                guard let accessibility = AccessibilityClass(rawValue: name) else { throw malformed }
                let value = SecretBytes(copying: try take(try number(4)))
                records.append((key, accessibility, value))
            }
            return records
        }
    }
}

/// An export file and the items it holds (their keys, for the release log; never their values).
public struct ExportedVault: Sendable {
    public let file: [UInt8]
    public let keys: [String]
    public var count: Int { keys.count }
}

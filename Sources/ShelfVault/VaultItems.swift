// VaultItems: reading, writing, deleting and listing items. Every call names its accessibility class; reads
// never throw (a broken vault answers `vaultUnavailable` and warns), writes throw VaultError.
import FoundationEssentials
import ShelfCore

/// One row of `vault list`: what is stored and how — never the value.
public struct VaultItemInfo: Sendable, Equatable, Codable {
    public var key: String
    public var family: String
    public var accessibility: String
    public var updatedAt: Date

    /// Nil for a class this version does not know (an imported or newer vault).
    public var knownClass: AccessibilityClass? { AccessibilityClass(rawValue: accessibility) }
}

extension Vault {
    /// One read for code that has no Vault open: opens without creating, and maps "no vault on this device" to
    /// `.notStored` and any other failure to `.vaultUnavailable`. Never throws. Internal like `read`.
    static func lookup(
        _ key: ReferenceKey, class accessibility: AccessibilityClass, in locations: DataLocations,
        options: VaultOptions
    ) -> CredentialLookup {
        do {
            return try open(locations, options: options, createIfMissing: false).read(key, class: accessibility)
        } catch  where error.kind == .notInitialized {
            return .notStored
        } catch {
            options.warn("vault: \(error.message)")
            return .vaultUnavailable(reason: error.message)
        }
    }

    /// The raw read: the value, with no line in the release log. Internal to ShelfVault — callers outside use
    /// `release` (a secret sent to a host) or a call named for its use (`verify`, `sealForSync`, `syncDigest`,
    /// `holds`, `signingKey`); ArchitectureTests.VaultDoorTests holds it so.
    func read(_ key: ReferenceKey, class accessibility: AccessibilityClass) -> CredentialLookup {
        withMutex {
            do {
                return try readHoldingMutex(key.rawValue, accessibility)
            } catch {
                let reason =
                    (error as? DatabaseError).map { VaultError.database($0, "read \(key)").message } ?? "\(error)"
                options.warn("vault: \(reason); treating \(key) as not stored")
                return .vaultUnavailable(reason: reason)
            }
        }
    }

    func readHoldingMutex(_ key: String, _ accessibility: AccessibilityClass) throws -> CredentialLookup {
        guard let row = try db.query("SELECT class, format, sealed FROM items WHERE key = ?", [.text(key)]).first else {
            return .notStored
        }
        guard let storedName = row[0].text, let stored = AccessibilityClass(rawValue: storedName) else {
            return unavailable("\(key) is stored under a class this sshelf does not know")
        }
        if stored != accessibility { return .storedInOtherClass(stored) }
        guard row[1].int == VaultFormat.version, let sealed = row[2].blob else {
            return unavailable("\(key) is stored in an unknown format")
        }
        switch try classKey(accessibility) {
        case .locked: return .locked
        case .missing: return unavailable("the \(accessibility) class key is missing from the vault file")
        case .damaged: return unavailable("the \(accessibility) class key failed its integrity check")
        case .key(let classKey):
            let data = VaultFormat.itemData(vaultID: vaultID, key: key, accessibility: accessibility.rawValue)
            guard let value = Sodium.open(sealed, key: classKey, associatedData: data) else {
                return unavailable("the stored value of \(key) failed its integrity check (altered or moved)")
            }
            return .found(value)
        }
    }

    private func unavailable(_ reason: String) -> CredentialLookup {
        options.warn("vault: \(reason)")
        return .vaultUnavailable(reason: reason)
    }

    /// Stores (or replaces) a secret under `key` in `accessibility`. Refuses the `always…` classes and
    /// whenPasscodeSetThisDeviceOnly without a passphrase; throws `.locked` when the class key is locked.
    public func write(_ secret: SecretBytes, for key: ReferenceKey, class accessibility: AccessibilityClass)
        throws(VaultError)
    {
        try writeRaw(secret, key: key.rawValue, accessibility)
    }

    /// `replacing: false` keeps a value another process stored first (two processes creating the same random key).
    func writeRaw(_ secret: SecretBytes, key: String, _ accessibility: AccessibilityClass, replacing: Bool = true)
        throws(VaultError)
    {
        if accessibility.isRefusedOnWrite {
            throw VaultError(
                .refusedClass,
                "refusing to store \(key) as '\(accessibility)': that class is readable by anyone holding the device "
                    + "key, with no passphrase, at any time",
                hint: "use whenUnlockedThisDeviceOnly (read when you connect) or afterFirstUnlockThisDeviceOnly (read "
                    + "by autostarted tunnels)")
        }
        try run("store \(key)") {
            if accessibility.needsPassphrase, try passphraseParameters() == nil {
                throw VaultError(
                    .refusedClass, "refusing to store \(key) as '\(accessibility)': the vault has no passphrase",
                    hint: "set one first with 'sshelf vault passwd'")
            }
            let classKey: SecretBytes
            switch try self.classKey(accessibility) {
            case .key(let key): classKey = key
            case .locked:
                throw VaultError(
                    .locked, "the vault is locked for \(accessibility) items", hint: "enter the vault passphrase")
            case .missing, .damaged:
                throw VaultError(.unavailable, "the \(accessibility) class key is missing or damaged")
            }
            let sealed = Sodium.seal(
                secret, key: classKey,
                associatedData: VaultFormat.itemData(
                    vaultID: vaultID, key: key, accessibility: accessibility.rawValue))
            try db.writeTransaction {
                // Re-checked inside the write lock: another process may have removed the passphrase meanwhile.
                guard
                    !(try db.query("SELECT 1 FROM class_keys WHERE class = ?", [.text(accessibility.rawValue)])).isEmpty
                else { throw VaultError(.refusedClass, "the \(accessibility) class no longer exists in the vault") }
                try db.query(
                    """
                    INSERT OR \(replacing ? "REPLACE" : "IGNORE") INTO items(key, family, class, format, sealed,
                    updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(key), .text(VaultFormat.family(ofKey: key)), .text(accessibility.rawValue),
                        .int(VaultFormat.version), .blob(sealed), .real(now.timeIntervalSince1970),
                    ])
            }
        }
    }

    /// Deletes `key` if it is stored in `accessibility`; returns whether something was deleted.
    @discardableResult
    public func delete(_ key: ReferenceKey, class accessibility: AccessibilityClass) throws(VaultError) -> Bool {
        try run("delete \(key)") {
            try db.writeTransaction { () throws -> Bool in
                try db.query(
                    "DELETE FROM items WHERE key = ? AND class = ?",
                    [.text(key.rawValue), .text(accessibility.rawValue)])
                return (try db.query("SELECT changes()").first?.first?.int ?? 0) > 0
            }
        }
    }

    /// Every item's key, family and class, sorted by key.
    public func items() throws(VaultError) -> [VaultItemInfo] {
        try run("list the vault") {
            try db.query("SELECT key, family, class, updated_at FROM items ORDER BY key").map { row in
                VaultItemInfo(
                    key: row[0].text ?? "", family: row[1].text ?? "", accessibility: row[2].text ?? "",
                    updatedAt: Date(timeIntervalSince1970: VaultClock.seconds(row[3])))
            }
        }
    }
}

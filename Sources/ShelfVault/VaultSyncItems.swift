// VaultSyncItems: what the credential track needs beyond plain reads and writes — storing an item that
// arrived from another device under its original time, and moving a device-only item into its syncable twin
// class. Every call still names the classes involved.
import FoundationEssentials
import ShelfCore

extension AccessibilityClass {
    /// The class a device-only class becomes when credential sync is on; nil when it has none (the passcode
    /// class never leaves, and the `always…` classes are never written).
    public var syncableTwin: AccessibilityClass? {
        switch self {
        case .whenUnlockedThisDeviceOnly: .whenUnlocked
        case .afterFirstUnlockThisDeviceOnly: .afterFirstUnlock
        default: nil
        }
    }
}

extension Vault {
    /// Writes a secret received from another device, keeping the time it was written there, so
    /// last-writer-wins compares the same instants on every device.
    public func writeSynced(
        _ secret: SecretBytes, for key: ReferenceKey, class accessibility: AccessibilityClass,
        updatedAt: Date
    ) throws(VaultError) {
        guard accessibility.mayLeaveDevice else {
            throw VaultError(
                .refusedClass,
                "refusing to store a synced item as '\(accessibility)': that class never leaves its device")
        }
        try write(secret, for: key, class: accessibility)
        _ = try run("date \(key)") {
            try db.query(
                "UPDATE items SET updated_at = ? WHERE key = ? AND class = ?",
                [.real(updatedAt.timeIntervalSince1970), .text(key.rawValue), .text(accessibility.rawValue)])
        }
    }

    /// Moves `key` from `from` to `to` (same secret, same time). Returns false when it is not stored in `from`.
    public func reclassify(_ key: ReferenceKey, from: AccessibilityClass, to: AccessibilityClass) throws(VaultError)
        -> Bool
    {
        let updated = try items().first { $0.key == key.rawValue && $0.accessibility == from.rawValue }?.updatedAt
        switch read(key, class: from) {
        case .found(let secret):
            try write(secret, for: key, class: to)
            if let updated {
                _ = try run("date \(key)") {
                    try db.query(
                        "UPDATE items SET updated_at = ? WHERE key = ? AND class = ?",
                        [.real(updated.timeIntervalSince1970), .text(key.rawValue), .text(to.rawValue)])
                }
            }
            return true
        case .locked:
            throw VaultError(.locked, "the vault is locked for \(from) items", hint: "enter the vault passphrase")
        case .notStored, .storedInOtherClass:
            return false
        case .vaultUnavailable(let reason):
            throw VaultError(.unavailable, reason)
        }
    }
}

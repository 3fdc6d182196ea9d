// VaultFormat: the vault file's schema and the associated data each sealed value is bound to (docs/VAULT.md).
// Changing anything here is a format change: bump `version` and add a migration.

enum VaultFormat {
    static let version: Int64 = 1

    static let schema = """
        CREATE TABLE IF NOT EXISTS vault_meta(name TEXT PRIMARY KEY, value BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS passphrase(
            id INTEGER PRIMARY KEY CHECK (id = 1), ops_limit INTEGER NOT NULL, mem_limit INTEGER NOT NULL,
            salt BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS class_keys(
            class TEXT PRIMARY KEY, layers TEXT NOT NULL, wrapped BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS items(
            key TEXT PRIMARY KEY, family TEXT NOT NULL, class TEXT NOT NULL, format INTEGER NOT NULL,
            sealed BLOB NOT NULL, updated_at INTEGER NOT NULL);
        """

    /// How a class key is wrapped: by the device key alone, or by the device key and then the passphrase key.
    enum Layers: String {
        case device
        case devicePassphrase = "device+passphrase"
    }

    private static func frame(_ label: String, _ vaultID: [UInt8], _ parts: [[UInt8]]) -> [UInt8] {
        var data = Array(label.utf8) + [0]
        withUnsafeBytes(of: UInt32(version).bigEndian) { data += $0 }
        data += vaultID
        for part in parts {
            withUnsafeBytes(of: UInt32(part.count).bigEndian) { data += $0 }
            data += part
        }
        return data
    }

    /// An item is bound to its vault, its key and its class: moving a blob to another item, relabelling
    /// its class or copying it into another vault makes it fail to open.
    static func itemData(vaultID: [UInt8], key: String, accessibility: String) -> [UInt8] {
        frame("sshelf-vault-item", vaultID, [Array(accessibility.utf8), Array(key.utf8)])
    }

    static func deviceLayerData(vaultID: [UInt8], accessibility: String) -> [UInt8] {
        frame("sshelf-vault-class-key/device", vaultID, [Array(accessibility.utf8)])
    }

    /// The Argon2id parameters are part of this data, so weakening them in the file breaks the unwrap.
    static func passphraseLayerData(vaultID: [UInt8], accessibility: String, _ stretch: Sodium.StretchParameters)
        -> [UInt8]
    {
        var limits: [UInt8] = []
        withUnsafeBytes(of: stretch.opsLimit.bigEndian) { limits += $0 }
        withUnsafeBytes(of: stretch.memLimit.bigEndian) { limits += $0 }
        return frame("sshelf-vault-class-key/passphrase", vaultID, [Array(accessibility.utf8), limits, stretch.salt])
    }

    /// The family shown by `vault list`: owner and secret of the reference key (`host.password`).
    static func family(ofKey key: String) -> String {
        let parts = key.split(separator: ".")
        guard let first = parts.first, let last = parts.last else { return "unknown" }
        return "\(first).\(last)"
    }
}

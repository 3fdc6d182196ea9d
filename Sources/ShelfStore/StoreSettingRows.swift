// StoreSettingRows: the settings whose keys start with a prefix (a family of this device's own settings, such as
// its certificate authorities), in key order.
import ShelfSQLite

extension Store {
    public func settings(prefix: String) throws -> [(key: String, value: String)] {
        try db.query(
            "SELECT key, value FROM settings WHERE substr(key, 1, ?) = ? ORDER BY key",
            [.int(prefix.count), .text(prefix)]
        ) { row in (row.text(0), row.text(1)) }
    }
}

// CredentialLedger: what this device remembers about the credential track between runs — which item keys its
// last upload held, and when items were deleted (tombstones) — so a deletion travels to the other devices and
// an older copy arriving later does not bring the credential back. Key names only, in the store's
// device-local settings (never synced in the clear); no value ever.
import Foundation
import ShelfStore

struct CredentialLedger {
    /// Item keys in the last batch this device uploaded.
    var sent: Set<String> = []
    /// Item key → when it was deleted (seconds since 1970).
    var tombstones: [String: Int64] = [:]

    static let sentKey = "sync.credentials.sent"
    static let tombstonesKey = "sync.credentials.tombstones"

    static func load(_ store: Store) throws -> CredentialLedger {
        var ledger = CredentialLedger()
        if let text = try store.setting(sentKey), let keys = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) {
            ledger.sent = Set(keys)
        }
        if let text = try store.setting(tombstonesKey),
           let map = try? JSONDecoder().decode([String: Int64].self, from: Data(text.utf8)) {
            ledger.tombstones = map
        }
        return ledger
    }

    func save(_ store: Store) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let sentText = String(decoding: try encoder.encode(sent.sorted()), as: UTF8.self)
        let tombText = String(decoding: try encoder.encode(tombstones), as: UTF8.self)
        try store.write { store in
            try store.setSetting(Self.sentKey, sentText)
            try store.setSetting(Self.tombstonesKey, tombText)
        }
    }

    /// Records a deletion, keeping the later time when one is already known.
    mutating func bury(_ key: String, at time: Int64) {
        tombstones[key] = max(tombstones[key] ?? time, time)
    }
}

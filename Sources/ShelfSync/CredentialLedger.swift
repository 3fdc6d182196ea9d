// CredentialLedger: what this device remembers about the credential track between runs — which item keys its
// last upload held, when items were deleted (tombstones) — so a deletion travels to the other devices and an older
// copy arriving later does not bring the credential back — and each item's stamp (CredentialStamp) with how it
// looked when last seen. Key names, times and keyed digests only, in the store's device-local settings (never
// synced in the clear); no value ever.
import FoundationEssentials
import ShelfStore

struct CredentialLedger {
    /// What this device last saw of an item in its vault, and the stamp that value carries: a vault time or a
    /// value (by keyed digest) different from what was seen is a write made here since.
    struct Seen: Codable, Equatable {
        var stamp: CredentialStamp
        /// The item's vault time (ms) and a keyed digest of its value, as last seen.
        var time: Int64
        var digest: String
    }

    /// Item keys in the last batch this device uploaded.
    var sent: Set<String> = []
    /// Item key → when it was deleted, and by whom.
    var tombstones: [String: CredentialStamp] = [:]
    /// Item key → its stamp and how it looked in the vault.
    var seen: [String: Seen] = [:]

    static let sentKey = "sync.credentials.sent"
    static let tombstonesKey = "sync.credentials.tombstones"
    static let seenKey = "sync.credentials.seen"

    static func load(_ store: Store) throws -> CredentialLedger {
        var ledger = CredentialLedger()
        if let text = try store.setting(sentKey),
            let keys = try? JSONDecoder().decode([String].self, from: Data(text.utf8))
        {
            ledger.sent = Set(keys)
        }
        if let text = try store.setting(tombstonesKey) {
            if let map = try? JSONDecoder().decode([String: CredentialStamp].self, from: Data(text.utf8)) {
                ledger.tombstones = map
            } else if let seconds = try? JSONDecoder().decode([String: Int64].self, from: Data(text.utf8)) {
                // Whole seconds, no author: as written before stamps.
                ledger.tombstones = seconds.mapValues { CredentialStamp(time: $0 * 1000, counter: 0, author: "") }
            }
        }
        if let text = try store.setting(seenKey),
            let map = try? JSONDecoder().decode([String: Seen].self, from: Data(text.utf8))
        {
            ledger.seen = map
        }
        return ledger
    }

    func save(_ store: Store) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let sentText = String(decoding: try encoder.encode(sent.sorted()), as: UTF8.self)
        let tombText = String(decoding: try encoder.encode(tombstones), as: UTF8.self)
        let seenText = String(decoding: try encoder.encode(seen), as: UTF8.self)
        try store.write { store in
            try store.setSetting(Self.sentKey, sentText)
            try store.setSetting(Self.tombstonesKey, tombText)
            try store.setSetting(Self.seenKey, seenText)
        }
    }

    /// Records a deletion, keeping the later stamp when one is already known.
    mutating func bury(_ key: String, at stamp: CredentialStamp) {
        tombstones[key] = max(tombstones[key] ?? stamp, stamp)
        seen[key] = nil
    }

    /// The latest stamp known for `key`: its value's, or its deletion's.
    func latest(_ key: String) -> CredentialStamp? {
        [seen[key]?.stamp, tombstones[key]].compactMap { $0 }.max()
    }
}

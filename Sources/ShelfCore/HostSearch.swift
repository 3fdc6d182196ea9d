// HostSearch: folding for search (lower case, no accents: `zurich` finds `Zürich-lab`), shared by the
// matcher (HostMatcher: the one rule the CLI and the TUI use) and the store's early migrations (a pre-folded search
// column, dropped since the catalog folds the fields itself).
import FoundationEssentials

public enum HostSearch {
    /// Separates fields in the search text so a term cannot match across two of them.
    public static let fieldSeparator = "\u{1F}"

    /// The lower-cased search text the store's second migration filled in (without the group path, which is matched separately
    /// so renaming a group does not rewrite every host below it).
    public static func text(for host: Host) -> String {
        let fields = [host.name, host.hostname, host.user] + host.tags
        guard fields.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) else {
            return fields.map(fold).joined(separator: fieldSeparator)
        }
        // ASCII (nearly every host): lower-case the bytes straight into the result.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(fields.count) { $0 + $1.utf8.count })
        for (i, field) in fields.enumerated() {
            if i > 0 { bytes.append(0x1F) }
            for byte in field.utf8 { bytes.append(byte &- 65 < 26 ? byte + 32 : byte) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Lower-case and strip diacritics so `Zürich` is found by `zurich`.
    public static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return SearchFold.fold(text)
    }

    public static func fold(_ character: Character) -> String { fold(String(character)) }
}

// HostSearch: folding for search (lower case, no accents: `zurich` finds `Zürich-lab`), shared by the
// matcher (HostMatcher: the one rule the CLI and the TUI use) and the store's pre-folded search column.
import Foundation

public enum HostSearch {
    /// Separates fields in the search text so a term cannot match across two of them.
    public static let fieldSeparator = "\u{1F}"

    /// The lower-cased search text stored with a host (without the group path, which is matched separately
    /// so renaming a group does not rewrite every host below it).
    public static func text(for host: Host) -> String {
        ([host.name, host.hostname, host.user] + host.tags).map(fold).joined(separator: fieldSeparator)
    }

    /// Lower-case and strip diacritics so `Zürich` is found by `zurich`.
    public static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    public static func fold(_ character: Character) -> String { fold(String(character)) }
}

// HostSearch: the text a host is found by (name, hostname, user, tags, group path) and the matching rule the
// CLI and the store share: every whitespace-separated term must appear, case-insensitively.
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
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    public static func terms(_ filter: String) -> [String] {
        filter.split(whereSeparator: { $0.isWhitespace }).map { fold(String($0)) }.filter { !$0.isEmpty }
    }

    public static func matches(host: Host, groupPath: String, terms: [String]) -> Bool {
        let haystack = text(for: host) + fieldSeparator + fold(groupPath)
        return terms.allSatisfy { haystack.contains($0) }
    }
}

// SafeText: stored text made safe to print (a synced record must not put escape sequences on a terminal), and
// the short form of an id — shared by every message the operations build for the CLI and the TUI.
import FoundationEssentials
import ShelfCore

public enum Display {
    /// Replaces control and bidi-override characters with '?'.
    public static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Validation.isForbidden) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(Validation.isForbidden(scalar) ? "?" : scalar) }
        return String(scalars)
    }

    /// Ids are shown as their first 8 hex digits.
    public static func shortID(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }

    /// "1 host", "3 hosts".
    public static func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}

// Symbols: the glyphs the UI draws, in a Unicode set and an ASCII set for terminals without a UTF-8 locale.
public struct Symbols: Sendable, Equatable {
    public var synced: String
    public var fallback: String
    public var off: String
    public var syncing: String
    public var expanded: String
    public var collapsed: String
    public var leaf: String
    public var separator: String
    public var vertical: Character
    public var horizontal: Character
    public var ellipsis: Character
    public var enter: String
    public var check: String
    public var unchecked: String
    /// A host marked for a run.
    public var mark = "●"

    public static let unicode = Symbols(
        synced: "✓", fallback: "▲", off: "○", syncing: "↻", expanded: "▾", collapsed: "▸", leaf: " ",
        separator: "│", vertical: "│", horizontal: "─", ellipsis: "…", enter: "⏎", check: "[x]", unchecked: "[ ]")

    public static let ascii = Symbols(
        synced: "+", fallback: "!", off: "o", syncing: "~", expanded: "v", collapsed: ">", leaf: " ",
        separator: "|", vertical: "|", horizontal: "-", ellipsis: "~", enter: "Enter", check: "[x]", unchecked: "[ ]",
        mark: "*")
}

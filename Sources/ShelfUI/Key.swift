// Key: one key press as the UI understands it, independent of curses key codes.
public enum Key: Hashable, Sendable {
    case char(Character)
    /// Ctrl plus a letter, lower-case (`ctrl("d")`).
    case ctrl(Character)
    case up, down, left, right, enter, escape, backspace, delete, tab, backTab, home, end, pageUp, pageDown
    case function(Int)

    /// The label in ASCII, for terminals without a UTF-8 locale.
    public var asciiLabel: String {
        switch self {
        case .up: "Up"
        case .down: "Down"
        case .left: "Left"
        case .right: "Right"
        default: label
        }
    }

    /// How help and the README spell the key.
    public var label: String {
        switch self {
        case .char(" "): "Space"
        case .char(let c): String(c)
        case .ctrl(let c): "Ctrl-\(c)"
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .delete: "Del"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .function(let n): "F\(n)"
        }
    }
}

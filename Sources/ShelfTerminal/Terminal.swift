// Terminal: the only code that touches ncursesw. The TUI issue adds drawing and key input on this.
import CNcurses
import CShims
import ShelfUI

public enum Terminal {
    /// The curses library version, for `sshelf --version`.
    public static var cursesVersion: String {
        guard let text = curses_version() else { return "unknown" }
        return String(cString: text)
    }
}

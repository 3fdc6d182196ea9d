// Terminal: the only code that touches ncursesw — starts and stops curses, blits a Canvas (only the cells
// that changed), reads keys (UTF-8 text, function keys, resize), and maps cell styles to colour pairs.
import CNcurses
import CCursesShims
import FoundationEssentials
import Glibc
import ShelfUI

public enum TerminalInput: Sendable, Equatable {
    case key(Key)
    case resize(rows: Int, columns: Int)
}

public final class Terminal {
    /// The curses library version, for `sshelf --version`.
    public static var cursesVersion: String {
        guard let text = curses_version() else { return "unknown" }
        return String(cString: text)
    }

    public let symbols: Symbols
    public let colorMode: ColorMode
    private let utf8: Bool
    private var previous: Canvas?
    private var active = false

    public enum ColorMode: Sendable, Equatable {
        case none
        case eight
        case full
    }

    /// Pair numbers by meaning; 0 is the terminal's own colours.
    private static let pairs: [CellStyle.Color: Int16] = [.green: 1, .orange: 2, .blue: 3, .red: 4]

    /// Starts curses on the controlling terminal. `noColor` (the NO_COLOR convention) keeps symbols and words
    /// and drops colour; a non-UTF-8 locale gets the ASCII symbol set. Nil when curses cannot use the terminal
    /// (an unknown TERM).
    public init?(noColor: Bool) {
        setlocale(LC_ALL, "")
        let codeset = nl_langinfo(nl_item(CODESET)).map { String(cString: $0) } ?? ""
        utf8 = codeset.uppercased().replacing("-", with: "") == "UTF8"
        symbols = utf8 ? .unicode : .ascii
        guard cshims_start_screen() == 1 else { return nil }
        cshims_setup_screen(25)
        if !noColor && has_colors() {
            start_color()
            use_default_colors()
            let many = cshims_colors() >= 256
            init_pair(1, Int16(COLOR_GREEN), -1)
            init_pair(2, many ? 208 : Int16(COLOR_YELLOW), -1)
            init_pair(3, Int16(COLOR_BLUE), -1)
            init_pair(4, Int16(COLOR_RED), -1)
            colorMode = many ? .full : .eight
        } else {
            colorMode = .none
        }
        active = true
    }

    public var size: (rows: Int, columns: Int) {
        var rows: Int32 = 0
        var columns: Int32 = 0
        cshims_screen_size(&rows, &columns)
        return (Int(rows), Int(columns))
    }

    /// Draws the canvas, writing only the cells that differ from the last frame.
    public func draw(_ canvas: Canvas) {
        let full = previous.map { $0.rows != canvas.rows || $0.columns != canvas.columns } ?? true
        if full { cshims_clear_screen() }
        for row in 0..<canvas.rows {
            for column in 0..<canvas.columns {
                let cell = canvas[row, column]
                if !full, let previous, previous[row, column] == cell { continue }
                if cell.isContinuation {
                    // The wide character to the left covers this cell, unless it was drawn as '?' (then a second
                    // '?', so the unshowable character keeps its two cells).
                    if column > 0, drawsWide(canvas[row, column - 1].character) { continue }
                    put(Cell("?", style: cell.style), row: row, column: column)
                    continue
                }
                put(cell, row: row, column: column)
            }
        }
        cshims_refresh()
        previous = canvas
    }

    private func put(_ cell: Cell, row: Int, column: Int) {
        var flags: UInt32 = 0
        if cell.style.bold { flags |= UInt32(CSHIMS_BOLD) }
        if cell.style.reverse { flags |= UInt32(CSHIMS_REVERSE) }
        if cell.style.underline { flags |= UInt32(CSHIMS_UNDERLINE) }
        if cell.style.color == .dim { flags |= UInt32(CSHIMS_DIM) }
        let pair = colorMode == .none ? 0 : (Terminal.pairs[cell.style.color] ?? 0)
        var text = wideText(cell.character)
        _ = cshims_put_cell(Int32(row), Int32(column), &text, pair, flags)
    }

    /// The character as a 0-terminated wchar_t string. A character the terminal would not draw in exactly the
    /// cells the canvas gave it (a non-UTF-8 locale, a width the C library sees differently) becomes '?', so
    /// the layout never shifts.
    private func wideText(_ character: Character) -> [wchar_t] {
        let scalars = Array(character.unicodeScalars)
        guard let first = scalars.first else { return [0x20, 0] }
        if first.value < 0x80 { return [wchar_t(first.value), 0] }
        if !fits(character) { return [0x3F, 0] }
        return scalars.map { wchar_t($0.value) } + [0]
    }

    private func fits(_ character: Character) -> Bool {
        guard utf8, let first = character.unicodeScalars.first else { return false }
        return Int(cshims_char_width(wchar_t(first.value))) == CharWidth.of(character)
    }

    /// Whether this lead character is drawn across two cells (so its continuation cell is left to it).
    private func drawsWide(_ character: Character) -> Bool { CharWidth.of(character) == 2 && fits(character) }

    /// Waits up to `timeoutMilliseconds` (negative: forever) for a key; nil when none came.
    public func readKey(timeoutMilliseconds: Int) -> TerminalInput? {
        var code: UInt32 = 0
        switch cshims_read_key(Int32(timeoutMilliseconds), &code) {
        case 1: return Terminal.character(code).map(TerminalInput.key)
        case 2:
            if Int32(code) == KEY_RESIZE {
                let now = size
                previous = nil
                return .resize(rows: now.rows, columns: now.columns)
            }
            return Terminal.functionKey(Int32(code)).map(TerminalInput.key)
        default: return nil
        }
    }

    static func character(_ code: UInt32) -> Key? {
        switch code {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .ctrl(Character(Unicode.Scalar(code + 96)!))
        case 0...31: return nil
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            return .char(Character(scalar))
        }
    }

    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_NPAGE: return .pageDown
        case KEY_PPAGE: return .pageUp
        case KEY_BTAB: return .backTab
        case (KEY_F0 + 1)...(KEY_F0 + 24): return .function(Int(code - KEY_F0))
        default: return nil
        }
    }

    /// Leaves curses so a child process (ssh) gets a normal terminal.
    public func suspend() {
        guard active else { return }
        endwin()
        active = false
    }

    /// Comes back after `suspend`, redrawing everything on the next frame.
    public func resume() {
        guard !active else { return }
        cshims_refresh()
        previous = nil
        active = true
    }

    public func stop() { suspend() }

    deinit { if active { endwin() } }
}

// Canvas: a grid of styled cells that every widget draws into; the terminal backend blits it. Pure, no IO.
public struct CellStyle: Hashable, Sendable {
    /// Meanings, not terminal colours: the backend maps them (orange is 208 on 256 colours, yellow on 8).
    public enum Color: Hashable, Sendable, CaseIterable { case normal, green, orange, blue, red, dim }
    public var color: Color
    public var bold: Bool
    public var reverse: Bool
    /// Marks matched characters of a search, so they stay visible without colour too.
    public var underline: Bool
    public init(color: Color = .normal, bold: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.color = color
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = CellStyle()
    public static let dim = CellStyle(color: .dim)
    public static let bold = CellStyle(bold: true)
    public static let selected = CellStyle(reverse: true)
    public static let error = CellStyle(color: .red)
}

public struct Cell: Hashable, Sendable {
    public var character: Character
    public var style: CellStyle
    /// The right half of a double-width character in the cell to the left: the terminal draws nothing here.
    public var isContinuation = false
    public init(_ character: Character = " ", style: CellStyle = CellStyle()) {
        self.character = character
        self.style = style
    }

    static func continuation(_ style: CellStyle) -> Cell {
        var cell = Cell(" ", style: style)
        cell.isContinuation = true
        return cell
    }
}

public struct Canvas: Sendable, Equatable {
    public let rows: Int
    public let columns: Int
    public private(set) var cells: [Cell]

    public init(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(0, columns)
        cells = Array(repeating: Cell(), count: self.rows * self.columns)
    }

    /// Writes text from (row, column), clipped at the right edge; returns the column after the last cell.
    /// A double-width character (`CharWidth`) takes its cell and a continuation cell; one that would not fit
    /// at the right edge is not drawn. Control characters (from a synced record) are drawn as '?' so they never
    /// reach the terminal.
    @discardableResult
    public mutating func write(_ text: String, row: Int, column: Int, style: CellStyle = CellStyle()) -> Int {
        guard row >= 0, row < rows else { return column }
        var col = column
        for ch in text {
            let width = CharWidth.of(ch)
            if col + width > columns { break }
            if col >= 0 {
                place(Cell(Canvas.printable(ch), style: style), row: row, column: col)
                if width == 2 { place(.continuation(style), row: row, column: col + 1) }
            } else if col + width > 0 {
                // Half of a wide character left of the canvas: its visible half is a blank.
                place(Cell(" ", style: style), row: row, column: 0)
            }
            col += width
        }
        return col
    }

    /// Writes text clipped to `width` cells, ending in '…' when cut (never inside a double-width character).
    @discardableResult
    public mutating func write(
        _ text: String, row: Int, column: Int, width: Int, style: CellStyle = CellStyle(),
        ellipsis: Character = "…"
    ) -> Int {
        guard width > 0 else { return column }
        if CharWidth.of(text) <= width { return write(text, row: row, column: column, style: style) }
        return write(
            CharWidth.prefix(text, fitting: width - 1) + String(ellipsis), row: row, column: column, style: style)
    }

    /// Sets one cell. Overwriting either half of a double-width character blanks its other half, so the
    /// canvas never holds half a wide character.
    private mutating func place(_ cell: Cell, row: Int, column: Int) {
        let i = row * columns + column
        if cells[i].isContinuation, column > 0 { cells[i - 1] = Cell(" ", style: cells[i - 1].style) }
        if column + 1 < columns, cells[i + 1].isContinuation { cells[i + 1] = Cell(" ", style: cells[i + 1].style) }
        cells[i] = cell
    }

    /// Fills a rectangle with one character and style (clears a pane or draws a selection bar).
    public mutating func fill(
        row: Int, column: Int, height: Int, width: Int, character: Character = " ",
        style: CellStyle = CellStyle()
    ) {
        for r in max(0, row)..<min(rows, row + height) {
            for c in max(0, column)..<min(columns, column + width) {
                place(Cell(character, style: style), row: r, column: c)
            }
        }
    }

    /// Changes the style of cells already written (selection bars keep the text's own colours otherwise).
    public mutating func restyle(row: Int, column: Int, width: Int, _ change: (inout CellStyle) -> Void) {
        guard row >= 0, row < rows else { return }
        for c in max(0, column)..<min(columns, column + width) { change(&cells[row * columns + c].style) }
    }

    public subscript(row: Int, column: Int) -> Cell { cells[row * columns + column] }

    /// The canvas as plain text, one line per row, trailing spaces trimmed (for snapshot tests). A wide
    /// character is one character here (its continuation cell is skipped), so the text lines up in a terminal.
    public var text: String {
        (0..<rows).map(line).joined(separator: "\n")
    }

    /// The text of one row, trailing spaces trimmed.
    public func line(_ row: Int) -> String {
        var line = String(cells[(row * columns)..<((row + 1) * columns)].filter { !$0.isContinuation }.map(\.character))
        while line.last == " " { line.removeLast() }
        return line
    }

    static func printable(_ ch: Character) -> Character {
        ch.unicodeScalars.contains {
            $0.properties.generalCategory == .control
                || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        } ? "?" : ch
    }
}

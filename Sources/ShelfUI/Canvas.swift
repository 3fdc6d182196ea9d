// Canvas: a grid of styled cells that every widget draws into; the terminal backend blits it. Pure, no IO.
public struct CellStyle: Hashable, Sendable {
    public enum Color: Hashable, Sendable { case normal, green, orange, blue, red, dim }
    public var color: Color
    public var bold: Bool
    public var reverse: Bool
    public init(color: Color = .normal, bold: Bool = false, reverse: Bool = false) {
        self.color = color
        self.bold = bold
        self.reverse = reverse
    }
}

public struct Cell: Hashable, Sendable {
    public var character: Character
    public var style: CellStyle
    public init(_ character: Character = " ", style: CellStyle = CellStyle()) {
        self.character = character
        self.style = style
    }
}

public struct Canvas: Sendable {
    public let rows: Int
    public let columns: Int
    public private(set) var cells: [Cell]

    public init(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(0, columns)
        cells = Array(repeating: Cell(), count: self.rows * self.columns)
    }

    /// Writes text from (row, column), clipped at the right edge; returns the column after the last cell.
    @discardableResult
    public mutating func write(_ text: String, row: Int, column: Int, style: CellStyle = CellStyle()) -> Int {
        guard row >= 0, row < rows else { return column }
        var col = column
        for ch in text where col < columns {
            if col >= 0 { cells[row * columns + col] = Cell(ch, style: style) }
            col += 1
        }
        return col
    }

    public subscript(row: Int, column: Int) -> Cell { cells[row * columns + column] }

    /// The canvas as plain text, one line per row, trailing spaces trimmed (for snapshot tests).
    public var text: String {
        (0..<rows).map { row in
            var line = String(cells[(row * columns)..<((row + 1) * columns)].map(\.character))
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}

// ImportDialogView: the import dialog (`o`) — the summary's lines (what the import would do, then what it did), a
// line for where the view is in a long one, and the keys of its phase.
import FoundationEssentials

enum ImportDialogView {
    static func draw(_ dialog: ImportDialog, state: UIState, on canvas: inout Canvas) {
        let widest = dialog.lines.map(CharWidth.of).max() ?? 0
        let inner = Frame.box(
            title: dialog.title, height: dialog.height(screenRows: state.rows),
            width: min(110, max(60, widest + 6)), state: state, on: &canvas)
        let rows = dialog.visibleRows(screenRows: state.rows)
        let start = min(dialog.scroll, dialog.maxScroll(screenRows: state.rows))
        for (i, line) in dialog.lines.dropFirst(start).prefix(rows).enumerated() {
            canvas.write(
                line, row: inner.row + i, column: inner.column, width: inner.width, style: style(line, dialog),
                ellipsis: state.symbols.ellipsis)
        }
        var footer: String
        switch dialog.phase {
        case .reading: footer = "reading the file (nothing is written)...   Esc cancel"
        case .ready: footer = "y import   Esc cancel (nothing is imported)"
        case .importing: footer = "importing (one transaction)..."
        case .done, .failed: footer = "Esc close"
        }
        if dialog.lines.count > rows {
            let last = min(dialog.lines.count, start + rows)
            footer += "   j/k PgDn/PgUp scroll (\(start + 1)-\(last) of \(dialog.lines.count))"
        }
        canvas.write(
            footer, row: inner.row + inner.height - 1, column: inner.column, width: inner.width, style: .dim,
            ellipsis: state.symbols.ellipsis)
    }

    /// The summary line in bold, errors in red, warnings in orange, the rest plain.
    static func style(_ line: String, _ dialog: ImportDialog) -> CellStyle {
        if dialog.phase == .failed { return CellStyle(color: .red, bold: true) }
        if !line.hasPrefix(" ") { return .bold }
        if line.hasPrefix("  error") { return CellStyle(color: .red) }
        if line.hasPrefix("  warning") || line.hasPrefix("  skipped") { return CellStyle(color: .orange) }
        return .plain
    }
}

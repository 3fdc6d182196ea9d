// ImportDialogView: the import dialog (`o`) — the summary's lines (what the import would do, then what it did; a long
// line wrapped), where the view is in a long summary, and the keys of its phase.
import FoundationEssentials

enum ImportDialogView {
    static func draw(_ dialog: ImportDialog, state: UIState, on canvas: inout Canvas) {
        let (rows, columns) = (state.rows, state.columns)
        let lines = dialog.shown(columns: columns)
        let inner = Frame.box(
            title: dialog.title, height: dialog.height(rows: rows, columns: columns),
            width: ImportDialog.width(columns: columns), state: state, on: &canvas)
        let visible = dialog.visibleRows(rows: rows, columns: columns)
        let start = min(dialog.scroll, dialog.maxScroll(rows: rows, columns: columns))
        for (i, line) in lines.enumerated().dropFirst(start).prefix(visible) {
            // A wrapped line's further lines keep its style.
            canvas.write(
                line.text, row: inner.row + i - start, column: inner.column, width: inner.width,
                style: style(dialog.lines[line.source], dialog), ellipsis: state.symbols.ellipsis)
        }
        var footer: String
        switch dialog.phase {
        case .reading: footer = "reading the file, writing nothing...   Esc cancel"
        case .ready: footer = "y import   Esc cancel: nothing is imported"
        case .importing: footer = "importing (one transaction)..."
        case .done, .failed: footer = "Esc close"
        }
        if lines.count > visible {
            footer += "   j/k more (\(start + 1)-\(start + visible) of \(lines.count))"
        }
        canvas.write(
            footer, row: inner.row + inner.height - 1, column: inner.column, width: inner.width, style: .dim,
            ellipsis: state.symbols.ellipsis)
    }

    /// The summary line in bold, errors in red, warnings and skipped blocks in orange, the rest plain.
    static func style(_ line: String, _ dialog: ImportDialog) -> CellStyle {
        if dialog.phase == .failed { return CellStyle(color: .red, bold: true) }
        if !line.hasPrefix(" ") { return .bold }
        if line.hasPrefix("  error") { return CellStyle(color: .red) }
        if line.hasPrefix("  warning") || line.hasPrefix("  skipped") { return CellStyle(color: .orange) }
        return .plain
    }
}

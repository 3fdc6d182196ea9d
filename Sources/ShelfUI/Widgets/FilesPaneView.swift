// FilesPaneView: the file pane — two sides (this machine, the host), each with its folder's path, its entries
// (type and mode, size, and on a wide screen owner and time; a link with its target), the count and the filter; the
// bottom row says everything about the entry under the cursor of the side that has the keys.
import FoundationEssentials

enum FilesPaneView {
    static func draw(_ pane: FilesPane, state: UIState, on canvas: inout Canvas) {
        // The copies (the last few) take rows above the bottom one; the sides get the rest.
        let queue = Array(pane.transfers.suffix(min(4, max(0, state.rows - 12))))
        let top = 1, bottom = state.rows - 2 - queue.count
        let half = (state.columns - 1) / 2
        let sides: [(FilesPane.Side, Int, Int)] = [
            (.local, 0, half), (.remote, half + 1, state.columns - half - 1),
        ]
        for (side, column, width) in sides {
            drawSide(
                pane, side, state: state, rect: Rect(row: top, column: column, height: bottom - top - 1, width: width),
                on: &canvas)
        }
        Frame.vertical(column: half, row: top, height: bottom - top - 1, symbols: state.symbols, on: &canvas)
        if let question = pane.question {
            var col = canvas.write(question.prompt, row: bottom - 1, column: 0, style: .bold)
            col = canvas.write(question.input, row: bottom - 1, column: col)
            col = canvas.write("_", row: bottom - 1, column: col, style: CellStyle(reverse: true))
            if let problem = question.problem {
                canvas.write(
                    "  " + problem, row: bottom - 1, column: col, width: max(0, state.columns - col),
                    style: CellStyle(color: .red, bold: true), ellipsis: state.symbols.ellipsis)
            }
        } else {
            details(pane, state: state, row: bottom - 1, on: &canvas)
        }
        for (i, transfer) in queue.enumerated() {
            let style: CellStyle
            switch transfer.state {
            case .queued, .running: style = CellStyle(color: .blue)
            case .done: style = CellStyle(color: .green)
            case .failed: style = CellStyle(color: .red, bold: true)
            case .cancelled: style = .dim
            }
            canvas.write(
                transfer.line, row: bottom + i, column: 0, width: state.columns, style: style,
                ellipsis: state.symbols.ellipsis)
        }
    }

    static func title(_ pane: FilesPane, _ side: FilesPane.Side) -> String {
        side == .local ? "this machine" : pane.hostName
    }

    private static func drawSide(
        _ pane: FilesPane, _ side: FilesPane.Side, state: UIState, rect: Rect, on canvas: inout Canvas
    ) {
        let column = pane[side]
        let e = state.symbols.ellipsis
        let active = pane.active == side
        let header = " \(title(pane, side)): \(column.shownPath) "
        canvas.write(
            header, row: rect.row, column: rect.column, width: rect.width,
            style: CellStyle(bold: true, reverse: active), ellipsis: e)
        let rows = max(1, rect.height - 2)
        let first = rect.row + 1
        if side == .remote && !pane.connected {
            let text = pane.failure ?? "connecting to \(pane.hostName)..."
            canvas.write(
                text, row: first, column: rect.column, width: rect.width,
                style: pane.failure == nil ? .dim : CellStyle(color: .red, bold: true), ellipsis: e)
            return
        }
        if let error = column.error {
            canvas.write(
                error, row: first, column: rect.column, width: rect.width,
                style: CellStyle(color: .red, bold: true), ellipsis: e)
        }
        let scroll = max(0, column.cursor - rows + 1)
        let wide = rect.width >= 70
        for (i, index) in column.visible.enumerated().dropFirst(scroll).prefix(rows) {
            let y = first + i - scroll + (column.error == nil ? 0 : 1)
            guard y < first + rows else { break }
            let entry = column.entries[index]
            let marked = column.marks.contains(entry.name)
            canvas.write(
                (marked ? "*" : " ") + line(entry, wide: wide), row: y, column: rect.column, width: rect.width,
                style: marked ? CellStyle(color: .orange, bold: true) : style(entry), ellipsis: e)
            if i == column.cursor {
                canvas.restyle(row: y, column: rect.column, width: rect.width) {
                    $0.reverse = active
                    $0.bold = true
                }
            }
        }
        let count = column.visible.count
        var footer = "\(count) \(count == 1 ? "entry" : "entries")"
        if column.visible.count != column.entries.count { footer += " of \(column.entries.count)" }
        if column.loading { footer += ", reading..." }
        if !column.filter.isEmpty || (active && pane.filtering) {
            footer += "  /\(column.filter)" + (active && pane.filtering ? "_" : "")
        }
        if let note = column.note { footer += "  " + note }
        canvas.write(
            footer, row: rect.row + rect.height - 1, column: rect.column, width: rect.width, style: .dim, ellipsis: e)
    }

    /// One entry's row: `drwxr-xr-x   4.0K name/`, on a wide side also owner, group and time.
    static func line(_ entry: FileEntry, wide: Bool) -> String {
        let size = entry.kind == .directory ? "" : entry.sizeText
        var text = entry.modeText + " "
        if wide {
            text += pad(entry.owner, 8) + " " + pad(entry.group, 8) + " "
        }
        text += String(repeating: " ", count: max(0, 6 - size.count)) + size + " "
        if wide { text += pad(entry.modified, 16) + " " }
        text += entry.shown + (entry.kind == .directory ? "/" : "")
        if let target = entry.linkTarget { text += " -> " + target }
        return text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let cut = CharWidth.prefix(text, fitting: width)
        return cut + String(repeating: " ", count: max(0, width - CharWidth.of(cut)))
    }

    static func style(_ entry: FileEntry) -> CellStyle {
        switch entry.kind {
        case .directory: CellStyle(color: .blue, bold: true)
        case .link: CellStyle(color: .green)
        case .file: .plain
        default: CellStyle(color: .orange)
        }
    }

    /// The bottom row: the selected entry in full (mode, owner, group, exact size, time, name, target).
    private static func details(_ pane: FilesPane, state: UIState, row: Int, on canvas: inout Canvas) {
        guard let entry = pane[pane.active].selected else { return }
        var text = "\(entry.modeText) \(entry.owner) \(entry.group) "
        if let size = entry.size { text += "\(size) bytes " }
        text += entry.modified + " " + entry.shown
        if let target = entry.linkTarget { text += " -> " + target }
        canvas.write(text, row: row, column: 0, width: state.columns, style: .dim, ellipsis: state.symbols.ellipsis)
    }
}

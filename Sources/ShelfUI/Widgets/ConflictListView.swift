// ConflictListView: the merge-conflict overlay (`C`) — per conflict its record and field, the kept value and the
// other with the device that wrote each and when, and why; the selected one reversed.
import FoundationEssentials
import ShelfCore

enum ConflictListView {
    static func draw(_ state: UIState, on canvas: inout Canvas) {
        let conflicts = state.conflicts
        let open = conflicts.filter { $0.settled == nil }.count
        let inner = Frame.box(
            title: "Merge conflicts (\(open) open of \(conflicts.count))", height: state.rows - 2, width: 120,
            state: state, on: &canvas)
        let e = state.symbols.ellipsis
        if conflicts.isEmpty {
            canvas.write(
                state.conflictsLoaded ? "No merge conflicts." : "loading...", row: inner.row, column: inner.column,
                width: inner.width, style: .dim, ellipsis: e)
        }
        // The selected conflict's values in full at the bottom (wrapped), the list above it.
        let detail = state.selectedConflict.map { details($0, width: inner.width) } ?? []
        let detailRows = min(detail.count, max(0, inner.height - 6))
        let per = 4
        let shown = max(1, (inner.height - 1 - detailRows) / per)
        let scroll = max(0, state.conflictCursor - shown + 1)
        for (i, conflict) in conflicts.enumerated().dropFirst(scroll).prefix(shown) {
            let y = inner.row + (i - scroll) * per
            let mark = conflict.settled.map { "settled: took \($0)" } ?? (conflict.isNew ? "new" : "")
            canvas.write(
                "#\(conflict.id) \(conflict.record) · \(conflict.field)", row: y, column: inner.column,
                width: inner.width - mark.count - 1, style: .bold, ellipsis: e)
            canvas.write(mark, row: y, column: inner.column + inner.width - mark.count, width: mark.count, style: .dim)
            line("kept ", conflict.kept, conflict.keptBy, row: y + 1, inner: inner, state: state, on: &canvas)
            line("other", conflict.other, conflict.otherBy, row: y + 2, inner: inner, state: state, on: &canvas)
            if i == state.conflictCursor {
                canvas.restyle(row: y, column: inner.column, width: inner.width) { $0.reverse = true }
            }
        }
        let top = inner.row + inner.height - 1 - detailRows
        for (offset, text) in detail.prefix(detailRows).enumerated() {
            canvas.write(
                text, row: top + offset, column: inner.column, width: inner.width, style: offset == 0 ? .bold : .plain,
                ellipsis: e)
        }
        canvas.write(
            "j/k move, o take the other value, p keep the kept one, Esc back", row: inner.row + inner.height - 1,
            column: inner.column, width: inner.width, style: .dim, ellipsis: e)
    }

    /// The selected conflict in full: each value wrapped to the width, then why.
    static func details(_ conflict: ConflictItem, width: Int) -> [String] {
        var out = ["#\(conflict.id) in full"]
        out += wrap("kept:  \(conflict.kept)", width: width)
        out += wrap("other: \(conflict.other)", width: width)
        out += wrap("why:   \(conflict.why)", width: width)
        return out
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 8 else { return [text] }
        var lines: [String] = []
        var rest = Substring(text)
        while rest.count > width {
            lines.append(String(rest.prefix(width)))
            rest = "       " + rest.dropFirst(width)
        }
        lines.append(String(rest))
        return lines
    }

    /// `  kept   "bob"   by this device, 2026-12-01 18:20`: the value first, the device after it, cut from the right.
    static func line(
        _ label: String, _ value: String, _ by: String, row: Int, inner: Rect, state: UIState, on canvas: inout Canvas
    ) {
        let e = state.symbols.ellipsis
        canvas.write(label, row: row, column: inner.column + 2, width: 5, style: .dim)
        let valueX = inner.column + 8
        let byText = by.isEmpty ? "" : "by \(by)"
        let room = inner.column + inner.width - valueX
        let byWidth = min(byText.count, max(0, room / 2))
        let valueWidth = room - byWidth - (byWidth > 0 ? 2 : 0)
        canvas.write(value, row: row, column: valueX, width: valueWidth, ellipsis: e)
        canvas.write(
            byText, row: row, column: inner.column + inner.width - byWidth, width: byWidth, style: .dim, ellipsis: e)
    }
}

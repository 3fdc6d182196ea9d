// GroupTreeView: the nested groups with open/closed markers and host counts, "All hosts" on top.
enum GroupTreeView {
    static func draw(_ state: UIState, in rect: Rect, on canvas: inout Canvas) {
        let focused = state.focus == .groups && state.mode == .browse
        canvas.write("Groups", row: rect.row, column: rect.column + 1, style: focused ? .bold : .dim)
        let rows = max(0, rect.height - 1)
        let scroll = max(0, state.groupCursor - rows + 1)
        for (i, row) in state.groupRows.dropFirst(scroll).prefix(rows).enumerated() {
            let y = rect.row + 1 + i
            let marker =
                row.hasChildren ? (row.expanded ? state.symbols.expanded : state.symbols.collapsed) : state.symbols.leaf
            let count = String(row.count)
            let indent = String(repeating: " ", count: row.depth * 2)
            let nameWidth = rect.width - indent.count - count.count - 4
            canvas.write(indent + marker + " ", row: y, column: rect.column, style: .dim)
            canvas.write(
                row.name, row: y, column: rect.column + indent.count + 2, width: nameWidth,
                ellipsis: state.symbols.ellipsis)
            canvas.write(count, row: y, column: rect.column + rect.width - count.count - 1, style: .dim)
            if scroll + i == state.groupCursor {
                canvas.restyle(row: y, column: rect.column, width: rect.width) { style in
                    if focused { style.reverse = true } else { style.bold = true }
                }
            }
        }
    }
}

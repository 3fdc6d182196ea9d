// SnippetPickerView: the snippet picker (`x`) as a box — the filter and the matching snippets with their commands,
// then, once one is chosen, the parameter asked for with its default and the values given so far.
import FoundationEssentials
import ShelfCore

enum SnippetPickerView {
    static func draw(_ picker: SnippetPicker, state: UIState, on canvas: inout Canvas) {
        let hosts = picker.hostNames.count == 1 ? picker.hostNames[0] : "\(picker.hostNames.count) marked hosts"
        let height = min(state.rows - 2, 16)
        let inner = Frame.box(
            title: "Run a snippet on \(hosts)", height: height, width: min(state.columns - 2, 100), state: state,
            on: &canvas)
        let ellipsis = state.symbols.ellipsis
        var row = inner.row
        func line(_ text: String, _ style: CellStyle = .plain) {
            guard row < inner.row + inner.height else { return }
            canvas.write(text, row: row, column: inner.column, width: inner.width, style: style, ellipsis: ellipsis)
            row += 1
        }
        guard let chosen = picker.chosen else {
            line("Filter: \(picker.filter)_", .bold)
            line("")
            if picker.matches.isEmpty { line("no snippet matches", .dim) }
            let room = max(1, inner.height - 3)
            let first = max(0, min(picker.cursor - room + 1, picker.matches.count - room))
            let nameWidth = min(24, picker.snippets.map { CharWidth.of(flat($0.name)) }.max() ?? 0)
            for (offset, index) in picker.matches.dropFirst(first).prefix(room).enumerated() {
                let snippet = picker.snippets[index]
                let name = flat(snippet.name).padded(to: nameWidth)
                let selected = first + offset == picker.cursor
                line(
                    "\(selected ? ">" : " ") \(name)  \(flat(snippet.command))",
                    selected ? CellStyle(bold: true, reverse: true) : .plain)
            }
            return
        }
        line("Snippet: \(flat(chosen.name))", .bold)
        line(flat(chosen.command), .dim)
        line("")
        for (parameter, value) in zip(picker.parameters, picker.values) {
            line("  \(parameter.name): \(flat(value))")
        }
        if let parameter = picker.asking {
            let shownDefault = parameter.defaultValue.map { " [\(flat($0))]" } ?? ""
            line("> \(parameter.name)\(shownDefault): \(picker.input)_", .bold)
        }
        if let problem = picker.problem { line(problem, CellStyle(color: .red, bold: true)) }
    }

    /// Stored text on one row: control characters as '?', line breaks as ⏎.
    static func flat(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0 == "\n" ? "⏎" : Validation.isForbidden($0) ? "?" : $0 }))
    }
}

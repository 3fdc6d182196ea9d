// FailureView: the whole screen for a store or vault that cannot be opened — what failed, the error in full
// (wrapped, never cut), the hint, and the keys that act here.
import FoundationEssentials

enum FailureView {
    static func draw(_ failure: FailureScreen, state: UIState, on canvas: inout Canvas) {
        canvas.write(" sshelf ", row: 0, column: 0, style: CellStyle(bold: true, reverse: true))
        let width = max(10, min(state.columns - 4, 100))
        let left = max(2, (state.columns - width) / 2)
        var lines: [(String, CellStyle)] = [(failure.title, CellStyle(color: .red, bold: true)), ("", .plain)]
        for line in WordWrap.lines(failure.message, width: width) { lines.append((line, .plain)) }
        if let hint = failure.hint {
            lines.append(("", .plain))
            for (i, line) in WordWrap.lines(hint, width: width - 6).enumerated() {
                lines.append(((i == 0 ? "hint: " : "      ") + line, .bold))
            }
        }
        if failure.subject == .vault {
            lines.append(("", .plain))
            for line in WordWrap.lines(
                "Hosts can still be browsed and edited; connecting with a credential from "
                    + "the vault fails until it can be opened.", width: width)
            {
                lines.append((line, .dim))
            }
        }
        // Rows 1 ... rows-2; the last row keeps the keys. A message longer than the screen keeps its start.
        let room = max(0, state.rows - 3)
        let top = 1 + max(0, (room - lines.count) / 2)
        for (i, line) in lines.prefix(room).enumerated() {
            canvas.write(
                line.0, row: top + i, column: left, width: width, style: line.1, ellipsis: state.symbols.ellipsis)
        }
        if let notice = state.notice {
            canvas.write(
                notice.text, row: state.rows - 2, column: left, width: width,
                style: notice.isError ? .error : .dim, ellipsis: state.symbols.ellipsis)
        }
        var col = 1
        for (key, what) in StatusLine.hints(state) {
            col = canvas.write(key, row: state.rows - 1, column: col, style: .bold)
            col = canvas.write(" \(what)   ", row: state.rows - 1, column: col, style: .dim)
        }
    }
}

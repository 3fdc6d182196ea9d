// Screen: draws the whole UI state onto a Canvas — main view, then any overlay, then the status line.
import FoundationEssentials

public enum Screen {
    public static func render(_ state: UIState) -> Canvas {
        var canvas = Canvas(rows: state.rows, columns: state.columns)
        if state.isTooSmall {
            TooSmallView.draw(state, on: &canvas)
            return canvas
        }
        if let failure = state.failure {
            FailureView.draw(failure, state: state, on: &canvas)
            return canvas
        }
        let layout = Layout(rows: state.rows, columns: state.columns)
        TitleBar.draw(state, in: layout.title, on: &canvas)
        GroupTreeView.draw(state, in: layout.groups, on: &canvas)
        Frame.vertical(
            column: layout.groups.column + layout.groups.width, row: layout.groups.row,
            height: layout.groups.height, symbols: state.symbols, on: &canvas)
        HostListView.draw(state, in: layout.hosts, on: &canvas)
        if layout.detailsBeside {
            Frame.vertical(
                column: layout.details.column - 1, row: layout.details.row, height: layout.details.height,
                symbols: state.symbols, on: &canvas)
        } else {
            canvas.fill(
                row: layout.details.row - 1, column: layout.details.column, height: 1,
                width: layout.details.width, character: state.symbols.horizontal, style: .dim)
        }
        DetailsView.draw(state, in: layout.details, on: &canvas)
        Frame.clearUnder(state.mode, layout: layout, state: state, on: &canvas)
        switch state.mode {
        case .browse: break
        case .form(let form): FormView.draw(form, state: state, on: &canvas)
        case .confirm(let confirmation): ConfirmView.draw(confirmation, state: state, on: &canvas)
        case .help(let scroll): HelpView.draw(state, scroll: scroll, on: &canvas)
        case .identities: IdentityListView.draw(state, on: &canvas)
        case .conflicts: ConflictListView.draw(state, on: &canvas)
        case .recordings: if let list = state.recordings { RecordingListView.draw(list, state: state, on: &canvas) }
        case .prompt(let prompt): PromptView.draw(prompt, state: state, on: &canvas)
        case .fleet: if let pane = state.fleet { FleetPaneView.draw(pane, state: state, on: &canvas) }
        case .files: if let pane = state.files { FilesPaneView.draw(pane, state: state, on: &canvas) }
        case .importConfig:
            if let dialog = state.importDialog { ImportDialogView.draw(dialog, state: state, on: &canvas) }
        case .snippets:
            if let picker = state.snippetPicker { SnippetPickerView.draw(picker, state: state, on: &canvas) }
        }
        StatusLine.draw(state, in: layout.status, on: &canvas)
        return canvas
    }
}

enum Frame {
    /// What a dialog or a list drawn over the main view leaves of it: a dialog (a form, a confirmation, a connect
    /// question) covers the details pane whole, not leaving cut-off text along its right edge (and its own rows
    /// whole: `box`); a list over the
    /// whole screen (help, identities, conflicts, the run pane) leaves nothing of the panes beside it, such as the
    /// group tree's `▾` along its left border. The title bar and the status line stay.
    static func clearUnder(_ mode: Mode, layout: Layout, state: UIState, on canvas: inout Canvas) {
        switch mode {
        case .browse: return
        case .form, .confirm, .prompt, .importConfig, .snippets:
            let details = layout.details
            // The separator above (the pane below the list) or beside it (a wide terminal) goes with it.
            if layout.detailsBeside {
                canvas.fill(
                    row: details.row, column: details.column - 1, height: details.height, width: details.width + 1)
            } else {
                canvas.fill(
                    row: details.row - 1, column: details.column, height: details.height + 1, width: details.width)
            }
        case .help, .identities, .conflicts, .fleet, .files, .recordings:
            canvas.fill(row: 1, column: 0, height: max(0, state.rows - 2), width: state.columns)
        }
    }

    static func vertical(column: Int, row: Int, height: Int, symbols: Symbols, on canvas: inout Canvas) {
        canvas.fill(row: row, column: column, height: height, width: 1, character: symbols.vertical, style: .dim)
    }

    /// A bordered box with a title, cleared inside; returns the inner rectangle.
    static func box(title: String, height: Int, width: Int, state: UIState, on canvas: inout Canvas) -> Rect {
        let w = min(width, state.columns - 2)
        let h = min(height, state.rows - 2)
        let top = max(1, (state.rows - 1 - h) / 2)
        let left = max(0, (state.columns - w) / 2)
        let s = state.symbols
        // A dialog's rows hold nothing but the dialog: no cut-off list or tree text beside it.
        switch state.mode {
        case .form, .confirm, .prompt, .importConfig, .snippets:
            canvas.fill(row: top, column: 0, height: h, width: state.columns)
        default: canvas.fill(row: top, column: left, height: h, width: w)
        }
        canvas.fill(row: top, column: left, height: 1, width: w, character: s.horizontal)
        canvas.fill(row: top + h - 1, column: left, height: 1, width: w, character: s.horizontal)
        canvas.fill(row: top, column: left, height: h, width: 1, character: s.vertical)
        canvas.fill(row: top, column: left + w - 1, height: h, width: 1, character: s.vertical)
        for (r, c) in [(top, left), (top, left + w - 1), (top + h - 1, left), (top + h - 1, left + w - 1)] {
            canvas.write(s == .unicode ? cornerGlyph(r == top, c == left) : "+", row: r, column: c)
        }
        canvas.write(" \(title) ", row: top, column: left + 2, width: w - 4, style: .bold, ellipsis: s.ellipsis)
        return Rect(row: top + 1, column: left + 2, height: h - 2, width: w - 4)
    }

    static func cornerGlyph(_ top: Bool, _ left: Bool) -> String {
        switch (top, left) {
        case (true, true): "┌"
        case (true, false): "┐"
        case (false, true): "└"
        case (false, false): "┘"
        }
    }
}

enum TooSmallView {
    static func draw(_ state: UIState, on canvas: inout Canvas) {
        let lines = [
            "Terminal too small",
            "\(state.columns)x\(state.rows); sshelf needs \(UIState.minimumColumns)x\(UIState.minimumRows)",
            "Enlarge the window, or press q to quit",
        ]
        let top = max(0, (state.rows - lines.count) / 2)
        for (i, line) in lines.enumerated() {
            let text = String(line.prefix(state.columns))
            canvas.write(
                text, row: top + i, column: max(0, (state.columns - text.count) / 2),
                style: i == 0 ? .bold : .plain)
        }
    }
}

enum TitleBar {
    /// Where a search looks when a group is selected, and what Tab changes it to ("in prod/eu — Tab: all").
    static func searchScope(_ state: UIState) -> String? {
        guard let group = state.selectedGroupID else { return nil }
        let path = state.catalog.tree.path(of: group)
        let dash = state.symbols == .unicode ? "\u{2014}" : "-"
        return state.search.allHosts ? "in all hosts \(dash) Tab: \(path)" : "in \(path) \(dash) Tab: all"
    }

    static func draw(_ state: UIState, in rect: Rect, on canvas: inout Canvas) {
        var col = canvas.write(" sshelf ", row: rect.row, column: 0, style: CellStyle(bold: true, reverse: true))
        let scope =
            state.groupRows[safe: state.groupCursor].map { row in
                row.groupID == nil ? "All hosts" : state.catalog.tree.path(of: row.groupID)
            } ?? "All hosts"
        col = canvas.write(
            " \(scope) ", row: rect.row, column: col + 1, width: max(0, rect.width / 3),
            style: .bold, ellipsis: state.symbols.ellipsis)
        if state.search.typing || state.search.isActive {
            col = canvas.write(" /", row: rect.row, column: col, style: .bold)
            col = canvas.write(state.search.query, row: rect.row, column: col)
            if state.search.typing {
                col = canvas.write("_", row: rect.row, column: col, style: CellStyle(reverse: true))
            }
            if let scope = searchScope(state) {
                col = canvas.write("  \(scope)", row: rect.row, column: col, style: .dim)
            }
        }
        if let notice = state.notice {
            let text = notice.text
            let width = min(CharWidth.of(text), max(0, rect.width - col - 2))
            canvas.write(
                text, row: rect.row, column: rect.width - width - 1, width: width,
                style: notice.isError ? CellStyle(color: .red, bold: true) : CellStyle(color: .green),
                ellipsis: state.symbols.ellipsis)
        } else if let attempt = state.connecting {
            let text = "connecting to \(attempt.name)... (Esc cancels)"
            let width = min(CharWidth.of(text), max(0, rect.width - col - 2))
            canvas.write(
                text, row: rect.row, column: rect.width - width - 1, width: width,
                style: CellStyle(color: .blue), ellipsis: state.symbols.ellipsis)
        } else if !state.loaded || !state.catalog.isComplete {
            canvas.write("loading...", row: rect.row, column: max(col + 1, rect.width - 11), style: .dim)
        }
    }
}

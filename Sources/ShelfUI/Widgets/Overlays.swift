// Overlays: boxes drawn over the main view — forms with inline messages, delete confirmations, the help
// screen generated from the keymap, and connect-time prompts.
import FoundationEssentials
import ShelfCore

enum FormView {
    /// One drawn line of a form: a field, a further line of a several-line field, a row of the focused pick field's
    /// matches, or the message under a field.
    enum Line { case field(Int), more(Int, String, last: Bool), pick(String, chosen: Bool), message(Int, String) }

    /// Rows of matches the focused pick field shows under it.
    static let pickRows = 5

    static func draw(_ form: Form, state: UIState, on canvas: inout Canvas) {
        var lines: [Line] = []
        for (i, field) in form.fields.enumerated() {
            lines.append(.field(i))
            if field.kind == .lines {
                let more = field.value.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
                for (n, line) in more.enumerated() { lines.append(.more(i, String(line), last: n == more.count - 1)) }
            }
            if i == form.focus, case .pick = field.kind {
                lines += pickLines(field, cursor: form.pickCursor)
            }
            if let message = form.errors[field.key] { lines.append(.message(i, message)) }
        }
        let general = form.errors[""]
        let height = lines.count + (general == nil ? 0 : 1) + 4
        let inner = Frame.box(title: form.title, height: height, width: 72, state: state, on: &canvas)
        let labelWidth = 13
        let x = inner.column + labelWidth
        let width = inner.width - labelWidth
        // Rows for fields: all but the footer, the blank above it and the whole-form message.
        let room = max(1, inner.height - 2 - (general == nil ? 0 : 1))
        // The focused field's last line (where typing happens) and the line after it stay in view.
        let focusLine =
            lines.lastIndex {
                switch $0 {
                case .field(form.focus), .more(form.focus, _, _): true
                case .pick: true
                default: false
                }
            } ?? 0
        let lastNeeded = min(lines.count - 1, focusLine + 1)
        let first = max(0, lastNeeded - room + 1)
        var y = inner.row
        for line in lines.dropFirst(first).prefix(room) {
            switch line {
            case .message(_, let message):
                canvas.write(
                    "\(state.symbols.fallback) \(message)", row: y, column: x, width: width, style: .error,
                    ellipsis: state.symbols.ellipsis)
            case .field(let i):
                drawField(
                    form.fields[i], focused: i == form.focus, row: y, label: inner.column, x: x, width: width,
                    state: state, on: &canvas)
            case .more(let i, let text, let last):
                let end = canvas.write(text, row: y, column: x, width: width - 1, ellipsis: state.symbols.ellipsis)
                if last, i == form.focus { canvas.write(" ", row: y, column: end, style: CellStyle(reverse: true)) }
            case .pick(let name, let chosen):
                canvas.write(
                    name, row: y, column: x + 2, width: width - 2,
                    style: chosen ? CellStyle(reverse: true) : .dim, ellipsis: state.symbols.ellipsis)
            }
            y += 1
        }
        if let general {
            canvas.write(
                "could not save: \(general)", row: inner.row + room, column: inner.column, width: inner.width,
                style: CellStyle(color: .red, bold: true), ellipsis: state.symbols.ellipsis)
        }
        let footer = form.pending ? "saving..." : footerText(form)
        canvas.write(
            footer, row: inner.row + inner.height - 1, column: inner.column, width: inner.width, style: .dim,
            ellipsis: state.symbols.ellipsis)
    }

    /// The keys that matter in the focused field.
    static func footerText(_ form: Form) -> String {
        switch form.fields[form.focus].kind {
        case .lines: "Enter new line, Tab next field, Esc cancel"
        case .pick: "type to filter, Ctrl-N/P move, Enter pick, Ctrl-A new identity, Esc cancel"
        case .secret: "typed, never shown; Ctrl-U on empty removes the stored one; Enter save"
        case .text, .choice, .toggle: "Tab next, Space or arrows choose, Enter save, Esc cancel"
        }
    }

    /// The focused pick field's matches (at most `pickRows`, the highlighted one in view), or a line saying there is
    /// none and how to add one.
    static func pickLines(_ field: FormField, cursor: Int) -> [Line] {
        let matches = field.pickMatches
        guard case .pick(let options) = field.kind, !options.contains(field.value) || field.value.isEmpty else {
            return []
        }
        if matches.isEmpty {
            return [
                .pick(
                    options.isEmpty ? "no identities yet: Ctrl-A adds one" : "none matches: Ctrl-A adds one",
                    chosen: false)
            ]
        }
        let first = max(0, min(cursor - pickRows + 1, matches.count - pickRows))
        var out = matches.enumerated().dropFirst(first).prefix(pickRows).map {
            Line.pick($0.element, chosen: $0.offset == cursor)
        }
        if matches.count > pickRows { out.append(.pick("(\(matches.count) matches; Ctrl-N/P scroll)", chosen: false)) }
        return out
    }

    static func drawField(
        _ field: FormField, focused: Bool, row y: Int, label: Int, x: Int, width: Int, state: UIState,
        on canvas: inout Canvas
    ) {
        canvas.write(field.label, row: y, column: label, style: focused ? .bold : .dim)
        switch field.kind {
        case .secret(let stored):
            // Never the characters: one star each while typing, else whether one is stored.
            let words =
                !field.value.isEmpty
                ? String(repeating: "*", count: field.value.count)
                : field.cleared
                    ? "not set (the stored one is removed on save; Ctrl-U keeps it)"
                    : stored ? "set (type to replace it)" : "not set"
            let style: CellStyle = field.value.isEmpty ? (field.cleared ? CellStyle(color: .orange) : .dim) : .plain
            let end = canvas.write(
                words, row: y, column: x, width: width - 2, style: style,
                ellipsis: state.symbols.ellipsis)
            // Typing goes after the stars; over the words, the cursor stands one blank after them.
            if focused {
                canvas.write(" ", row: y, column: field.value.isEmpty ? end + 1 : end, style: CellStyle(reverse: true))
            }
        case .lines:
            let first = String(field.value.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            if field.value.isEmpty && !focused {
                canvas.write(
                    field.placeholder, row: y, column: x, width: width, style: .dim,
                    ellipsis: state.symbols.ellipsis)
            } else {
                let end = canvas.write(first, row: y, column: x, width: width - 1, ellipsis: state.symbols.ellipsis)
                if focused, !field.value.contains("\n") {
                    canvas.write(" ", row: y, column: end, style: CellStyle(reverse: true))
                }
            }
        case .text, .pick:
            if field.value.isEmpty && !focused {
                canvas.write(
                    field.placeholder, row: y, column: x, width: width, style: .dim, ellipsis: state.symbols.ellipsis)
            } else {
                // Show the end of a long value, where typing happens.
                let shown =
                    CharWidth.of(field.value) >= width ? CharWidth.suffix(field.value, fitting: width - 1) : field.value
                let end = canvas.write(shown, row: y, column: x)
                if focused { canvas.write(" ", row: y, column: end, style: CellStyle(reverse: true)) }
            }
        case .choice(let options):
            var cx = x
            for option in options {
                let chosen = option == field.value
                let text = chosen ? "(\(option))" : " \(option) "
                if cx + text.count > x + width {
                    canvas.write(String(state.symbols.ellipsis), row: y, column: min(cx, x + width - 1), style: .dim)
                    break
                }
                cx =
                    canvas.write(
                        text, row: y, column: cx, style: chosen ? CellStyle(bold: true, reverse: focused) : .dim) + 1
            }
        case .toggle:
            canvas.write(
                field.isOn ? state.symbols.check : state.symbols.unchecked, row: y, column: x,
                style: focused ? CellStyle(bold: true, reverse: true) : .plain)
        }
    }
}

enum ConfirmView {
    static func draw(_ confirmation: Confirmation, state: UIState, on canvas: inout Canvas) {
        let width = min(72, max(40, (confirmation.lines.map(CharWidth.of).max() ?? 0) + 6))
        let inner = Frame.box(
            title: confirmation.title, height: confirmation.lines.count + 5, width: width,
            state: state, on: &canvas)
        for (i, line) in confirmation.lines.enumerated() {
            canvas.write(
                line, row: inner.row + i, column: inner.column, width: inner.width,
                style: i == 0 ? .bold : .plain, ellipsis: state.symbols.ellipsis)
        }
        var x = canvas.write(
            "y", row: inner.row + inner.height - 1, column: inner.column, style: CellStyle(color: .red, bold: true))
        x = canvas.write(" \(confirmation.yesLabel)   ", row: inner.row + inner.height - 1, column: x)
        x = canvas.write("n", row: inner.row + inner.height - 1, column: x, style: .bold)
        canvas.write(" / Esc \(confirmation.noLabel)", row: inner.row + inner.height - 1, column: x)
    }
}

enum HelpView {
    /// The help text, one line per binding, grouped by context; disabled bindings say why.
    static func lines(_ state: UIState) -> [(String, CellStyle)] {
        var out: [(String, CellStyle)] = []
        for context in KeyContext.allCases {
            if !out.isEmpty { out.append(("", .plain)) }
            out.append((context.rawValue, .bold))
            for binding in Keymap.bindings(in: context) {
                var text =
                    (state.symbols == .ascii ? binding.asciiKeyLabel : binding.keyLabel).padded(to: keyColumn)
                    + binding.description
                var style = CellStyle.plain
                if context == .browse, let reason = binding.disabledReason(StateForHelp.browsing(state)) {
                    text += " (now: \(reason))"
                    style = .dim
                }
                out.append((text, style))
            }
        }
        return out
    }

    static let keyColumn = 16

    /// `lines` as drawn `width` cells wide: a description too long for one line goes on under itself, never cut.
    static func wrapped(_ state: UIState, width: Int) -> [(String, CellStyle)] {
        lines(state).flatMap { line -> [(String, CellStyle)] in
            guard CharWidth.of(line.0) > width, width > keyColumn + 8 else { return [line] }
            let key = String(line.0.prefix(keyColumn))
            let indent = String(repeating: " ", count: keyColumn)
            return WordWrap.lines(String(line.0.dropFirst(keyColumn)), width: width - keyColumn).enumerated().map {
                (($0.offset == 0 ? key : indent) + $0.element, line.1)
            }
        }
    }

    static func draw(_ state: UIState, scroll: Int, on canvas: inout Canvas) {
        let inner = Frame.box(title: "Keys", height: state.rows - 2, width: 96, state: state, on: &canvas)
        let all = wrapped(state, width: inner.width)
        let rows = max(1, inner.height - 1)
        let start = min(scroll, max(0, all.count - rows))
        for (i, line) in all.dropFirst(start).prefix(rows).enumerated() {
            canvas.write(
                line.0, row: inner.row + i, column: inner.column, width: inner.width, style: line.1,
                ellipsis: state.symbols.ellipsis)
        }
        canvas.write(
            "j/k scroll; Esc, q or ? closes", row: inner.row + inner.height - 1, column: inner.column,
            width: inner.width, style: .dim)
    }
}

/// The help screen judges "disabled because" as if the user were browsing (the help overlay itself is open).
enum StateForHelp {
    static func browsing(_ state: UIState) -> UIState {
        var copy = state
        copy.mode = .browse
        return copy
    }
}

enum PromptView {
    static func draw(_ prompt: ConnectPrompt, state: UIState, on canvas: inout Canvas) {
        switch prompt {
        case .hostKey(let host, let keyType, let fingerprint):
            let inner = Frame.box(title: "Unknown host key", height: 8, width: 76, state: state, on: &canvas)
            canvas.write(
                "\(host) offered \(KeyTypeArticle.with(keyType)) key:", row: inner.row, column: inner.column,
                width: inner.width)
            canvas.write(fingerprint, row: inner.row + 1, column: inner.column, width: inner.width, style: .bold)
            canvas.write(
                "Check it with the server's owner before trusting it.", row: inner.row + 2,
                column: inner.column, width: inner.width, style: .dim)
            canvas.write("y trust and pin   n / Esc refuse", row: inner.row + 4, column: inner.column)
        case .keyMismatch(let mismatch):
            drawMismatch(mismatch, state: state, on: &canvas)
        case .secret(let host, let text, let echo, let input, let remember, let offer):
            let inner = Frame.box(title: "Connecting to \(host)", height: 8, width: 72, state: state, on: &canvas)
            // The question may be long (a server's instruction before its prompt): two lines, the end kept.
            let lines = WordWrap.lines(text, width: inner.width)
            for (i, line) in lines.suffix(2).enumerated() {
                canvas.write(
                    line, row: inner.row + i, column: inner.column, width: inner.width,
                    ellipsis: state.symbols.ellipsis)
            }
            // Masked: one star per character, never the characters; the end of a long entry stays in view.
            let typed = echo ? input : String(repeating: "*", count: input.count)
            let shown = CharWidth.of(typed) >= inner.width ? CharWidth.suffix(typed, fitting: inner.width - 1) : typed
            let end = canvas.write(shown, row: inner.row + 2, column: inner.column)
            canvas.write(" ", row: inner.row + 2, column: end, style: CellStyle(reverse: true))
            if offer {
                canvas.write(
                    "\(remember ? state.symbols.check : state.symbols.unchecked) remember in the vault (Tab)",
                    row: inner.row + 3, column: inner.column)
            }
            canvas.write("Enter sends, Esc cancels", row: inner.row + 5, column: inner.column, style: .dim)
        case .vaultPassphrase(let text, let input):
            let inner = Frame.box(
                title: VaultDialogText.isCreate(text) ? "Create the vault" : "Unlock the vault", height: 8, width: 72,
                state: state, on: &canvas)
            for (i, line) in WordWrap.lines(text, width: inner.width).suffix(2).enumerated() {
                canvas.write(
                    line, row: inner.row + i, column: inner.column, width: inner.width,
                    style: line.hasPrefix("Wrong") || line.hasPrefix("The two passphrases differ")
                        ? CellStyle(color: .red, bold: true) : .plain,
                    ellipsis: state.symbols.ellipsis)
            }
            let typed = String(repeating: "*", count: input.count)
            let shown = typed.count >= inner.width ? String(typed.suffix(inner.width - 1)) : typed
            let end = canvas.write(shown, row: inner.row + 2, column: inner.column)
            canvas.write(" ", row: inner.row + 2, column: end, style: CellStyle(reverse: true))
            canvas.write("Enter unlocks, Esc leaves it locked", row: inner.row + 5, column: inner.column, style: .dim)
        }
    }

    /// The changed-key and other-type dialogs: what was offered, what is known and from where, and the only way
    /// on — typing the host's name. Fingerprints get a line of their own, so they are never cut at 80 columns.
    static func drawMismatch(_ m: KeyMismatch, state: UIState, on canvas: inout Canvas) {
        let width = min(88, state.columns - 2)
        let text = width - 4
        var lines: [(String, CellStyle)] = []
        func paragraph(_ words: String, _ style: CellStyle = .plain) {
            for line in WordWrap.lines(words, width: text) { lines.append((line, style)) }
        }
        let red = CellStyle(color: .red, bold: true)
        let title: String
        switch m.kind {
        case .changed:
            title = "HOST KEY CHANGED"
            paragraph("\(m.host) (\(m.address)) offered a different host key than the one known for it.", red)
            paragraph("Someone may be intercepting the connection, or the server was reinstalled.")
            paragraph("Nothing was sent and no credential was read.")
            lines.append(("", .plain))
            lines.append(("known, from \(m.source):", .dim))
            for key in m.known.isEmpty ? ["(a pinned key that cannot be read)"] : m.known {
                lines.append(("  " + key, .bold))
            }
        case .otherType:
            title = "Host key of another type"
            paragraph("\(m.host) (\(m.address)) now offers a key of a type it is not known under.", red)
            paragraph("Nothing has been sent to it yet.")
            lines.append(("", .plain))
            lines.append(("known only as, from \(m.source):", .dim))
            for type in m.known { lines.append(("  " + type, .bold)) }
        }
        lines.append(("offered now:", .dim))
        lines.append(("  " + m.offered, red))
        lines.append(("", .plain))
        let verb = m.kind == .changed ? "replace the pin and connect" : "trust it and connect"
        let refuse = m.kind == .changed ? "Esc keeps the pin and does not connect." : "Esc refuses."
        paragraph(
            "Check the new fingerprint with the server's owner. To \(verb), type the host's name (\(m.host)) "
                + "and press Enter. \(refuse)")
        let entry = lines.count
        lines.append(("", .plain))
        if m.mistyped { paragraph("That is not '\(m.host)': type the host's name exactly, or press Esc.", red) }
        let inner = Frame.box(title: title, height: lines.count + 2, width: width, state: state, on: &canvas)
        // A short terminal keeps the end (where typing happens) and drops the explanation's first lines.
        let skip = max(0, lines.count - inner.height)
        for (i, line) in lines.dropFirst(skip).enumerated() where i < inner.height {
            let row = inner.row + i
            if skip + i == entry {
                let prompt = canvas.write("> ", row: row, column: inner.column, style: .bold)
                let room = inner.width - 3
                let shown = CharWidth.of(m.input) >= room ? CharWidth.suffix(m.input, fitting: room - 1) : m.input
                let end = canvas.write(shown, row: row, column: prompt)
                canvas.write(" ", row: row, column: end, style: CellStyle(reverse: true))
            } else {
                canvas.write(
                    line.0, row: row, column: inner.column, width: inner.width, style: line.1,
                    ellipsis: state.symbols.ellipsis)
            }
        }
    }
}

// FleetPaneView: the run pane — each host's state and how it ended, then every distinct output once under the hosts
// that gave it; the command question and the typed confirmation as boxes over it.
import FoundationEssentials
import ShelfCore

enum FleetPaneView {
    static func draw(_ pane: FleetPane, state: UIState, on canvas: inout Canvas) {
        if case .command = pane.phase {
            drawQuestion(pane, state: state, on: &canvas)
            return
        }
        drawRun(pane, state: state, on: &canvas)
        if let opened = pane.opened, pane.hosts.indices.contains(opened) {
            drawOpened(pane.hosts[opened], scroll: pane.openedScroll, state: state, on: &canvas)
            return
        }
        if case .confirm(let reason, let answer) = pane.phase {
            drawConfirmation(pane, reason: reason, answer: answer, state: state, on: &canvas)
        }
    }

    /// One line of the pane's scrolling part.
    struct Line {
        var parts: [(String, CellStyle, Int?)]
        init(_ text: String, _ style: CellStyle = .plain) { parts = [(text, style, nil)] }
        init(parts: [(String, CellStyle, Int?)]) { self.parts = parts }
    }

    static func style(_ state: FleetPane.HostLine.State) -> CellStyle {
        switch state {
        case .queued, .notStarted: .dim
        case .connecting, .running: CellStyle(color: .blue)
        case .done: CellStyle(color: .green, bold: true)
        case .failed, .stopped: CellStyle(color: .red, bold: true)
        case .skipped: CellStyle(color: .orange, bold: true)
        }
    }

    static func counts(_ pane: FleetPane) -> String {
        var counted: [FleetPane.HostLine.State: Int] = [:]
        for host in pane.hosts { counted[host.state, default: 0] += 1 }
        let order: [FleetPane.HostLine.State] = [
            .done, .failed, .skipped, .stopped, .running, .connecting, .queued,
            .notStarted,
        ]
        let words = order.compactMap { state in counted[state].map { "\($0) \(state.rawValue)" } }
        return "\(pane.hosts.count) host\(pane.hosts.count == 1 ? "" : "s"): " + words.joined(separator: ", ")
    }

    static func lines(_ pane: FleetPane, width: Int) -> [Line] {
        let nameWidth = min(max(8, pane.hosts.map { CharWidth.of($0.name) }.max() ?? 0), max(8, width / 3))
        var out: [Line] = []
        let cursor = pane.phase == .running || pane.phase == .ended ? pane.selected : -1
        for (index, host) in pane.hosts.enumerated() {
            out.append(
                Line(parts: [
                    (host.name, index == cursor ? CellStyle(bold: true, reverse: true) : .bold, nameWidth),
                    (host.state.rawValue, style(host.state), 12),
                    (host.detail, .plain, nil),
                ]))
        }
        for group in pane.groups {
            out.append(Line(""))
            out.append(Line("\(HostRanges.fold(group.hosts)) (\(group.hosts.count))", .bold))
            out += group.stdout.map { Line($0) }
            if !group.stderr.isEmpty {
                out.append(Line("--- stderr", .dim))
                out += group.stderr.map { Line($0, CellStyle(color: .orange)) }
            }
        }
        return out
    }

    static func drawRun(_ pane: FleetPane, state: UIState, on canvas: inout Canvas) {
        let inner = Frame.box(
            title: "Run: \(pane.command)", height: state.rows - 2, width: state.columns,
            state: state, on: &canvas)
        let e = state.symbols.ellipsis
        let head: String
        switch pane.phase {
        case .command, .confirm:
            head = "waiting to start on \(pane.hosts.count) host\(pane.hosts.count == 1 ? "" : "s")"
        case .starting:
            head = "starting on \(pane.hosts.count) host\(pane.hosts.count == 1 ? "" : "s")..."
        case .running: head = counts(pane) + (pane.stops == 0 ? "" : pane.stops == 1 ? " (stopping)" : " (killing)")
        case .ended: head = pane.summary ?? counts(pane)
        }
        canvas.write(
            head, row: inner.row, column: inner.column, width: inner.width,
            style: pane.phase == .ended ? .bold : CellStyle(color: .blue), ellipsis: e)
        let all = lines(pane, width: inner.width)
        let room = max(1, inner.height - 3)
        let first = min(pane.scroll, max(0, all.count - room))
        for (i, line) in all.dropFirst(first).prefix(room).enumerated() {
            var x = inner.column
            let y = inner.row + 2 + i
            for (text, style, width) in line.parts {
                let cell = width ?? (inner.column + inner.width - x)
                canvas.write(
                    text, row: y, column: x, width: min(cell, inner.column + inner.width - x), style: style,
                    ellipsis: e)
                x += cell + 1
                if x >= inner.column + inner.width { break }
            }
        }
        let more = all.count > first + room ? "  (\(all.count - first - room) more lines: j/PgDn)" : ""
        let footer: String
        switch pane.phase {
        case .ended:
            let again = pane.unsuccessful.count
            footer =
                (again == 0 ? "" : "f repeat on the \(again) that did not succeed, ")
                + "Enter a host's whole output, j/k move, Esc/q close" + more
        default:
            footer =
                (pane.stops == 0 ? "Esc stops starting hosts" : "Esc again stops the running hosts")
                + ", Enter a host's whole output" + more
        }
        canvas.write(
            footer, row: inner.row + inner.height - 1, column: inner.column, width: inner.width, style: .dim,
            ellipsis: e)
    }

    /// One host's whole status (its error wrapped, never cut: a refused key's fingerprints and fix are at its end)
    /// and everything it printed, scrolled, over the pane.
    static func drawOpened(_ host: FleetPane.HostLine, scroll: Int, state: UIState, on canvas: inout Canvas) {
        let inner = Frame.box(
            title: "\(host.name): \(host.state.rawValue)", height: state.rows - 2, width: state.columns,
            state: state, on: &canvas)
        let e = state.symbols.ellipsis
        var all = wrapped(host.detail.isEmpty ? host.state.rawValue : host.detail, width: inner.width).map {
            Line($0, style(host.state))
        }
        if !host.output.isEmpty {
            all.append(Line(""))
            for text in host.output {
                all += wrapped(text, width: inner.width).map { Line($0, text == "--- stderr" ? .dim : .plain) }
            }
        }
        let room = max(1, inner.height - 1)
        let first = min(scroll, max(0, all.count - room))
        for (i, line) in all.dropFirst(first).prefix(room).enumerated() {
            for (text, style, _) in line.parts {
                canvas.write(
                    text, row: inner.row + i, column: inner.column, width: inner.width, style: style, ellipsis: e)
            }
        }
        let more = all.count > first + room ? "  (\(all.count - first - room) more lines: j/PgDn)" : ""
        canvas.write(
            "j/k scroll, Enter/Esc back to the hosts" + more, row: inner.row + inner.height - 1,
            column: inner.column, width: inner.width, style: .dim, ellipsis: e)
    }

    /// `text` in lines of at most `width` columns: at spaces where it can, inside a word longer than a line.
    static func wrapped(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var out: [String] = []
        for line in WordWrap.lines(text, width: width) {
            var rest = Substring(line)
            while CharWidth.of(String(rest)) > width {
                var cut = rest.startIndex
                var used = 0
                while cut < rest.endIndex {
                    let next = CharWidth.of(String(rest[cut]))
                    if used + next > width { break }
                    used += next
                    cut = rest.index(after: cut)
                }
                if cut == rest.startIndex { cut = rest.index(after: cut) }
                out.append(String(rest[..<cut]))
                rest = rest[cut...]
            }
            out.append(String(rest))
        }
        return out
    }

    static func hostList(_ pane: FleetPane, width: Int = 160) -> String {
        HostRanges.fold(pane.hosts.map(\.name), within: width)
    }

    static func drawQuestion(_ pane: FleetPane, state: UIState, on canvas: inout Canvas) {
        let count = pane.hosts.count
        let inner = Frame.box(
            title: "Run a command on \(count) host\(count == 1 ? "" : "s")", height: 8, width: 72,
            state: state, on: &canvas)
        let e = state.symbols.ellipsis
        canvas.write(hostList(pane), row: inner.row, column: inner.column, width: inner.width, style: .dim, ellipsis: e)
        canvas.write("Command", row: inner.row + 2, column: inner.column, style: .bold)
        let x = inner.column + 9
        let width = inner.column + inner.width - x
        let fits = CharWidth.of(pane.command) < width
        let shown = fits ? pane.command : CharWidth.suffix(pane.command, fitting: width - 1)
        let end = canvas.write(shown, row: inner.row + 2, column: x)
        canvas.write(" ", row: inner.row + 2, column: end, style: CellStyle(reverse: true))
        canvas.write(
            "Enter run, Esc cancel", row: inner.row + inner.height - 1, column: inner.column,
            width: inner.width, style: .dim, ellipsis: e)
    }

    static func drawConfirmation(
        _ pane: FleetPane, reason: String, answer: String, state: UIState,
        on canvas: inout Canvas
    ) {
        let width = min(72, state.columns - 2)
        let text = WordWrap.lines("This run needs a confirmation: \(reason).", width: width - 4)
        let hosts = WordWrap.lines("Hosts: " + hostList(pane), width: width - 4).prefix(2)
        let inner = Frame.box(
            title: "Run on \(pane.hosts.count) hosts?", height: text.count + hosts.count + 8,
            width: width, state: state, on: &canvas)
        let e = state.symbols.ellipsis
        var y = inner.row
        for line in text {
            canvas.write(line, row: y, column: inner.column, width: inner.width, style: .bold, ellipsis: e)
            y += 1
        }
        for line in hosts {
            canvas.write(line, row: y, column: inner.column, width: inner.width, ellipsis: e)
            y += 1
        }
        y += 1
        let prompt = "Type \(answer) (the number of hosts) to go ahead: "
        var x = canvas.write(prompt, row: y, column: inner.column)
        x = canvas.write(pane.answer, row: y, column: x)
        canvas.write(" ", row: y, column: x, style: CellStyle(reverse: true))
        if pane.mistyped {
            canvas.write(
                "That is not \(answer): nothing was run", row: y + 1, column: inner.column, width: inner.width,
                style: .error, ellipsis: e)
        }
        canvas.write(
            "Enter run, Esc cancel", row: inner.row + inner.height - 1, column: inner.column,
            width: inner.width, style: .dim, ellipsis: e)
    }
}

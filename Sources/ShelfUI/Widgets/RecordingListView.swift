// RecordingListView: the recordings list (`R`) over the whole screen — a row per recording (when it started, how
// long, the file's size, which client, whether typed keys were kept, its state), or a search's hits (the
// recording, the time in it, the text around it), with the search line and the removal question at the bottom.
import FoundationEssentials
import ShelfCore

enum RecordingListView {
    static func draw(_ list: RecordingList, state: UIState, on canvas: inout Canvas) {
        let count = list.rows.map { " (\($0.count))" } ?? ""
        let inner = Frame.box(
            title: "Recordings of \(SnippetPickerView.flat(list.hostName))\(count)", height: state.rows - 2,
            width: 120, state: state, on: &canvas)
        let e = state.symbols.ellipsis
        var row = inner.row
        func line(_ text: String, _ style: CellStyle = .plain) {
            guard row < inner.row + inner.height - 2 else { return }
            canvas.write(text, row: row, column: inner.column, width: inner.width, style: style, ellipsis: e)
            row += 1
        }
        let room = max(1, inner.height - 4)
        if let hits = list.hits {
            let places = "\(hits.count) place\(hits.count == 1 ? "" : "s")"
            line("'\(SnippetPickerView.flat(list.query))' showed in \(places)", .bold)
            if hits.isEmpty { line("not found in this host's recordings", .dim) }
            let first = max(0, min(list.hitCursor - room + 1, hits.count - room))
            for (offset, hit) in hits.dropFirst(first).prefix(room).enumerated() {
                let selected = first + offset == list.hitCursor
                let at = "+" + duration(hit.time)
                line(
                    "\(selected ? ">" : " ") \(String(hit.id.uuidString.lowercased().prefix(8)))  "
                        + "\(at.padded(to: 8))  \(SnippetPickerView.flat(hit.context))",
                    selected ? CellStyle(bold: true, reverse: true) : .plain)
            }
        } else if list.searching {
            line("searching for '\(SnippetPickerView.flat(list.query))'...", .dim)
        } else if let rows = list.rows {
            if let problem = list.problem {
                line(problem, CellStyle(color: .red, bold: true))
            } else if rows.isEmpty {
                line(
                    "No recorded sessions of this host. To record its sessions: sshelf edit "
                        + "\(ShellWord.quote(SnippetPickerView.flat(list.hostName))) --record on", .dim)
            } else {
                line(
                    "  " + "ID".padded(to: 10) + "STARTED".padded(to: 16) + "LENGTH".padded(to: 9)
                        + "SIZE".padded(to: 10) + "CLIENT".padded(to: 9) + "INPUT".padded(to: 7) + "STATE", .dim)
            }
            let first = max(0, min(list.cursor - room + 1, rows.count - room))
            for (offset, recording) in rows.dropFirst(first).prefix(room).enumerated() {
                let selected = first + offset == list.cursor
                let text =
                    "\(selected ? ">" : " ") " + recording.shortID.padded(to: 10)
                    + RelativeTime.words(recording.started, now: state.now).padded(to: 16)
                    + duration(recording.seconds).padded(to: 9)
                    + ForwardLive.bytes(Int64(recording.fileBytes)).padded(to: 10)
                    + (recording.by == "openssh" ? "OpenSSH" : "own").padded(to: 9)
                    + (recording.input ? "kept" : "no").padded(to: 7) + SnippetPickerView.flat(recording.state)
                line(text, selected ? CellStyle(bold: true, reverse: true) : .plain)
            }
        } else {
            line("reading the recordings...", .dim)
        }
        let bottom = inner.row + inner.height - 1
        let footer: (String, CellStyle)
        if let id = list.removing {
            footer = (
                "Remove recording \(String(id.uuidString.lowercased().prefix(8)))? y removes it (the release log says"
                    + " so), any other key keeps it", CellStyle(color: .red, bold: true)
            )
        } else if list.typing {
            footer = ("Search: \(SnippetPickerView.flat(list.query))_", .bold)
        } else if list.hits != nil {
            footer = ("Enter plays from the hit, / searches again, Esc back to the recordings", .dim)
        } else {
            footer = ("Enter plays, / searches what they showed, d removes, Esc back", .dim)
        }
        canvas.write(footer.0, row: bottom, column: inner.column, width: inner.width, style: footer.1, ellipsis: e)
    }

    /// 1:05 or 1:02:05.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds).rounded(.down))
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        return h > 0
            ? "\(h):\(TextFormat.zeroPadded(m, width: 2)):\(TextFormat.zeroPadded(s, width: 2))"
            : "\(m):\(TextFormat.zeroPadded(s, width: 2))"
    }
}

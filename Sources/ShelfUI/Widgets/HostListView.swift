// HostListView: the hosts of the selected group (or the search results) — name, user@host:port, tags and
// last connected, with the characters a search matched underlined and coloured.
import Foundation
import ShelfCore

enum HostListView {
    struct Columns {
        var name: Int
        var destination: Int
        var tags: Int
        var last: Int
    }

    static func columns(width: Int) -> Columns {
        let last = width >= 70 ? 12 : 0
        let rest = width - last - 3
        let name = max(8, rest * 3 / 10)
        let destination = max(8, rest * 4 / 10)
        return Columns(name: name, destination: destination, tags: max(0, rest - name - destination), last: last)
    }

    static func draw(_ state: UIState, in rect: Rect, on canvas: inout Canvas) {
        let focused = state.focus == .hosts && state.mode == .browse
        let c = columns(width: rect.width)
        let list = state.visible
        let x = rect.column
        let headerStyle = focused ? CellStyle.bold : CellStyle.dim
        // The first screenful of a large store: the count is the store's, the rows follow when loaded.
        let whole = !state.catalog.isComplete && !state.search.isActive && state.selectedGroupID == nil
        canvas.write("Hosts \(whole ? state.catalog.totalCount : list.count)", row: rect.row, column: x + 1,
                     width: c.name, style: headerStyle)
        canvas.write("Address", row: rect.row, column: x + 1 + c.name + 1, style: headerStyle)
        if c.tags > 4 { canvas.write("Tags", row: rect.row, column: x + 2 + c.name + 1 + c.destination, style: headerStyle) }
        if c.last > 0 { canvas.write("Last", row: rect.row, column: x + rect.width - c.last, style: headerStyle) }
        if list.isEmpty {
            let message: String
            if !state.loaded {
                message = "loading..."
            } else if let error = state.loadError {
                message = error
            } else if state.search.isRunning {
                message = state.catalog.isComplete ? "searching..." : "loading all hosts to search..."
            } else if state.search.isActive {
                message = "no host matches '\(state.search.query)' (Esc clears)"
            } else if state.catalog.totalCount == 0 {
                message = "No hosts yet. Press a to add one."
            } else {
                message = "No hosts in this group."
            }
            canvas.write(message, row: rect.row + 2, column: x + 2, width: rect.width - 3, style: .dim)
            return
        }
        let query = state.search.isActive ? HostQuery(state.search.query) : nil
        let table = state.catalog.table
        let rows = max(0, rect.height - 1)
        for (i, row) in list.dropFirst(state.hostScroll).prefix(rows).enumerated() {
            let y = rect.row + 1 + i
            let row = Int(row)
            let fields = table.fields(row)
            let name = fields[safe: 0] ?? "", hostname = fields[safe: 1] ?? "", user = fields[safe: 2] ?? ""
            let tags = Array(fields.dropFirst(3))
            // Highlights only for the rows on screen: at most a screenful of matcher calls per frame.
            let marks = query.map { state.catalog.matcher.highlights(row, $0) } ?? HostHighlights()
            let destination = Destination(user: user, hostname: hostname, port: table.port(row), marks: marks)
            let e = state.symbols.ellipsis
            field(name, matched: marks.name, row: y, column: x + 1, width: c.name, ellipsis: e, on: &canvas)
            field(destination.text, matched: destination.matched, row: y, column: x + 2 + c.name,
                  width: c.destination, ellipsis: e, on: &canvas, style: .plain)
            if c.tags > 2 {
                var tagMatches: [Int] = []
                var offset = 0
                for (t, tag) in tags.enumerated() {
                    tagMatches += (marks.tags[t] ?? []).map { $0 + offset }
                    offset += tag.count + 1
                }
                field(tags.joined(separator: ","), matched: tagMatches, row: y, column: x + 3 + c.name + c.destination,
                      width: c.tags - 1, ellipsis: e, on: &canvas, style: .dim)
            }
            if c.last > 0, let last = table.lastConnected(row) {
                canvas.write(RelativeTime.words(Date(timeIntervalSince1970: last), now: state.now), row: y,
                             column: x + rect.width - c.last, width: c.last, style: .dim)
            }
            if state.hostScroll + i == state.hostCursor {
                canvas.restyle(row: y, column: x, width: rect.width) { style in
                    if focused || state.focus == .forwards { style.reverse = true } else { style.bold = true }
                }
            }
        }
    }

    /// `user@hostname:port` as `Host.destination` writes it, with the user's and host name's highlights moved
    /// to where they are drawn.
    struct Destination {
        var text: String
        var matched: [Int]

        init(user: String, hostname: String, port: Int, marks: HostHighlights) {
            let userPart = user.isEmpty ? "" : "\(user)@"
            let bracketed = port != ShelfCore.Host.defaultPort && hostname.contains(":")
            let hostPart = bracketed ? "[\(hostname)]" : hostname
            text = userPart + hostPart + (port != ShelfCore.Host.defaultPort ? ":\(port)" : "")
            let hostStart = userPart.count + (bracketed ? 1 : 0)
            matched = marks.user + marks.hostname.map { $0 + hostStart }
        }
    }

    /// Draws one field, highlighting the matched characters (offsets are characters of `text`; a
    /// double-width character takes two cells, so columns are counted separately).
    static func field(_ text: String, matched: [Int], row: Int, column: Int, width: Int, ellipsis: Character,
                      on canvas: inout Canvas, style: CellStyle = .plain) {
        guard width > 0 else { return }
        let cut = CharWidth.of(text) > width
        let room = cut ? width - 1 : width
        var x = 0
        for (i, ch) in text.enumerated() {
            let w = CharWidth.of(ch)
            if x + w > room { break }
            let hit = matched.contains(i)
            canvas.write(String(ch), row: row, column: column + x,
                         style: hit ? CellStyle(color: .orange, bold: true, underline: true) : style)
            x += w
        }
        if cut { canvas.write(String(ellipsis), row: row, column: column + x, style: style) }
    }
}

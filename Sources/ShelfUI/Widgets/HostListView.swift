// HostListView: the hosts of the selected group (or the search results) — name, user@host:port, tags and
// last connected, with the characters a search matched underlined and coloured.
import Foundation

enum HostListView {
    struct Columns {
        var name: Int
        var destination: Int
        var tags: Int
        var last: Int
    }

    /// Widths for the list's columns: "Last" fixed when there is room, and the rest shared by what the rows on
    /// screen need (`natural`: their longest name, address and tags, in cells). A column that needs less than an
    /// even share gets all it needs (so `user@host:port` shows whole when it can), the others split what is left;
    /// what is left goes to the tags. Text is cut only where it cannot fit.
    static func columns(width: Int, natural: (name: Int, destination: Int, tags: Int)) -> Columns {
        let last = width >= 70 ? 12 : 0
        let rest = max(0, width - last - 3)
        // The headers ("Hosts 123", "Address") need their room too.
        let tags = natural.tags > 0 ? natural.tags + 1 : 0
        // Tags matter least: they keep an eighth of the room at most until name and address have what they need.
        let reserved = min(tags, rest / 8)
        let given = share(rest - reserved, needs: [max(natural.name, 9), max(natural.destination, 7)])
        return Columns(name: given[0], destination: given[1], tags: rest - given[0] - given[1], last: last)
    }

    /// Max-min fair shares of `total`: each gets at most what it needs, and what one does not need is split
    /// among the others.
    static func share(_ total: Int, needs: [Int]) -> [Int] {
        var given = needs.map { _ in 0 }
        var open = Set(needs.indices.filter { needs[$0] > 0 })
        var left = total
        while !open.isEmpty, left > 0 {
            let even = left / open.count
            let satisfied = open.filter { needs[$0] - given[$0] <= even }
            if satisfied.isEmpty {
                // Nobody fits in an even share: split what is left, the earlier columns taking the remainder.
                for (n, i) in open.sorted().enumerated() { given[i] += even + (n < left % open.count ? 1 : 0) }
                break
            }
            for i in satisfied {
                left -= needs[i] - given[i]
                given[i] = needs[i]
                open.remove(i)
            }
        }
        return given
    }

    /// The longest name, address and tags (in cells) of the rows on screen.
    static func naturalWidths(_ state: UIState, rows: Int) -> (name: Int, destination: Int, tags: Int) {
        var widths = (name: 0, destination: 0, tags: 0)
        for index in state.visible.dropFirst(state.hostScroll).prefix(rows) {
            let entry = state.catalog.entries[index]
            widths.name = max(widths.name, CharWidth.of(entry.name))
            widths.destination = max(widths.destination, CharWidth.of(entry.destination))
            widths.tags = max(widths.tags, CharWidth.of(entry.tags))
        }
        return widths
    }

    static func draw(_ state: UIState, in rect: Rect, on canvas: inout Canvas) {
        let focused = state.focus == .hosts && state.mode == .browse
        let c = columns(width: rect.width, natural: naturalWidths(state, rows: max(0, rect.height - 1)))
        let list = state.visible
        let x = rect.column
        let headerStyle = focused ? CellStyle.bold : CellStyle.dim
        canvas.write("Hosts \(list.count)", row: rect.row, column: x + 1, width: c.name, style: headerStyle)
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
                message = "searching..."
            } else if state.search.isActive {
                message = "no host matches '\(state.search.query)' (Esc clears)"
            } else if state.catalog.hosts.isEmpty {
                message = "No hosts yet. Press a to add one."
            } else {
                message = "No hosts in this group."
            }
            canvas.write(message, row: rect.row + 2, column: x + 2, width: rect.width - 3, style: .dim)
            return
        }
        let terms = state.search.isActive ? Fuzzy.terms(state.search.query) : []
        let rows = max(0, rect.height - 1)
        for (i, entryIndex) in list.dropFirst(state.hostScroll).prefix(rows).enumerated() {
            let y = rect.row + 1 + i
            let entry = state.catalog.entries[entryIndex]
            let host = state.catalog.hosts[entryIndex]
            let matched = terms.isEmpty ? [] : Fuzzy.match(terms, in: entry.search, nameEnd: entry.destinationStart - 1)?.positions ?? []
            let e = state.symbols.ellipsis
            field(entry.name, start: 0, matched: matched, row: y, column: x + 1, width: c.name, ellipsis: e, on: &canvas)
            field(entry.destination, start: entry.destinationStart, matched: matched, row: y, column: x + 2 + c.name,
                  width: c.destination, ellipsis: e, on: &canvas, style: .plain)
            if c.tags > 2 {
                field(entry.tags, start: entry.tagsStart, matched: matched, row: y, column: x + 3 + c.name + c.destination,
                      width: c.tags - 1, ellipsis: e, on: &canvas, style: .dim)
            }
            if c.last > 0, let last = host.lastConnectedAt {
                canvas.write(RelativeTime.words(last, now: state.now), row: y, column: x + rect.width - c.last,
                             width: c.last, style: .dim)
            }
            if state.hostScroll + i == state.hostCursor {
                canvas.restyle(row: y, column: x, width: rect.width) { style in
                    if focused || state.focus == .forwards { style.reverse = true } else { style.bold = true }
                }
            }
        }
    }

    /// Draws one field, highlighting the matched characters (positions are offsets in the entry's search text,
    /// one per character; a double-width character takes two cells, so columns are counted separately).
    static func field(_ text: String, start: Int, matched: [Int], row: Int, column: Int, width: Int, ellipsis: Character,
                      on canvas: inout Canvas, style: CellStyle = .plain) {
        guard width > 0 else { return }
        let cut = CharWidth.of(text) > width
        let room = cut ? width - 1 : width
        var x = 0
        for (i, ch) in text.enumerated() {
            let w = CharWidth.of(ch)
            if x + w > room { break }
            let hit = matched.contains(start + i)
            canvas.write(String(ch), row: row, column: column + x,
                         style: hit ? CellStyle(color: .orange, bold: true, underline: true) : style)
            x += w
        }
        if cut { canvas.write(String(ellipsis), row: row, column: column + x, style: style) }
    }
}

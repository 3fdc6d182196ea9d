// HostListView: the hosts of the selected group (or the search results) — name (NAME@ID when another host has the
// name too), user@host:port, tags, whether it answers (`p`) and last connected, with the characters a search matched
// underlined and coloured.
import FoundationEssentials
import ShelfCore

enum HostListView {
    /// What the empty list says: the user's ~/.ssh/config to import when there is one, else how to add a host or
    /// import a file.
    static func emptyMessage(_ config: UserConfigState?) -> String {
        if let config, config.exists {
            return
                "No hosts yet. Press o to import \(config.path) (you see what it would add first), or a to add a host."
        }
        return "No hosts yet. Press a to add a host, or import an OpenSSH config from a shell: "
            + "sshelf import ssh-config FILE"
    }

    struct Columns {
        var name: Int
        var destination: Int
        var tags: Int
        var last: Int
        /// The reachability column (0: not drawn), right of the tags.
        var reach = 0
    }

    /// Widths for the list's columns: "Last" fixed when there is room, and the rest shared by what the rows on
    /// screen need (`natural`: their longest name, address and tags, in cells). A column that needs less than an
    /// even share gets all it needs (so `user@host:port` shows whole when it can), the others split what is left;
    /// what is left goes to the tags. Text is cut only where it cannot fit.
    static func columns(width: Int, natural: (name: Int, destination: Int, tags: Int), reach: Int = 0) -> Columns {
        let last = width >= 70 ? 12 : 0
        let rest = max(0, width - last - 3 - (reach > 0 ? reach + 1 : 0))
        // The headers ("Hosts 123", "Address") need their room too.
        let tags = natural.tags > 0 ? natural.tags + 1 : 0
        // Tags matter least: they keep an eighth of the room at most until name and address have what they need.
        let reserved = min(tags, rest / 8)
        let given = share(rest - reserved, needs: [max(natural.name, 9), max(natural.destination, 7)])
        return Columns(
            name: given[0], destination: given[1], tags: rest - given[0] - given[1], last: last,
            reach: reach)
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
        let table = state.catalog.table
        for row in state.visible.dropFirst(state.hostScroll).prefix(rows) {
            let fields = table.fields(Int(row))
            let destination = Destination(
                user: fields[safe: 2] ?? "", hostname: fields[safe: 1] ?? "",
                port: table.port(Int(row)), marks: HostHighlights())
            widths.name = max(widths.name, CharWidth.of(state.catalog.reference(Int(row))))
            widths.destination = max(widths.destination, CharWidth.of(destination.text))
            widths.tags = max(widths.tags, CharWidth.of(fields.dropFirst(3).joined(separator: ",")))
        }
        return widths
    }

    static func draw(_ state: UIState, in rect: Rect, on canvas: inout Canvas) {
        let focused = state.focus == .hosts && state.mode == .browse
        let list = state.visible
        // The first screenful of a large store: the count is the store's, the rows follow when loaded.
        let whole = !state.catalog.isComplete && !state.search.isActive && state.selectedGroupID == nil
        let header = "Hosts \(whole ? state.catalog.totalCount : list.count)"
        var natural = naturalWidths(state, rows: max(0, rect.height - 1))
        // The count in the header is never cut ("Hosts 1000…" would read as another number).
        natural.name = max(natural.name, header.count)
        let reach = reachWidth(state, width: rect.width, rows: max(0, rect.height - 1))
        let c = columns(width: rect.width, natural: natural, reach: reach)
        let x = rect.column
        // One cell before "Last", or before the pane's edge.
        let reachColumn = x + rect.width - c.last - c.reach - 1
        let headerStyle = focused ? CellStyle.bold : CellStyle.dim
        canvas.write(header, row: rect.row, column: x + 1, width: c.name, style: headerStyle)
        canvas.write("Address", row: rect.row, column: x + 1 + c.name + 1, style: headerStyle)
        if c.tags > 4 {
            canvas.write("Tags", row: rect.row, column: x + 2 + c.name + 1 + c.destination, style: headerStyle)
        }
        if c.reach > 0 {
            canvas.write(
                reachHeader(width: rect.width), row: rect.row, column: reachColumn, width: c.reach, style: headerStyle)
        }
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
                message = emptyMessage(state.userConfig)
            } else {
                message = "No hosts in this group."
            }
            // Wrapped: the empty list's advice is a sentence or two, longer than a narrow pane.
            let width = rect.width - 3
            for (i, line) in WordWrap.lines(message, width: width).prefix(max(1, rect.height - 2)).enumerated() {
                canvas.write(line, row: rect.row + 2 + i, column: x + 2, width: width, style: .dim)
            }
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
            // A name another host has too shows as commands take it, NAME@ID, the @ID in orange.
            let reference = state.catalog.reference(row)
            field(reference, matched: marks.name, row: y, column: x + 1, width: c.name, ellipsis: e, on: &canvas)
            if reference.count > name.count, CharWidth.of(reference) <= c.name {
                let start = CharWidth.of(name)
                canvas.restyle(row: y, column: x + 1 + start, width: CharWidth.of(reference) - start) {
                    $0.color = .orange
                }
            }
            field(
                destination.text, matched: destination.matched, row: y, column: x + 2 + c.name,
                width: c.destination, ellipsis: e, on: &canvas, style: .plain)
            if c.tags > 2 {
                var tagMatches: [Int] = []
                var offset = 0
                for (t, tag) in tags.enumerated() {
                    tagMatches += (marks.tags[t] ?? []).map { $0 + offset }
                    offset += tag.count + 1
                }
                field(
                    tags.joined(separator: ","), matched: tagMatches, row: y, column: x + 3 + c.name + c.destination,
                    width: c.tags - 1, ellipsis: e, on: &canvas, style: .dim)
            }
            if c.reach > 0 {
                let result = state.reachability.results[table.id(row)] ?? HostReachability(.unknown)
                field(
                    reachWords(result, width: rect.width), matched: [], row: y, column: reachColumn, width: c.reach,
                    ellipsis: e, on: &canvas, style: reachStyle(result.state))
            }
            if c.last > 0, let last = table.lastConnected(row) {
                canvas.write(
                    RelativeTime.words(Date(timeIntervalSince1970: last), now: state.now), row: y,
                    column: x + rect.width - c.last, width: c.last, style: .dim)
            }
            // A host marked for a run (Space, `*`) has its mark in the column before its name.
            if state.marks.contains(table.id(row)) {
                canvas.write(state.symbols.mark, row: y, column: x, style: CellStyle(color: .orange, bold: true))
            }
            if state.hostScroll + i == state.hostCursor {
                canvas.restyle(row: y, column: x, width: rect.width) { style in
                    if focused || state.focus == .forwards { style.reverse = true } else { style.bold = true }
                }
            }
        }
    }

    /// From this list width the column says `up 0.4 ms via HOP` / `down: refused`; below it, `0.4 ms` / `refused`
    /// (the colour tells them apart) so that name and address keep their room.
    static let reachWordsFrom = 80

    /// The column's header says that probes are running, and how often ("Reach: on, 30 s"; "Reach" when narrow).
    static func reachHeader(width: Int) -> String {
        width >= reachWordsFrom ? "Reach: on, \(Int(ReachabilityColumn.refreshSeconds)) s" : "Reach"
    }

    static func reachWords(_ result: HostReachability, width: Int) -> String {
        width >= reachWordsFrom ? result.state.words(via: result.via) : result.state.shortWords
    }

    /// The reachability column's width: none when hidden or when the list is narrower than
    /// `ReachabilityColumn.minimumListWidth`, else what the rows on screen say (at least the header's), up to 8
    /// cells in a narrow list and 28 in a wide one (a long "via HOP" ends in `…`).
    static func reachWidth(_ state: UIState, width: Int, rows: Int) -> Int {
        guard state.reachability.shown, width >= ReachabilityColumn.minimumListWidth else { return 0 }
        var widest = CharWidth.of(reachHeader(width: width))
        let table = state.catalog.table
        for row in state.visible.dropFirst(state.hostScroll).prefix(rows) {
            let result = state.reachability.results[table.id(Int(row))] ?? HostReachability(.unknown)
            widest = max(widest, CharWidth.of(reachWords(result, width: width)))
        }
        return min(widest, width >= reachWordsFrom ? 28 : 8)
    }

    static func reachStyle(_ state: Reachability) -> CellStyle {
        switch state {
        case .up: CellStyle(color: .green)
        case .down: CellStyle(color: .red)
        case .unknown, .probing: .dim
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
    static func field(
        _ text: String, matched: [Int], row: Int, column: Int, width: Int, ellipsis: Character,
        on canvas: inout Canvas, style: CellStyle = .plain
    ) {
        guard width > 0 else { return }
        let cut = CharWidth.of(text) > width
        let room = cut ? width - 1 : width
        var x = 0
        for (i, ch) in text.enumerated() {
            let w = CharWidth.of(ch)
            if x + w > room { break }
            let hit = matched.contains(i)
            canvas.write(
                String(ch), row: row, column: column + x,
                style: hit ? CellStyle(color: .orange, bold: true, underline: true) : style)
            x += w
        }
        if cut { canvas.write(String(ellipsis), row: row, column: column + x, style: style) }
    }
}

// HostListing: `sshelf list [FILTER]` — the store's host table, searched with the TUI's matcher (same
// results, same ranking), printed as the aligned NAME / DESTINATION / GROUP / TAGS table straight from the
// table's bytes (100,000 rows without a String per cell).
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfStore

enum HostListing {
    struct Listing {
        var table: HostTable
        var groupPaths: [String]
        var rows: [Int32]
    }

    /// The words of `list FILTER...` as one filter. A loop, not `joined(separator:)`: the generic join asks the
    /// Swift runtime for a conformance no earlier code needed, a scan of every conformance record at every `list`.
    static func filter(_ words: [String]) -> String {
        var filter = ""
        for (index, word) in words.enumerated() {
            if index > 0 { filter += " " }
            filter += word
        }
        return filter
    }

    /// The hosts matching `filter` (all when empty) among those `groupPaths` (each with its subgroups) and `tags`
    /// pick — either, as `run` targets add up — or among all hosts when neither is given; best first.
    static func find(_ filter: String, groupPaths: [String], tags: [String] = [], store: Store) throws -> Listing {
        try store.read { store in
            let table = try store.hostTable()
            let tree = GroupTree(try store.groups())
            var scope: Set<UUID>? = nil
            for groupPath in groupPaths where !GroupTree.components(groupPath).isEmpty {
                scope = (scope ?? []).union(tree.subtree(of: try Resolve.group(groupPath, tree: tree).id))
            }
            var candidates = Store.rows(of: table, inGroups: scope)
            if !tags.isEmpty {
                let wanted = Set(tags)
                let inGroups = scope == nil ? [] : Set(candidates)
                candidates = (0..<Int32(table.count)).filter { row in
                    inGroups.contains(row) || !wanted.isDisjoint(with: table.tags(Int(row)))
                }
            }
            let paths = table.groupIDs.map { tree.path(of: $0) }
            let matcher = HostMatcher(table: table, groupPaths: paths)
            return Listing(table: table, groupPaths: paths, rows: matcher.search(HostQuery(filter), in: candidates))
        }
    }

    /// `reachable` (`list --reachable`): each listed row's probe, added to its record as `reachable`.
    static func json(_ listing: Listing, reachable: [ReachableListing.Probed]? = nil) throws -> String {
        try JSONOutput.encode(
            listing.rows.enumerated().map { position, row in
                let host = listing.table.host(at: Int(row))
                let group = listing.table.groupIndex(Int(row))
                var view = HostJSON(host: host, groupPath: group >= 0 ? listing.groupPaths[group] : "")
                view.reachable = reachable?[position]
                return view
            })
    }

    /// The same layout as `Display.table`: columns padded to the widest cell plus two spaces, the last one not
    /// padded, no trailing spaces; control and bidi characters already shown as `?` by the table. `reachable`
    /// (`list --reachable`): a REACHABLE column, one cell per listed row.
    static func text(_ listing: Listing, reachable: [String]? = nil) -> String {
        let table = listing.table
        let groups = listing.groupPaths.map { Array(Display.safe($0).utf8) }
        let groupWidths = listing.groupPaths.map { Display.safe($0).count }
        let header = (["NAME", "DESTINATION", "GROUP", "TAGS"] + (reachable == nil ? [] : ["REACHABLE"]))
            .map { Array($0.utf8) }
        let count = header.count
        var widths = header.map(\.count)
        var cells: [[UInt8]] = Array(repeating: [], count: count)
        var cellWidths = Array(repeating: 0, count: count)
        let reachableCells = reachable?.map { Array(Display.safe($0).utf8) }

        /// The row's cells as bytes, and their widths in characters.
        func fill(_ row: Int, at position: Int) {
            let fields = HostTable.split(table.displayText(row))
            let plain = !table.needsMapping(row) && !fields.contains { $0.contains { $0 >= 0x80 } }
            func width(_ bytes: [UInt8]) -> Int { plain ? bytes.count : String(decoding: bytes, as: UTF8.self).count }
            let name = fields.count > 0 ? Array(fields[0]) : []
            let hostname = fields.count > 1 ? Array(fields[1]) : []
            let user = fields.count > 2 ? Array(fields[2]) : []
            let port = table.port(row)
            var destination = user.isEmpty ? [] : user + [0x40]
            if port != ShelfCore.Host.defaultPort {
                let bracketed = hostname.contains(0x3A)
                if bracketed { destination.append(0x5B) }
                destination += hostname
                if bracketed { destination.append(0x5D) }
                destination += Array(":\(port)".utf8)
            } else {
                destination += hostname
            }
            var tags: [UInt8] = []
            for (i, tag) in fields.dropFirst(3).enumerated() {
                if i > 0 { tags.append(0x2C) }
                tags += tag
            }
            cells[0] = name
            cells[1] = destination
            let group = table.groupIndex(row)
            cells[2] = group >= 0 ? groups[group] : []
            cells[3] = tags
            cellWidths[0...3] = [width(name), width(destination), group >= 0 ? groupWidths[group] : 0, width(tags)]
            if let reachableCells {
                cells[4] = reachableCells[position]
                cellWidths[4] = String(decoding: cells[4], as: UTF8.self).count
            }
        }

        for (position, row) in listing.rows.enumerated() {
            fill(Int(row), at: position)
            for i in 0..<count { widths[i] = max(widths[i], cellWidths[i]) }
        }
        var out: [UInt8] = []
        out.reserveCapacity((listing.rows.count + 1) * (widths.reduce(0, +) + 8))
        func line(_ line: [[UInt8]], _ lineWidths: [Int]) {
            let start = out.count
            for i in 0..<count {
                out += line[i]
                if i < count - 1 { out += repeatElement(0x20, count: widths[i] + 2 - lineWidths[i]) }
            }
            while out.count > start, out.last == 0x20 { out.removeLast() }
            out.append(0x0A)
        }
        line(header, header.map(\.count))
        for (position, row) in listing.rows.enumerated() {
            fill(Int(row), at: position)
            line(cells, cellWidths)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

// FilesReducer: the file pane's keys (move, open a folder, go up, switch sides, filter, hidden names, reload,
// close) and the app's reports (the host's side logged in or not, a folder's entries).
import FoundationEssentials

enum FilesReducer {
    /// `F` on a host: the pane opens at once (this machine's side lists while the host's logs in).
    static func open(_ state: inout UIState) -> [Effect] {
        guard let host = state.selectedHost else { return [] }
        return show(&state, hostID: host.id, name: host.name, remotePath: nil, localPath: nil)
    }

    /// Opens the pane on a host (`F`, or `sshelf files HOST` at start), logging in to it.
    static func show(
        _ state: inout UIState, hostID: UUID, name: String, remotePath: [UInt8]?, localPath: [UInt8]?
    ) -> [Effect] {
        var pane = FilesPane(hostID: hostID, hostName: name)
        pane[.local].generation = 1
        pane[.remote].generation = 1
        state.files = pane
        state.mode = .files
        state.notice = Notice("connecting to \(name)... (Esc closes the pane)")
        return [.openFiles(hostID, remotePath: remotePath, localPath: localPath)]
    }

    static func key(_ state: inout UIState, _ key: Key) -> [Effect] {
        guard var pane = state.files else {
            state.mode = .browse
            return []
        }
        let effects =
            pane.question != nil
            ? FilesChangeReducer.key(&state, &pane, key)
            : pane.filtering ? filterKey(&state, &pane, key) : handle(&state, &pane, key)
        if state.mode == .files { state.files = pane }
        return effects
    }

    /// Reading the host's side needs its connection: once it failed or broke the side's thread has ended, and a
    /// request would wait for an answer nobody sends (the run loop polling for it until the pane closed).
    static let needsHost: @Sendable (UIState) -> String? = { state in
        guard let pane = state.files, pane.active == .remote, !pane.connected else { return nil }
        return pane.failure
    }

    private static func page(_ state: UIState) -> Int { max(1, state.rows - 7) }

    private static func handle(_ state: inout UIState, _ pane: inout FilesPane, _ key: Key) -> [Effect] {
        state.notice = nil
        guard let binding = Keymap.binding(for: key, in: .files) else { return [] }
        if let reason = binding.disabledReason(state) {
            state.notice = Notice("\(binding.description): \(reason)", isError: true)
            return []
        }
        let side = pane.active
        switch binding.command {
        case .filesDown: move(&pane, side, by: 1, state)
        case .filesUp: move(&pane, side, by: -1, state)
        case .filesPageDown: move(&pane, side, by: page(state), state)
        case .filesPageUp: move(&pane, side, by: -page(state), state)
        case .filesTop: move(&pane, side, by: -Int.max / 2, state)
        case .filesBottom: move(&pane, side, by: Int.max / 2, state)
        case .filesSwitch: pane.active = side == .local ? .remote : .local
        case .filesOpen:
            guard let entry = pane[side].selected else { return [] }
            // A host's file opens in the editor (FilesEditReducer); one here says what it is.
            if !entry.opens && side == .remote && pane.connected { return FilesEditReducer.open(&state, pane, entry) }
            guard entry.opens else {
                state.notice = Notice("\(entry.shown) is \(words(entry.kind)), not a folder")
                return []
            }
            return list(&pane, side, path: FilesPath.join(pane[side].path, entry.name))
        case .filesParent:
            let path = pane[side].path
            guard let parent = FilesPath.parent(path) else { return [] }
            return list(&pane, side, path: parent, select: FilesPath.last(path))
        case .filesFilter:
            pane.filtering = true
        case .filesHidden:
            pane.showHidden.toggle()
            for side in FilesPane.Side.allCases { pane.refilter(side) }
            state.notice = Notice(pane.showHidden ? "hidden names shown" : "hidden names hidden")
        case .filesReload:
            return list(&pane, side, path: pane[side].path, select: pane[side].selected?.name)
        case .filesMark:
            guard let entry = pane[side].selected else { return [] }
            if pane[side].marks.remove(entry.name) == nil { pane[side].marks.insert(entry.name) }
            move(&pane, side, by: 1, state)
        case .filesCopy:
            return FilesCopyReducer.copy(&state, &pane)
        case .filesCancelCopy:
            return FilesCopyReducer.cancel(&state, &pane)
        case .filesMakeFolder: FilesChangeReducer.ask(&pane, .makeFolder)
        case .filesRename: FilesChangeReducer.ask(&pane, .rename)
        case .filesDelete: FilesChangeReducer.ask(&pane, .delete)
        case .filesMode: FilesChangeReducer.ask(&pane, .setMode)
        case .filesClose:
            if !pane[side].filter.isEmpty {
                pane[side].filter = ""
                pane.refilter(side)
                return []
            }
            state.files = nil
            state.mode = .browse
            return [.closeFiles]
        default: break
        }
        return []
    }

    /// Keys while typing a filter: the search's keys (Enter keeps it, Esc clears it, Backspace erases).
    private static func filterKey(_ state: inout UIState, _ pane: inout FilesPane, _ key: Key) -> [Effect] {
        let side = pane.active
        if case .char(let ch) = key {
            if pane[side].filter.utf8.count < 256 { pane[side].filter.append(ch) }
            pane[side].cursor = 0
            pane.refilter(side)
            return []
        }
        switch Keymap.binding(for: key, in: .search)?.command {
        case .searchAccept: pane.filtering = false
        case .searchCancel:
            pane.filtering = false
            pane[side].filter = ""
            pane.refilter(side)
        case .searchErase:
            _ = pane[side].filter.popLast()
            pane.refilter(side)
        case .searchDown: move(&pane, side, by: 1, state)
        case .searchUp: move(&pane, side, by: -1, state)
        default: break
        }
        return []
    }

    private static func move(_ pane: inout FilesPane, _ side: FilesPane.Side, by delta: Int, _ state: UIState) {
        var column = pane[side]
        let last = max(0, column.visible.count - 1)
        column.cursor = min(last, max(0, column.cursor.addingReportingOverflow(delta).partialValue))
        // Moved while the folder still arrives: the next batch puts the cursor back on this name.
        if column.loading { column.wanted = column.selected?.name }
        pane[side] = column
    }

    /// Asks the app to list `path` on `side` (its answer replaces the side's entries), keeping `select` under the
    /// cursor once it arrives (the folder just left, when going up).
    static func list(_ pane: inout FilesPane, _ side: FilesPane.Side, path: [UInt8], select: [UInt8]? = nil)
        -> [Effect]
    {
        var column = pane[side]
        column.generation += 1
        column.loading = true
        column.error = nil
        column.filter = ""
        column.marks = []
        column.wanted = select
        pane[side] = column
        return [.listFiles(side, path: path, generation: column.generation)]
    }

    static func words(_ kind: FileEntry.Kind) -> String {
        switch kind {
        case .file: "a regular file"
        case .directory: "a folder"
        case .link: "a link"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .other: "a special file"
        }
    }

    // MARK: the app's reports

    static func connected(_ state: inout UIState, hostID: UUID, failure: String?) {
        guard var pane = state.files, pane.hostID == hostID else { return }
        if let failure {
            pane.failure = failure
            pane.connected = false
            pane[.remote].loading = false
            pane.active = .local
            state.notice = Notice(failure, isError: true)
        } else {
            pane.connected = true
            if state.notice?.text.hasPrefix("connecting to") == true { state.notice = nil }
        }
        state.files = pane
    }

    static func listed(_ state: inout UIState, _ listing: FilesPane.Listing) {
        guard var pane = state.files, pane[listing.side].generation == listing.generation else { return }
        var column = pane[listing.side]
        // The name the user moved to while it arrives, or the one asked for (the folder left when going up); else the
        // cursor stays first, on the first by sort order — not on whichever entry the first batch began with.
        let keep = column.wanted
        column.path = listing.path
        column.entries = listing.entries
        // The old indices point into the old entries: gone with them (the cursor is put back on `keep` below).
        column.visible = []
        column.loading = !listing.complete
        column.error = listing.error
        column.note = listing.note
        pane[listing.side] = column
        pane.refilter(listing.side)
        if let keep,
            let at = pane[listing.side].visible.firstIndex(where: { pane[listing.side].entries[$0].name == keep })
        {
            pane[listing.side].cursor = at
            if listing.complete { pane[listing.side].wanted = nil }
        }
        state.files = pane
    }
}

/// Paths as bytes: joined with `/`, the parent, the last name (a path is made of listed names, never decoded).
public enum FilesPath {
    public static func join(_ folder: [UInt8], _ name: [UInt8]) -> [UInt8] {
        folder.last == 0x2F ? folder + name : folder + [0x2F] + name
    }

    public static func parent(_ path: [UInt8]) -> [UInt8]? {
        guard path.count > 1, let slash = path.lastIndex(of: 0x2F) else { return nil }
        return slash == 0 ? [0x2F] : Array(path[..<slash])
    }

    public static func last(_ path: [UInt8]) -> [UInt8]? {
        guard let slash = path.lastIndex(of: 0x2F), slash + 1 < path.count else { return nil }
        return Array(path[(slash + 1)...])
    }
}

// StatusLine: the bottom row — sync state in colour with its symbol, its notes (and ~/.ssh/config changed since its
// import), vault state, host count, and the keys that matter on this screen; when the row is short the hints give way
// first, then the notes (the vault's state keeps its place). A function of `StatusModel` plus the screen, so every
// state can be snapshot.
import FoundationEssentials

public enum StatusLine {
    /// The sync segment: symbol, words and colour.
    public static func syncSegment(_ sync: SyncIndicator, now: Date, symbols: Symbols) -> (String, CellStyle) {
        switch sync {
        case .off: ("\(symbols.off) sync off", CellStyle(color: .dim))
        case .syncing: ("\(symbols.syncing) syncing", CellStyle(color: .blue, bold: true))
        case .synced(let at):
            ("\(symbols.synced) synced \(RelativeTime.words(at, now: now))", CellStyle(color: .green, bold: true))
        case .localFallback(let reason):
            ("\(symbols.fallback) local fallback: \(reason)", CellStyle(color: .orange, bold: true))
        }
    }

    static func vaultStyle(_ vault: VaultIndicator) -> CellStyle {
        switch vault {
        case .broken: CellStyle(color: .red)
        case .notSetUp, .locked: .dim
        case .unlocked, .unlockedFor, .partlyUnlocked, .noPassphrase: .plain
        }
    }

    /// The key hints for the current screen: enabled bindings that carry a hint label.
    public static func hints(_ state: UIState) -> [(key: String, what: String)] {
        let context: KeyContext
        if state.failure != nil {
            context = .failure
        } else {
            switch state.mode {
            case .browse: context = state.search.typing ? .search : .browse
            case .form: context = .form
            case .confirm: context = .dialog
            case .help: context = .help
            case .identities: context = .identities
            case .fleet: context = .fleet
            case .files: context = state.files?.filtering == true ? .search : .files
            case .importConfig: context = .importDialog
            case .snippets: context = .snippets
            case .conflicts: context = .conflicts
            case .recordings: context = state.recordings?.typing == true ? .recordingSearch : .recordings
            case .prompt: return [("Enter", "answer"), ("Esc", "cancel")]
            }
        }
        return Keymap.bindings(in: context).compactMap { binding in
            guard let hint = binding.hint(state), binding.disabledReason(state) == nil, let key = binding.keys.first
            else {
                return nil
            }
            return (key == .enter ? state.symbols.enter : (state.symbols == .ascii ? key.asciiLabel : key.label), hint)
        }
    }

    /// The notes beside the sync state: ~/.ssh/config changed since its import first (`o` re-imports it), then
    /// what the sync report says.
    static func notes(_ state: UIState) -> [SyncNote] {
        guard let config = state.userConfig, config.exists, config.changedSinceImport else {
            return state.status.syncNotes
        }
        // Short, so the `o re-import` hint beside it fits at 80 columns too.
        return [SyncNote("\(config.path) changed", .warning)] + state.status.syncNotes
    }

    public static func draw(_ state: UIState, in rect: Rect, on canvas: inout Canvas) {
        let s = state.symbols
        let (syncText, syncStyle) = syncSegment(state.status.sync, now: state.now, symbols: s)
        // The sync state always shows in full (a fallback reason must be readable); hints give way first.
        var col = canvas.write(
            syncText, row: rect.row, column: 0, width: rect.width, style: syncStyle, ellipsis: s.ellipsis)
        // What the sync report says beside the state (conflicts, enrollment, the credential track's notice), where it
        // leaves room for the vault's state, which matters more.
        let vaultRoom = CharWidth.of(state.status.vault.words) + 3
        for note in notes(state) where col + CharWidth.of(note.text) + 3 + vaultRoom <= rect.width {
            let style: CellStyle
            switch note.weight {
            case .info: style = .dim
            case .warning: style = CellStyle(color: .orange)
            case .error: style = CellStyle(color: .red, bold: true)
            }
            col = canvas.write(" \(s.separator) ", row: rect.row, column: col, style: .dim)
            col = canvas.write(note.text, row: rect.row, column: col, style: style)
        }
        let count = state.catalog.totalCount
        let parts: [(String, CellStyle)] =
            [
                (state.status.vault.words, vaultStyle(state.status.vault)),
                (state.loaded ? "\(count) host\(count == 1 ? "" : "s")" : "loading", .dim),
            ] + (state.marks.isEmpty ? [] : [("\(state.marks.count) marked", CellStyle(color: .orange, bold: true))])
        for (i, (text, style)) in parts.enumerated() {
            // A vault error too long for the line is cut rather than left out (its whole text is on its screen).
            let room = rect.width - col - 3
            let cut = i == 0 && room >= 16 && { if case .broken = state.status.vault { true } else { false } }()
            guard CharWidth.of(text) <= room || cut else { continue }
            col = canvas.write(" \(s.separator) ", row: rect.row, column: col, style: .dim)
            col = canvas.write(text, row: rect.row, column: col, width: room, style: style, ellipsis: s.ellipsis)
        }
        // Help and quit are kept when space is short, and the re-import a changed ~/.ssh/config asks for; the rest fill
        // in, in keymap order.
        let all = hints(state)
        let first = ["help", "quit", "re-import"]
        let priority = all.indices.sorted { a, b in
            let pa = first.contains(all[a].what), pb = first.contains(all[b].what)
            return pa != pb ? pa : a < b
        }
        var kept: Set<Int> = []
        var width = 0
        for i in priority {
            let w = all[i].key.count + all[i].what.count + 3
            if col + 3 + width + w > rect.width { continue }
            kept.insert(i)
            width += w
        }
        let hintText = all.indices.filter(kept.contains).map { (all[$0].key, all[$0].what) }
        guard !hintText.isEmpty else { return }
        col = canvas.write(" \(s.separator)", row: rect.row, column: col, style: .dim)
        for (key, what) in hintText {
            col = canvas.write("  \(key)", row: rect.row, column: col, style: .bold)
            col = canvas.write(" \(what)", row: rect.row, column: col, style: .dim)
        }
    }
}

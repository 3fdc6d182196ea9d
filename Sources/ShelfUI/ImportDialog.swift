// ImportDialog: the TUI's `import ssh-config` of ~/.ssh/config (`o`) — first what the import would do (the dry run's
// summary: hosts added and updated, groups and forward rules made, what is skipped and why), scrollable; `y` imports,
// Esc leaves everything as it was; then the summary the CLI prints. The app reads and imports the file in the
// background (`Effect.previewImport`, `.runImport`) and answers with `Action.importPreviewed`, `.imported`.
// UserConfigState: what the app found of ~/.ssh/config — whether there is one to offer, and whether it changed since
// it was last imported (the status line says so and `o` re-imports).
import FoundationEssentials

public struct UserConfigState: Sendable, Equatable {
    /// The file as the user knows it (`~/.ssh/config`).
    public var path: String
    public var exists: Bool
    /// The file changed since sshelf last imported it (`sshelf check` says the same).
    public var changedSinceImport: Bool

    public init(path: String = "~/.ssh/config", exists: Bool, changedSinceImport: Bool = false) {
        self.path = path
        self.exists = exists
        self.changedSinceImport = changedSinceImport
    }
}

public struct ImportDialog: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Reading the file and planning the import (nothing is written).
        case reading
        /// The plan is shown: `y` imports it.
        case ready
        /// The import is being written (one transaction).
        case importing
        /// The import ended: its summary is shown.
        case done
        /// The file could not be read or imported: why, and nothing changed.
        case failed
    }

    /// One line as drawn, and the index of the summary line it is (part of).
    public struct ShownLine: Sendable, Equatable {
        public var text: String
        public var source: Int
    }

    public var path: String
    /// Opened because the file changed since it was last imported.
    public var reimport: Bool
    public var phase: Phase
    public private(set) var lines: [String]
    public var scroll = 0
    /// `lines` as drawn `wrappedColumns` wide: wrapped once when they come (and on a resize), not at every frame and
    /// key — the plan of a 100,000-host file is as many lines.
    private var wrapped: [ShownLine] = []
    private var wrappedColumns = -1

    public init(path: String, reimport: Bool, phase: Phase = .reading, lines: [String] = [], columns: Int = 80) {
        self.path = path
        self.reimport = reimport
        self.phase = phase
        self.lines = lines
        rewrap(columns: columns)
    }

    /// New lines to show (the plan, the summary, why it failed), from the top.
    public mutating func show(_ lines: [String], columns: Int) {
        self.lines = lines
        scroll = 0
        wrappedColumns = -1
        rewrap(columns: columns)
    }

    /// The terminal changed width: wrap the lines for it.
    public mutating func rewrap(columns: Int) {
        guard columns != wrappedColumns else { return }
        wrapped = Self.wrap(lines, columns: columns)
        wrappedColumns = columns
    }

    /// The dialog's width on a screen of `columns` (borders included).
    public static func width(columns: Int) -> Int { min(120, columns - 2) }

    /// The lines as shown `columns` wide, each with the index of the line it is part of: one too long goes on under
    /// its text, never cut (a skipped block's reason is the point of the line).
    public func shown(columns: Int) -> [ShownLine] {
        columns == wrappedColumns ? wrapped : Self.wrap(lines, columns: columns)
    }

    static func wrap(_ lines: [String], columns: Int) -> [ShownLine] {
        let width = ImportDialog.width(columns: columns) - 4
        var out: [ShownLine] = []
        out.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() {
            // No character is wider than its UTF-8 bytes are many: a short line needs no measuring.
            guard width > 20, line.utf8.count > width, CharWidth.of(line) > width else {
                out.append(ShownLine(text: line, source: index))
                continue
            }
            // "  skipped  TEXT": the further lines go under TEXT (the summary line, not indented, under its start).
            let indent = min(Self.textColumn(line), width / 2)
            let pad = String(repeating: " ", count: indent)
            for (n, part) in WordWrap.lines(String(line.dropFirst(indent)), width: width - indent).enumerated() {
                out.append(ShownLine(text: (n == 0 ? String(line.prefix(indent)) : pad) + part, source: index))
            }
        }
        return out
    }

    /// Where a summary line's text starts: after its indent, its word ("added", "kept as defaults") and the spaces
    /// after it; 0 for a line that is not indented.
    static func textColumn(_ line: String) -> Int {
        let characters = Array(line)
        guard characters.prefix(2) == [" ", " "] else { return 0 }
        var i = 2
        // The word may hold single spaces ("kept as defaults"); two spaces end it.
        while i < characters.count, !(characters[i] == " " && i + 1 < characters.count && characters[i + 1] == " ") {
            i += 1
        }
        while i < characters.count, characters[i] == " " { i += 1 }
        return i < characters.count ? i : 0
    }

    /// The dialog's height on a screen: its lines, two borders, a blank and the keys' line.
    public func height(rows: Int, columns: Int) -> Int { min(shown(columns: columns).count + 4, max(5, rows - 2)) }

    /// How many of its lines the dialog shows at once.
    public func visibleRows(rows: Int, columns: Int) -> Int { max(1, height(rows: rows, columns: columns) - 4) }

    /// The last scroll position that still fills the dialog.
    public func maxScroll(rows: Int, columns: Int) -> Int {
        max(0, shown(columns: columns).count - visibleRows(rows: rows, columns: columns))
    }

    public var title: String {
        switch phase {
        case .reading, .ready, .failed: "\(reimport ? "Re-import" : "Import") \(path)?"
        case .importing: "Importing \(path)"
        case .done: "Imported \(path)"
        }
    }
}

enum ImportDialogReducer {
    /// Why `o` does nothing now, or nil.
    static let disabled: @Sendable (UIState) -> String? = { state in
        if !state.loaded { return "still loading" }
        guard let config = state.userConfig, config.exists else {
            return "no ~/.ssh/config here; sshelf import ssh-config FILE imports another file"
        }
        return nil
    }

    /// The status-line hint of `o`: shown when it matters most (nothing stored yet, or the file changed).
    static let hint: @Sendable (UIState) -> String? = { state in
        guard let config = state.userConfig, config.exists else { return nil }
        if config.changedSinceImport { return "re-import" }
        return state.loaded && state.catalog.totalCount == 0 ? "import" : nil
    }

    static func open(_ state: inout UIState) -> [Effect] {
        guard let config = state.userConfig, config.exists else { return [] }
        state.importDialog = ImportDialog(
            path: config.path, reimport: config.changedSinceImport, lines: ["reading \(config.path)..."],
            columns: state.columns)
        state.mode = .importConfig
        return [.previewImport]
    }

    static func previewed(_ state: inout UIState, _ result: Result<[String], OperationFailure>) {
        guard state.mode == .importConfig, var dialog = state.importDialog, dialog.phase == .reading else { return }
        switch result {
        case .success(let lines):
            dialog.phase = .ready
            dialog.show(lines, columns: state.columns)
        case .failure(let failure):
            dialog.phase = .failed
            dialog.show(failed(dialog.path, failure), columns: state.columns)
        }
        state.importDialog = dialog
    }

    static func imported(_ state: inout UIState, _ result: Result<[String], OperationFailure>) -> [Effect] {
        guard var dialog = state.importDialog, dialog.phase == .importing else { return [.load] }
        switch result {
        case .success(let lines):
            dialog.phase = .done
            dialog.show(lines, columns: state.columns)
            state.notice = Notice("imported \(dialog.path)")
        case .failure(let failure):
            dialog.phase = .failed
            dialog.show(failed(dialog.path, failure), columns: state.columns)
            state.notice = Notice("\(dialog.path) was not imported", isError: true)
        }
        state.importDialog = dialog
        return [.load]
    }

    /// Why the file was not imported: the error, its hint (a line after it), and that nothing changed.
    static func failed(_ path: String, _ failure: OperationFailure) -> [String] {
        let parts = failure.message.split(separator: "\n").map(String.init)
        var lines = ["cannot import \(path): \(parts.first ?? "")"] + parts.dropFirst()
        if !failure.message.contains("nothing was imported") { lines.append("Nothing was imported.") }
        return lines
    }

    static func key(_ state: inout UIState, _ key: Key) -> [Effect] {
        guard var dialog = state.importDialog else {
            state.mode = .browse
            return []
        }
        guard let binding = Keymap.binding(for: key, in: .importDialog) else { return [] }
        if let reason = binding.disabledReason(state) {
            state.notice = Notice("\(binding.description): \(reason)", isError: true)
            return []
        }
        let page = dialog.visibleRows(rows: state.rows, columns: state.columns)
        switch binding.command {
        case .importYes:
            dialog.phase = .importing
            state.importDialog = dialog
            state.notice = Notice("importing \(dialog.path)...")
            return [.runImport]
        case .importClose:
            state.notice = Notice(
                dialog.phase == .done ? "imported \(dialog.path)" : "nothing imported",
                isError: false)
            state.importDialog = nil
            state.mode = .browse
            return []
        case .importDown: dialog.scroll += 1
        case .importUp: dialog.scroll -= 1
        case .importPageDown: dialog.scroll += page
        case .importPageUp: dialog.scroll -= page
        default: return []
        }
        dialog.scroll = max(0, min(dialog.scroll, dialog.maxScroll(rows: state.rows, columns: state.columns)))
        state.importDialog = dialog
        return []
    }
}

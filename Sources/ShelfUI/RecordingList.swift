// RecordingList: `R` — the selected host's recorded sessions (when, how long, the file's size, which client, whether
// typed keys were kept). Enter plays one (curses is left for `sshelf play`, then comes back), `/` finds text in what
// they showed (the engine of `sessions search`) and Enter on a hit plays from a second before it, `d` removes one
// after a `y`.
import FoundationEssentials
import ShelfCore

/// One recording as the list shows it (the app reads them from the recordings folder, decrypted in memory).
public struct RecordingRow: Sendable, Equatable {
    public var id: UUID
    public var started: Date
    public var seconds: Double
    public var fileBytes: Int
    /// Which way the session ran: connect or tui (sshelf's own client), openssh.
    public var by: String
    /// Whether echoed typed keys are kept too.
    public var input: Bool
    /// finished, interrupted, recording, damaged: why.
    public var state: String

    public init(
        id: UUID, started: Date, seconds: Double, fileBytes: Int, by: String, input: Bool, state: String
    ) {
        self.id = id
        self.started = started
        self.seconds = seconds
        self.fileBytes = fileBytes
        self.by = by
        self.input = input
        self.state = state
    }

    public var shortID: String { String(id.uuidString.lowercased().prefix(8)) }
}

/// Where a search found its text: the recording and the time in it.
public struct RecordingHitRow: Sendable, Equatable {
    public var id: UUID
    public var time: Double
    /// The text around it, as shown (safe to print).
    public var context: String

    public init(id: UUID, time: Double, context: String) {
        self.id = id
        self.time = time
        self.context = context
    }
}

public struct RecordingList: Sendable, Equatable {
    public var hostID: UUID
    public var hostName: String
    /// Nil until the app read them.
    public var rows: [RecordingRow]?
    public var cursor = 0
    /// Typing the search text (`/`).
    public var typing = false
    public var query = ""
    /// A search's hits (nil: the recordings are listed); `searching` while it runs.
    public var hits: [RecordingHitRow]?
    public var searching = false
    public var hitCursor = 0
    /// The recording `d` asks about (`y` removes it).
    public var removing: UUID?
    /// Why the recordings cannot be listed (no vault, locked).
    public var problem: String?

    public init(hostID: UUID, hostName: String) {
        self.hostID = hostID
        self.hostName = hostName
    }

    public var selected: RecordingRow? { rows.flatMap { $0.indices.contains(cursor) ? $0[cursor] : nil } }
    public var selectedHit: RecordingHitRow? { hits.flatMap { $0.indices.contains(hitCursor) ? $0[hitCursor] : nil } }
}

enum RecordingListReducer {
    /// `R`: the selected host's recordings, read in the background.
    static func open(_ state: inout UIState) -> [Effect] {
        guard let host = state.selectedHost else { return [] }
        state.recordings = RecordingList(hostID: host.id, hostName: host.name)
        state.mode = .recordings
        return [.loadRecordings(host.id)]
    }

    static func loaded(_ state: inout UIState, hostID: UUID, _ result: Result<[RecordingRow], OperationFailure>) {
        guard var list = state.recordings, list.hostID == hostID else { return }
        switch result {
        case .success(let rows):
            let keep = list.selected?.id
            list.rows = rows
            list.problem = nil
            list.cursor = rows.firstIndex { $0.id == keep } ?? Reducer.clamp(list.cursor, count: rows.count)
        case .failure(let failure):
            list.rows = []
            list.problem = failure.message
        }
        state.recordings = list
    }

    static func found(_ state: inout UIState, _ result: Result<[RecordingHitRow], OperationFailure>) {
        guard var list = state.recordings, list.searching else { return }
        list.searching = false
        switch result {
        case .success(let hits):
            list.hits = hits
            list.hitCursor = 0
            state.notice = Notice(
                hits.isEmpty
                    ? "'\(list.query)' is not in \(list.hostName)'s recordings"
                    : "\(hits.count) place\(hits.count == 1 ? "" : "s") showed '\(list.query)'",
                isError: hits.isEmpty)
        case .failure(let failure):
            list.hits = nil
            state.notice = Notice(failure.message, isError: true)
        }
        state.recordings = list
    }

    static func key(_ state: inout UIState, _ key: Key) -> [Effect] {
        guard var list = state.recordings else {
            state.mode = .browse
            return []
        }
        state.notice = nil
        if list.typing { return typing(&state, &list, key) }
        if let id = list.removing {
            list.removing = nil
            state.recordings = list
            guard Keymap.binding(for: key, in: .recordings)?.command == .recordingRemoveYes else {
                state.notice = Notice("kept the recording")
                return []
            }
            state.notice = Notice("removing recording \(String(id.uuidString.lowercased().prefix(8)))...")
            return [.removeRecording(id, hostID: list.hostID)]
        }
        guard let binding = Keymap.binding(for: key, in: .recordings) else {
            if key == .ctrl("c") { return Reducer.quit(&state) }
            return []
        }
        if let reason = binding.disabledReason(state) {
            state.notice = Notice("\(binding.description): \(reason)", isError: true)
            return []
        }
        var effects: [Effect] = []
        switch binding.command {
        case .recordingDown, .recordingUp:
            let step = binding.command == .recordingDown ? 1 : -1
            if let hits = list.hits {
                list.hitCursor = Reducer.clamp(list.hitCursor + step, count: hits.count)
            } else {
                list.cursor = Reducer.clamp(list.cursor + step, count: list.rows?.count ?? 0)
            }
        case .recordingPlay:
            if let hit = list.selectedHit {
                state.notice = Notice("playing from +\(Int(hit.time))s...")
                effects = [.playRecording(hit.id, from: max(0, hit.time - 1))]
            } else if list.hits == nil, let row = list.selected {
                effects = [.playRecording(row.id, from: nil)]
            }
        case .recordingSearch:
            list.typing = true
        case .recordingRemove:
            if let row = list.selected, list.hits == nil { list.removing = row.id }
        case .recordingClose:
            if list.hits != nil || list.searching {
                list.hits = nil
                list.searching = false
            } else {
                state.recordings = nil
                state.mode = .browse
                return []
            }
        default: break
        }
        state.recordings = list
        return effects
    }

    /// The search text: every character is text; the other keys are the recordings search's own (Keymap: Enter
    /// searches, Esc stops typing, Backspace erases), which the status line hints.
    private static func typing(_ state: inout UIState, _ list: inout RecordingList, _ key: Key) -> [Effect] {
        var effects: [Effect] = []
        if case .char(let ch) = key {
            if list.query.utf8.count < 256 { list.query.append(ch) }
            state.recordings = list
            return []
        }
        switch Keymap.binding(for: key, in: .recordingSearch)?.command {
        case .recordingErase?:
            _ = list.query.popLast()
        case .recordingClear?:
            list.query = ""
        case .recordingStopTyping?:
            list.typing = false
        case .recordingFind?:
            list.typing = false
            if !list.query.isEmpty {
                list.searching = true
                list.hits = nil
                state.notice = Notice("searching \(list.hostName)'s recordings for '\(list.query)'...")
                effects = [.searchRecordings(list.hostID, text: list.query)]
            }
        default: break
        }
        state.recordings = list
        return effects
    }

    static let needsRecording: @Sendable (UIState) -> String? = { state in
        guard let list = state.recordings else { return "no list open" }
        if list.hits != nil { return list.selectedHit == nil ? "no hit selected" : nil }
        if list.rows == nil { return "still reading the recordings" }
        return list.selected == nil ? "no recording selected" : nil
    }

    static let needsListedRecording: @Sendable (UIState) -> String? = { state in
        if state.recordings?.hits != nil { return "Esc goes back to the recordings first" }
        return needsRecording(state)
    }

    static let needsRecordings: @Sendable (UIState) -> String? = { state in
        guard let rows = state.recordings?.rows else { return "still reading the recordings" }
        return rows.isEmpty ? "\(state.recordings?.hostName ?? "the host") has no recordings" : nil
    }
}

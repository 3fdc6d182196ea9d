// FilesCopyReducer: copies in the file pane — `c` queues the marked entries (else the one under the cursor) of the
// side with the keys into the other side's folder, `x` cancels, and the app's reports move each copy along; a copy
// that ended reads its destination folder again when that side still shows it.
import FoundationEssentials

enum FilesCopyReducer {
    static let copyDisabled: @Sendable (UIState) -> String? = { state in
        guard let pane = state.files else { return "no file pane" }
        if !pane.connected { return pane.failure == nil ? "still connecting to \(pane.hostName)" : "not connected" }
        if pane[.local].path.isEmpty || pane[.remote].path.isEmpty { return "still reading the folders" }
        let column = pane[pane.active]
        return column.marks.isEmpty && column.selected == nil ? "nothing to copy here" : nil
    }

    static func copy(_ state: inout UIState, _ pane: inout FilesPane) -> [Effect] {
        let from = pane.active
        let to: FilesPane.Side = from == .local ? .remote : .local
        let column = pane[from]
        let chosen =
            column.marks.isEmpty
            ? column.selected.map { [$0] } ?? []
            : column.entries.filter { column.marks.contains($0.name) }
        guard !chosen.isEmpty else { return [] }
        // Only regular files and folders go (cp's rule); anything else is said now rather than failing later.
        let refused = chosen.filter { !($0.kind == .file || $0.kind == .directory || $0.kind == .link) }
        if let first = refused.first {
            state.notice = Notice(
                "\(first.shown) is \(FilesReducer.words(first.kind)): only regular files and folders are copied",
                isError: true)
            return []
        }
        let total: UInt64? =
            chosen.allSatisfy { $0.kind == .file } ? chosen.reduce(0) { $0 + ($1.size ?? 0) } : nil
        let request = FilesTransfer.Request(
            id: pane.nextTransfer, direction: from == .local ? .upload : .download,
            sources: chosen.map { FilesPath.join(column.path, $0.name) }, destination: pane[to].path, total: total)
        pane.nextTransfer += 1
        let what = chosen.count == 1 ? chosen[0].shown : "\(chosen.count) entries"
        pane.transfers.append(FilesTransfer(request: request, title: "\(what) to \(pane[to].shownPath)"))
        pane[from].marks = []
        state.notice = Notice("copying \(what) to \(FilesPaneView.title(pane, to))...")
        return [.copyFiles(request)]
    }

    static func cancel(_ state: inout UIState, _ pane: inout FilesPane) -> [Effect] {
        guard
            let transfer = pane.transfers.first(where: { $0.state == .running })
                ?? pane.transfers.last(where: { $0.state == .queued })
        else { return [] }
        state.notice = Notice("cancelling the copy of \(transfer.title)...")
        return [.cancelCopy(transfer.request.id)]
    }

    static func progress(
        _ state: inout UIState, id: Int, state transferState: FilesTransfer.State, bytes: UInt64, rate: Double,
        detail: String
    ) -> [Effect] {
        guard var pane = state.files, let index = pane.transfers.firstIndex(where: { $0.request.id == id }) else {
            return []
        }
        pane.transfers[index].state = transferState
        pane.transfers[index].bytes = bytes
        pane.transfers[index].rate = rate
        pane.transfers[index].detail = detail
        var effects: [Effect] = []
        if !pane.transfers[index].isOpen {
            let request = pane.transfers[index].request
            let side: FilesPane.Side = request.direction == .upload ? .remote : .local
            if pane[side].path == request.destination {
                effects = FilesReducer.list(&pane, side, path: request.destination, select: pane[side].selected?.name)
            }
        }
        state.files = pane
        return effects
    }
}

// FilesChange: the file pane's changes to a folder — make a folder (`n`), rename (`R`), delete (`d`: y for a file or
// a link, the folder's name typed for a folder, which goes with everything in it), change the mode (`M`, octal) —
// first the question on the pane's bottom row, then the change the app makes on that side.
import FoundationEssentials

/// What the app is asked to change, on one side (paths as bytes).
public enum FilesChange: Sendable, Equatable {
    case makeFolder([UInt8])
    case rename([UInt8], to: [UInt8])
    /// A folder goes with everything in it (links removed, never followed).
    case delete([UInt8], folder: Bool)
    case setMode([UInt8], UInt32)
}

/// The question on the bottom row while a change is being asked for.
public struct FilesQuestion: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case makeFolder, rename, delete, setMode
        /// The edited file changed on the host meanwhile: overwrite, keep theirs, or save mine under another name.
        case editConflict, saveEditAs
    }
    public var kind: Kind
    public var side: FilesPane.Side
    /// The entry the change is about (nil for a new folder).
    public var entry: FileEntry?
    /// What was typed (a name, a mode, or the folder's name to confirm a delete).
    public var input: String
    /// Why the last Enter was refused.
    public var problem: String?
    /// The edit a conflict is about.
    public var edit: FilesEdit?

    /// The row's words.
    public var prompt: String {
        let name = entry?.shown ?? ""
        switch kind {
        case .makeFolder: return "New folder: "
        case .rename: return "Rename \(name) to: "
        case .setMode: return "Mode of \(name) (octal, e.g. 644): "
        case .editConflict:
            // Short enough for 80 columns with a short name: all three answers must show.
            let file = edit.map { FileName.shown(FilesPath.last($0.path) ?? $0.path) } ?? name
            return "\(file) changed on the host: o overwrite it, k keep theirs, s save yours as "
        case .saveEditAs: return "Save yours beside it as: "
        case .delete:
            return entry?.kind == .directory
                ? "Delete the folder \(name) and everything in it? Type its name: "
                : "Delete \(name)? y deletes, n keeps it "
        }
    }

    /// Line editing of the typed answer (a character, Backspace, Ctrl-U); false for any other key. A name part is
    /// at most 255 bytes on the file systems the pane meets, so typing stops there.
    mutating func edit(with key: Key) -> Bool {
        switch key {
        case .char(let ch):
            if input.utf8.count < 255 { input.append(ch) }
            problem = nil
        case .backspace: _ = input.popLast()
        case .ctrl("u"): input = ""
        default: return false
        }
        return true
    }
}

enum FilesChangeReducer {
    static let needsEntry: @Sendable (UIState) -> String? = { state in
        guard let pane = state.files else { return "no file pane" }
        if pane.active == .remote && !pane.connected { return "not connected" }
        return pane[pane.active].selected == nil ? "no entry selected" : nil
    }

    static let needsFolder: @Sendable (UIState) -> String? = { state in
        guard let pane = state.files else { return "no file pane" }
        if pane.active == .remote && !pane.connected { return "not connected" }
        return pane[pane.active].path.isEmpty ? "still reading the folder" : nil
    }

    static func ask(_ pane: inout FilesPane, _ kind: FilesQuestion.Kind) {
        let side = pane.active
        let entry = kind == .makeFolder ? nil : pane[side].selected
        var input = ""
        if kind == .rename, let entry { input = entry.shown }
        if kind == .setMode, let permissions = entry?.permissions { input = String(permissions & 0o777, radix: 8) }
        pane.question = FilesQuestion(kind: kind, side: side, entry: entry, input: input)
    }

    static func key(_ state: inout UIState, _ pane: inout FilesPane, _ key: Key) -> [Effect] {
        guard var question = pane.question else { return [] }
        if question.kind == .editConflict || question.kind == .saveEditAs {
            return FilesEditReducer.key(&state, &pane, question, key)
        }
        if question.kind == .delete, question.entry?.kind != .directory {
            switch key {
            case .char("y"):
                pane.question = nil
                return change(&state, pane, question.side, .delete(path(pane, question), folder: false))
            case .char("n"), .escape, .ctrl("c"):
                pane.question = nil
                state.notice = Notice("nothing deleted")
            default: break
            }
            return []
        }
        if question.edit(with: key) {
            pane.question = question
            return []
        }
        switch key {
        case .escape, .ctrl("c"):
            pane.question = nil
            state.notice = Notice("nothing changed")
            return []
        case .enter:
            switch decide(question, pane) {
            case .success(let change):
                pane.question = nil
                return FilesChangeReducer.change(&state, pane, question.side, change)
            case .failure(let failure):
                question.problem = failure.message
            }
        default: break
        }
        pane.question = question
        return []
    }

    private static func path(_ pane: FilesPane, _ question: FilesQuestion) -> [UInt8] {
        FilesPath.join(pane[question.side].path, question.entry?.name ?? [])
    }

    /// A typed name: one part of a path, nothing a path would read as another place.
    static func checkName(_ text: String) -> OperationFailure? {
        if text.isEmpty { return OperationFailure("type a name") }
        if text == "." || text == ".." { return OperationFailure("\(text) is not a name a folder can hold") }
        if text.contains("/") { return OperationFailure("a name cannot hold a /") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return OperationFailure("a name cannot hold a control character")
        }
        return text.utf8.count > 255 ? OperationFailure("a name is at most 255 bytes") : nil
    }

    private static func decide(_ question: FilesQuestion, _ pane: FilesPane) -> Result<FilesChange, OperationFailure> {
        let folder = pane[question.side].path
        switch question.kind {
        case .makeFolder:
            if let problem = checkName(question.input) { return .failure(problem) }
            return .success(.makeFolder(FilesPath.join(folder, Array(question.input.utf8))))
        case .rename:
            if let problem = checkName(question.input) { return .failure(problem) }
            return .success(.rename(path(pane, question), to: FilesPath.join(folder, Array(question.input.utf8))))
        case .setMode:
            guard let mode = UInt32(question.input, radix: 8), mode <= 0o777, !question.input.isEmpty else {
                return .failure(OperationFailure("a mode is 3 octal digits, 000 to 777 (e.g. 644, 755)"))
            }
            return .success(.setMode(path(pane, question), mode))
        case .delete:
            guard question.input == question.entry?.shown else {
                return .failure(OperationFailure("that is not the folder's name: nothing deleted"))
            }
            return .success(.delete(path(pane, question), folder: true))
        case .editConflict, .saveEditAs:
            return .failure(OperationFailure("answered by the edit's own keys"))
        }
    }

    private static func change(_ state: inout UIState, _ pane: FilesPane, _ side: FilesPane.Side, _ change: FilesChange)
        -> [Effect]
    {
        state.notice = Notice("changing \(FilesPaneView.title(pane, side))...")
        return [.changeFiles(side, change)]
    }

    /// The app's word on a change: a line, then the side read again.
    static func changed(_ state: inout UIState, side: FilesPane.Side, result: Result<String, OperationFailure>)
        -> [Effect]
    {
        switch result {
        case .success(let line): state.notice = Notice(line)
        case .failure(let failure): state.notice = Notice(failure.message, isError: true)
        }
        guard var pane = state.files else { return [] }
        let effects = FilesReducer.list(&pane, side, path: pane[side].path, select: pane[side].selected?.name)
        state.files = pane
        return effects
    }
}

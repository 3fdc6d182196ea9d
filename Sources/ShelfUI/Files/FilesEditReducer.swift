// FilesEditReducer: Enter on a host's file opens it in the user's editor — the pane asks the app to download a
// private copy (files over the round trip's limit refused at once), the app runs the editor and saves the copy back
// only if the host's file did not change meanwhile; if it did, the bottom row asks: overwrite it, keep theirs, or
// save mine under another name (a free one offered, an existing one refused).
import FoundationEssentials
import ShelfCore

/// One edit of a host's file: the app's id for its private copy, and the host's path (bytes).
public struct FilesEdit: Sendable, Equatable {
    public var id: Int
    public var path: [UInt8]

    public init(id: Int, path: [UInt8]) {
        self.id = id
        self.path = path
    }
}

/// What to do with an edit whose file changed on the host meanwhile.
public enum FilesEditChoice: Sendable, Equatable {
    /// Replace the host's file with the edited copy.
    case overwrite
    /// Leave the host's file as it is now; the edited copy is dropped.
    case keepTheirs
    /// Save the edited copy under this new path beside it (an existing name is refused).
    case saveAs([UInt8])
}

enum FilesEditReducer {
    /// Enter on an entry of the host's side that is not a folder: a regular file (or a link to one) is edited.
    static func open(_ state: inout UIState, _ pane: FilesPane, _ entry: FileEntry) -> [Effect] {
        guard entry.kind == .file || entry.kind == .link else {
            state.notice = Notice("\(entry.shown) is \(FilesReducer.words(entry.kind)), not a folder or a file to edit")
            return []
        }
        if let size = entry.size, entry.kind == .file, size > EditorRoundTrip.sizeLimit {
            state.notice = Notice(
                "\(entry.shown) is \(entry.sizeText): the editor takes files up to "
                    + "\(EditorRoundTrip.sizeLimit >> 20) MiB (copy it here with c instead)", isError: true)
            return []
        }
        state.notice = Notice("downloading \(entry.shown) to edit it...")
        return [.editFile(FilesPath.join(pane[.remote].path, entry.name))]
    }

    /// The app found the host's file changed since the download (or the name to save as taken: `problem`).
    static func conflict(_ state: inout UIState, _ edit: FilesEdit, problem: String?) {
        guard var pane = state.files else { return }
        if let problem {
            pane.question = FilesQuestion(
                kind: .saveEditAs, side: .remote, entry: nil, input: suggestion(pane, edit), problem: problem,
                edit: edit)
        } else {
            pane.question = FilesQuestion(kind: .editConflict, side: .remote, entry: nil, input: "", edit: edit)
        }
        state.notice = nil
        state.files = pane
    }

    static func key(_ state: inout UIState, _ pane: inout FilesPane, _ question: FilesQuestion, _ key: Key)
        -> [Effect]
    {
        guard let edit = question.edit else {
            pane.question = nil
            return []
        }
        var question = question
        let name = FileName.shown(FilesPath.last(edit.path) ?? edit.path)
        if question.kind == .editConflict {
            switch key {
            case .char("o"):
                pane.question = nil
                state.notice = Notice("saving yours over \(name) on the host...")
                return [.resolveEdit(edit.id, .overwrite)]
            case .char("k"), .char("n"), .escape, .ctrl("c"):
                pane.question = nil
                return [.resolveEdit(edit.id, .keepTheirs)]
            case .char("s"):
                question.kind = .saveEditAs
                question.input = suggestion(pane, edit)
                question.problem = nil
                pane.question = question
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
            question.kind = .editConflict
            question.input = ""
            question.problem = nil
        case .enter:
            if let problem = FilesChangeReducer.checkName(question.input) {
                question.problem = problem.message
            } else {
                let folder = FilesPath.parent(edit.path) ?? [0x2F]
                pane.question = nil
                state.notice = Notice("saving yours as \(question.input) beside \(name)...")
                return [.resolveEdit(edit.id, .saveAs(FilesPath.join(folder, Array(question.input.utf8))))]
            }
        default: break
        }
        pane.question = question
        return []
    }

    /// `NAME.mine` (then `.mine2`…), free among the names the host's side lists when it shows the file's folder.
    private static func suggestion(_ pane: FilesPane, _ edit: FilesEdit) -> String {
        let name = FilesPath.last(edit.path) ?? []
        let folder = FilesPath.parent(edit.path)
        let taken = pane[.remote].path == folder ? Set(pane[.remote].entries.map(\.name)) : []
        return FileName.shown(EditorRoundTrip.otherName(for: name, taken: taken))
    }
}

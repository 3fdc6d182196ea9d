// FilesEdits: the file pane's editor round trip — Enter on a host's file downloads it (on the side's SFTP thread) to
// a private copy (FilesEditCopy), the run loop steps out of curses and runs the editor on it (FilesEditor), and a
// copy that came back different is saved on the host only if the host's file is still what was downloaded: the same
// size, the same modification time and the same bytes (read again and compared whole: a change within the second
// or one that keeps the size and time is still seen). Otherwise the pane asks: overwrite, keep theirs, or save mine
// under another name. The save writes beside the file and renames over it (never a partial file under its name),
// with the host file's mode, and is logged as `sshelf cp` logs an upload (a save that cannot be logged is not made).
// The copy is removed in every ending but a failed or refused save, which keeps it and says where.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfSystem
import ShelfTerminal
import ShelfUI

final class FilesEdits: @unchecked Sendable {
    private let mailbox: Mailbox
    private let environment: [String: String]
    private let runtime: String
    /// The host's side now (set by TUIFiles once it exists).
    var remote: () -> FilesRemoteSide? = { nil }
    private let lock = Lock()
    /// Copies waiting for the editor or for the answer to a conflict (a save under way holds its copy itself).
    private var copies: [Int: FilesEditCopy] = [:]
    private var nextID = 1

    init(mailbox: Mailbox, environment: [String: String], runtime: String) {
        self.mailbox = mailbox
        self.environment = environment
        self.runtime = runtime
    }

    private func say(_ text: String, error: Bool = true) { mailbox.post(.notify(Notice(text, isError: error))) }

    /// Enter on a host's file: the editor is known first (nothing is downloaded without one), then the download.
    func edit(_ path: [UInt8]) {
        if case .failure(let problem) = EditorRoundTrip.editor(environment) { return say(problem.message) }
        guard let remote = remote() else { return say("not connected to the host") }
        lock.lock()
        let id = nextID
        nextID += 1
        lock.unlock()
        let shown = FileName.shown(FilesPath.last(path) ?? path)
        remote.run { [self] sftp in
            guard let sftp else { return say("\(shown) was not downloaded: the connection to the host ended") }
            do {
                // The file a link leads to is the one edited and saved (a save must not replace the link).
                let real = try sftp.realPath(bytes: path)
                let (bytes, attributes) = try sftp.readWhole(bytes: real, limit: EditorRoundTrip.sizeLimit)
                let copy = try FilesEditCopy.make(
                    id: id, runtime: runtime, remotePath: real, contents: bytes, attributes: attributes)
                // The pane closed while the file came down: nobody is there to edit it.
                guard self.remote() != nil else { return copy.remove() }
                lock.lock()
                copies[id] = copy
                lock.unlock()
                mailbox.post(.filesEditReady(id: id))
            } catch let error as SSHError {
                say("cannot edit \(shown): \(TUIErrorLine.text(error))")
            } catch let problem as EditorProblem {
                say("cannot edit \(shown): no private copy could be made here (\(problem.message))")
            } catch {
                say("cannot edit \(shown): \(TUIErrorLine.text(error))")
            }
        }
    }

    private func take(_ id: Int) -> FilesEditCopy? {
        lock.lock()
        defer { lock.unlock() }
        return copies.removeValue(forKey: id)
    }

    /// On the run loop: the editor on the copy, on the terminal curses leaves; then the save when it changed.
    func runEditor(_ id: Int, terminal: Terminal) {
        guard let copy = take(id) else { return }
        guard case .success(let words) = EditorRoundTrip.editor(environment) else {
            copy.remove()
            return
        }
        terminal.suspend()
        let result = FilesEditor.run(words, file: copy.file, environment: environment)
        terminal.resume()
        let name = copy.shownName
        switch result {
        case .failure(let problem):
            copy.remove()
            return say(problem.message + ": nothing uploaded")
        case .success(let status) where status != 0:
            copy.remove()
            return say("the editor ended with exit \(status): \(name) not uploaded")
        case .success:
            break
        }
        guard let now = copy.readBack() else {
            copy.remove()
            return say(
                "the edited copy of \(name) cannot be read back (gone, or over \(EditorRoundTrip.sizeLimit >> 20) "
                    + "MiB): nothing uploaded")
        }
        if now == copy.original {
            copy.remove()
            return say("\(name) unchanged: nothing uploaded", error: false)
        }
        copy.edited = now
        save(copy, .none)
    }

    /// The answer to "changed on the host meanwhile".
    func resolve(_ id: Int, _ choice: FilesEditChoice) {
        guard let copy = take(id) else { return }
        if choice == .keepTheirs {
            copy.remove()
            return say("kept the host's \(copy.shownName): your edit was dropped", error: false)
        }
        save(copy, choice)
    }

    /// Saves the edited copy on the side's thread: `nil` checks the host's file first, `.overwrite` replaces it,
    /// `.saveAs` writes a new name beside it (refused when taken: asked again).
    private func save(_ copy: FilesEditCopy, _ choice: FilesEditChoice?) {
        guard let contents = copy.edited, let remote = remote() else {
            return keep(copy, "the connection to the host ended")
        }
        remote.run { [self] sftp in
            guard let sftp else { return keep(copy, "the connection to the host ended") }
            let edit = FilesEdit(id: copy.id, path: copy.remotePath)
            do {
                var target = copy.remotePath
                var replacing = true
                switch choice {
                case .none:
                    if try changedOnHost(copy, sftp) { return ask(copy, edit, problem: nil) }
                case .saveAs(let path):
                    target = path
                    replacing = false
                    if try sftp.lstatExists(bytes: path) {
                        return ask(copy, edit, problem: "\(FileName.shown(path)) already exists: type another name")
                    }
                case .overwrite, .keepTheirs: break
                }
                // The mode the host's file has now (else had): a save changes the content only.
                let mode = (try? sftp.stat(bytes: copy.remotePath))??.permissions.map { $0 & 0o777 } ?? copy.permissions
                // Logged as `sshelf cp COPY HOST:FILE` logs: a save that cannot be logged is not made.
                let log = remote.log
                let logged: FilesReleaseLog.Started
                do {
                    logged = try log.begin(
                        log.command([copy.file], to: Self.text(target), upload: true, recursive: false),
                        what: "save")
                } catch {
                    // Where the edit is comes first: the log's reason names files and can be long.
                    return say(
                        "could not save \(copy.shownName) on the host, your edit is kept in \(copy.file): "
                            + TUIErrorLine.text(error))
                }
                do {
                    try sftp.writeWhole(bytes: target, contents: contents, mode: mode, replacing: replacing)
                } catch {
                    try? log.end(logged, outcome: sftp.lost ? .connectionLost : .failed)
                    throw error
                }
                copy.remove()
                var saved = "saved \(FileName.shown(target)) on the host (\(contents.count) bytes)"
                do {
                    try log.end(logged, outcome: .succeeded)
                } catch {
                    saved += "; " + TUIErrorLine.text(error)
                }
                mailbox.post(.filesChanged(.remote, .success(saved)))
            } catch {
                keep(copy, TUIErrorLine.text(error))
            }
        }
    }

    /// A host's path as cp's text (for the release log's item): its bytes as UTF-8, any that are not replaced.
    private static func text(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }

    /// Whether the host's file differs from what was downloaded: gone, another size or time, or other bytes.
    private func changedOnHost(_ copy: FilesEditCopy, _ sftp: SftpSession) throws(SSHError) -> Bool {
        guard let now = try sftp.stat(bytes: copy.remotePath), now.isRegularFile else { return true }
        if now.size != copy.size || now.modificationTime != copy.modified { return true }
        return try sftp.readWhole(bytes: copy.remotePath, limit: EditorRoundTrip.sizeLimit).bytes != copy.original
    }

    private func ask(_ copy: FilesEditCopy, _ edit: FilesEdit, problem: String?) {
        lock.lock()
        copies[copy.id] = copy
        lock.unlock()
        mailbox.post(.filesEditConflict(edit, problem: problem))
    }

    /// A save that failed: the copy stays (0600, in its 0700 folder) and the line says where, so no edit is lost.
    private func keep(_ copy: FilesEditCopy, _ why: String) { say(Self.kept(copy, why)) }

    private static func kept(_ copy: FilesEditCopy, _ why: String) -> String {
        "could not save \(copy.shownName) on the host: \(why); your edit is kept in \(copy.file)"
    }

    /// The pane closed: copies waiting for the editor go; one waiting for a conflict's answer is kept, and the lines
    /// saying where are returned for the caller to show — in the TUI while it runs, on the terminal once sshelf quits
    /// (a notice posted then would never be seen).
    func close(because why: String) -> [String] {
        lock.lock()
        let left = copies.values.sorted { $0.id < $1.id }
        copies = [:]
        lock.unlock()
        var lines: [String] = []
        for copy in left {
            if copy.edited == nil { copy.remove() } else { lines.append(Self.kept(copy, why)) }
        }
        return lines
    }
}

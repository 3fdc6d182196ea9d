// FilesRemoteSide: the host's side of the file pane — one logged-in connection and its SFTP session, used by one
// thread that takes listing requests and copies in turn (a listing first: it is what the user waits for). A listing
// is sent as it arrives (the first batch at once, then the growing list a few times a second, sorted off the run
// loop), and a newer request or the pane's close stops it between batches. Copies run one at a time (FilesCopyJob).
import FoundationEssentials
import ShelfCore
import ShelfSSH
import ShelfSystem
import ShelfUI

final class FilesRemoteSide: @unchecked Sendable {
    /// Starts the SFTP subsystem on the logged-in connection, and ends the connection (on the side's thread).
    private let openSftp: () throws -> SftpSession
    private let endConnection: () -> Void
    private let hostID: UUID
    private let mailbox: Mailbox
    /// The release log the side's copies and the editor's saves write their lines to, as `sshelf cp` does.
    let log: FilesReleaseLog
    private let condition = Condition()
    /// The next folder to list (a newer request replaces one not yet started), and whether the pane closed.
    private var request: (path: [UInt8], generation: Int)?
    private var closed = false
    /// The side's thread has ended the SFTP session and the connection (see `waitEnded`).
    private var ended = false
    /// Copies waiting their turn, and the ids of those cancelled (queued or running).
    private var copies: [FilesTransfer.Request] = []
    /// Changes waiting (a new folder, a rename, a delete, a mode), made before the next copy.
    private var changes: [FilesChange] = []
    private var cancelled: Set<Int> = []
    /// Work on the SFTP session in turn (an edit's download or save); called with nil once the side is closed or
    /// its connection lost, so the work can say so and keep what it must.
    private var jobs: [(SftpSession?) -> Void] = []
    /// Entries sent at most this often while a folder is still being read (the first batch goes at once).
    private static let updateInterval: Double = 0.1

    convenience init(connection: SSHConnection, hostID: UUID, log: FilesReleaseLog, mailbox: Mailbox) {
        self.init(
            hostID: hostID, log: log, mailbox: mailbox, open: { try SftpSession(connection) },
            end: { connection.close() })
    }

    init(
        hostID: UUID, log: FilesReleaseLog, mailbox: Mailbox, open: @escaping () throws -> SftpSession,
        end: @escaping () -> Void
    ) {
        openSftp = open
        endConnection = end
        self.hostID = hostID
        self.log = log
        self.mailbox = mailbox
    }

    /// Starts the SFTP subsystem and lists `start` (nil: the login's home) on the side's own thread.
    func start(_ start: [UInt8]?) {
        BackgroundThread.start(name: "sshelf-files") { [self] in run(start) }
    }

    /// What the side says to a request once its thread has ended (the connection broke, or SFTP never started).
    static let ended = "the connection to the host broke: close the pane (q) and open it again (F)"

    func list(_ path: [UInt8], generation: Int) {
        condition.lock()
        // The thread has ended: nobody would answer a request (the run loop would poll for it until the pane closed).
        guard !closed else {
            condition.unlock()
            let listing = FilesPane.Listing(
                side: .remote, generation: generation, path: path, entries: [], complete: true, error: Self.ended)
            mailbox.post(.filesListed(listing))
            return
        }
        if request != nil { mailbox.deliver() }
        request = (path, generation)
        mailbox.expect()
        condition.signal()
        condition.unlock()
    }

    func copy(_ request: FilesTransfer.Request) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            mailbox.post(.filesTransfer(id: request.id, state: .failed, bytes: 0, rate: 0, detail: Self.ended))
            return
        }
        copies.append(request)
        condition.signal()
        condition.unlock()
    }

    func change(_ change: FilesChange) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            mailbox.post(.filesChanged(.remote, .failure(OperationFailure(Self.ended))))
            return
        }
        changes.append(change)
        mailbox.expect()
        condition.signal()
        condition.unlock()
    }

    /// Runs `job` on the side's thread, before the next copy; at once with nil when the side is closed.
    func run(_ job: @escaping (SftpSession?) -> Void) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            job(nil)
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// The side is done (closed, lost, or never started): the waiting jobs hear it.
    private func finishJobs() {
        condition.lock()
        closed = true
        let waiting = jobs
        jobs = []
        condition.unlock()
        for job in waiting { job(nil) }
    }

    func cancelCopy(_ id: Int) {
        condition.lock()
        cancelled.insert(id)
        let queued = copies.contains { $0.id == id }
        copies.removeAll { $0.id == id }
        condition.unlock()
        if queued { mailbox.post(.filesTransfer(id: id, state: .cancelled, bytes: 0, rate: 0, detail: "")) }
    }

    /// Whether the copy `id` was cancelled or the pane closed (asked between blocks and files).
    func isStopped(_ id: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed || cancelled.contains(id)
    }

    /// The connection broke: the pane says so, and what was waiting is answered (the run loop stops expecting it).
    private func lostConnection() {
        condition.lock()
        closed = true
        if request != nil { mailbox.deliver() }
        for _ in changes { mailbox.deliver() }
        let waiting = copies
        (request, changes, copies) = (nil, [], [])
        condition.unlock()
        for copy in waiting {
            mailbox.post(.filesTransfer(id: copy.id, state: .failed, bytes: 0, rate: 0, detail: "the connection broke"))
        }
        mailbox.post(.filesConnected(hostID: hostID, failure: Self.ended))
    }

    /// The pane closed: the thread ends the SFTP session and the connection.
    func close() {
        condition.lock()
        closed = true
        if request != nil { mailbox.deliver() }
        for _ in changes { mailbox.deliver() }
        changes = []
        request = nil
        condition.signal()
        condition.unlock()
    }

    private var isSuperseded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed || request != nil
    }

    /// Waits, at most until `deadline`, for the side's thread to end its SFTP session and the connection; false when
    /// it had not. sshelf quitting with the pane open waits here: the process's exit handlers free what libssh2 uses,
    /// and a thread still inside it then crashed the quit (exit 139).
    @discardableResult
    func waitEnded(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !ended {
            if !condition.wait(until: deadline) && !ended { return false }
        }
        return true
    }

    private func run(_ start: [UInt8]?) {
        defer {
            condition.lock()
            ended = true
            condition.broadcast()
            condition.unlock()
        }
        defer { endConnection() }
        defer { finishJobs() }
        let sftp: SftpSession
        do {
            sftp = try openSftp()
        } catch {
            mailbox.post(.filesConnected(hostID: hostID, failure: "no file access: \(TUIErrorLine.text(error))"))
            return
        }
        defer { sftp.close() }
        let home = (try? sftp.realPath(bytes: Array(".".utf8))) ?? [0x2F]
        var first: [UInt8] = start ?? home
        if let start, start.first != 0x2F { first = FilesPath.join(home, start) }
        mailbox.post(.filesConnected(hostID: hostID, failure: nil))
        list(first, generation: 1)
        while true {
            condition.lock()
            while request == nil && copies.isEmpty && changes.isEmpty && jobs.isEmpty && !closed { condition.wait() }
            let next = request
            request = nil
            let change = next == nil && !changes.isEmpty ? changes.removeFirst() : nil
            let job = next == nil && change == nil && !jobs.isEmpty ? jobs.removeFirst() : nil
            let copy = next == nil && change == nil && job == nil && !copies.isEmpty ? copies.removeFirst() : nil
            let stop = closed
            condition.unlock()
            if stop { return }
            if let next { read(next.path, generation: next.generation, sftp: sftp) }
            if let change { mailbox.deliver(.filesChanged(.remote, FilesChanges.remote(change, sftp: sftp))) }
            if let job { job(sftp) }
            if let copy {
                FilesCopyJob(copy, sftp: sftp, log: log, mailbox: mailbox, stopped: { [self] in isStopped(copy.id) })
                    .run()
            }
            if sftp.lost {
                lostConnection()
                return
            }
        }
    }

    /// Reads one folder, sending what was read so far; always ends with one `deliver` (the `expect` of `list`).
    private func read(_ path: [UInt8], generation: Int, sftp: SftpSession) {
        var arrived = FilesOrder()
        var entries: [FileEntry] = []
        var lastSent: Date?
        var stopped = false
        var leftOut = 0
        let send = { (complete: Bool, error: String?) -> FilesPane.Listing in
            var note: String?
            if leftOut > 0 {
                note = "\(leftOut) name\(leftOut == 1 ? "" : "s") with a / or a NUL left out (no file system has them)"
            }
            return FilesPane.Listing(
                side: .remote, generation: generation, path: path, entries: entries, complete: complete,
                error: error, note: note)
        }
        do {
            leftOut = try sftp.list(bytes: path) { batch in
                for item in batch { arrived.append(entry(item, in: path, sftp: sftp)) }
                if isSuperseded {
                    stopped = true
                    return false
                }
                let now = Date()
                if lastSent.map({ now.timeIntervalSince($0) >= Self.updateInterval }) ?? true {
                    entries = arrived.sorted()
                    mailbox.post(.filesListed(send(false, nil)))
                    lastSent = now
                }
                return true
            }
        } catch {
            entries = arrived.sorted()
            mailbox.deliver(.filesListed(send(true, TUIErrorLine.text(error))))
            return
        }
        if stopped {
            mailbox.deliver()
            return
        }
        entries = arrived.sorted()
        mailbox.deliver(.filesListed(send(true, nil)))
    }

    /// A listed name as the pane shows it; a link's target is read (and whether it leads to a folder).
    private func entry(_ item: SftpListedEntry, in folder: [UInt8], sftp: SftpSession) -> FileEntry {
        let attributes = item.attributes
        let kind = FileEntry.Kind(mode: attributes.mode)
        let (owner, group) = FilesEntryText.remoteOwner(item.longEntry, uid: attributes.uid, gid: attributes.gid)
        var target: String?
        var toFolder = false
        if kind == .link {
            let full = FilesPath.join(folder, item.name)
            target = sftp.readLink(bytes: full).map(FileName.shown)
            toFolder = (try? sftp.stat(bytes: full))??.isDirectory ?? false
        }
        return FileEntry(
            name: item.name, kind: kind, size: attributes.size, permissions: attributes.permissions, owner: owner,
            group: group, modified: FilesEntryText.time(attributes.modificationTime), linkTarget: target,
            linkToDirectory: toFolder)
    }
}

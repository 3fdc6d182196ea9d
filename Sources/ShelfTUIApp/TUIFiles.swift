// TUIFiles: the run loop's side of the file pane — lists this machine's folders on a thread per request, logs in
// to the host through TUILogin (every hop's host key checked before any credential, pins and the release log as for
// Enter) and gives the connection to a FilesRemoteSide (with the release log its copies and saves write to), and
// ends that connection when the pane closes. Editing a host's file is FilesEdits'.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSystem
import ShelfTerminal
import ShelfUI

final class TUIFiles: @unchecked Sendable {
    private let mailbox: Mailbox
    private let login: TUILogin
    private let lock = Lock()
    /// The host the pane is open on, and where its side starts; nil once closed.
    private var opened: (hostID: UUID, start: [UInt8]?)?
    private var remote: FilesRemoteSide?
    private let edits: FilesEdits
    /// Where the release log is (its copies' and saves' lines, as `sshelf cp` writes them).
    private let workspace: Workspace

    init(mailbox: Mailbox, login: TUILogin, environment: [String: String], runtime: String, workspace: Workspace) {
        self.mailbox = mailbox
        self.login = login
        self.workspace = workspace
        edits = FilesEdits(mailbox: mailbox, environment: environment, runtime: runtime)
        edits.remote = { [weak self] in self?.remoteSide }
        login.filesLoggedIn = { [weak self] hostID, result in self?.loggedIn(hostID, result) }
    }

    /// How long a quit waits for the host side's thread to end its connection.
    static let quitWait: Double = 5

    func open(_ hostID: UUID, remotePath: [UInt8]?, localPath: [UInt8]?) {
        for line in close() { mailbox.post(.notify(Notice(line, isError: true))) }
        lock.lock()
        opened = (hostID, remotePath)
        lock.unlock()
        listLocal(localPath ?? FilesLocalListing.currentFolder(), generation: 1)
        login.start(hostID, for: .files)
    }

    func list(_ side: FilesPane.Side, path: [UInt8], generation: Int) {
        switch side {
        case .local: listLocal(path, generation: generation)
        case .remote:
            lock.lock()
            let remote = self.remote
            lock.unlock()
            remote?.list(path, generation: generation)
        }
    }

    func copy(_ request: FilesTransfer.Request) {
        lock.lock()
        let remote = self.remote
        lock.unlock()
        remote?.copy(request)
    }

    func change(_ side: FilesPane.Side, _ change: FilesChange) {
        switch side {
        case .local:
            mailbox.expect()
            BackgroundThread.start(name: "sshelf-files-change") { [mailbox] in
                mailbox.deliver(.filesChanged(.local, FilesChanges.local(change)))
            }
        case .remote:
            lock.lock()
            let remote = self.remote
            lock.unlock()
            remote?.change(change)
        }
    }

    private var remoteSide: FilesRemoteSide? {
        lock.lock()
        defer { lock.unlock() }
        return remote
    }

    func edit(_ path: [UInt8]) { edits.edit(path) }
    func runEditor(_ id: Int, terminal: Terminal) { edits.runEditor(id, terminal: terminal) }
    func resolveEdit(_ id: Int, _ choice: FilesEditChoice) { edits.resolve(id, choice) }

    func cancelCopy(_ id: Int) {
        lock.lock()
        let remote = self.remote
        lock.unlock()
        remote?.cancelCopy(id)
    }

    /// Closes the pane (`why` before an edit's answer: the pane closed, sshelf quit); returns the lines that say
    /// where an edit waiting for its answer was kept. `quitting`: sshelf is about to exit, so the host side's thread
    /// is given a few seconds to leave libssh2 first (a connection that hangs does not hold the quit longer).
    func close(because why: String = "the pane closed before the answer", quitting: Bool = false) -> [String] {
        lock.lock()
        let (wasLoggingIn, remote) = (opened != nil && self.remote == nil, self.remote)
        opened = nil
        self.remote = nil
        lock.unlock()
        if wasLoggingIn { login.cancel() }
        remote?.close()
        if quitting { remote?.waitEnded(until: Date(timeIntervalSinceNow: Self.quitWait)) }
        return edits.close(because: why)
    }

    private func listLocal(_ path: [UInt8], generation: Int) {
        mailbox.expect()
        BackgroundThread.start(name: "sshelf-files-local") { [mailbox] in
            let listing: FilesPane.Listing
            switch FilesLocalListing.read(path) {
            case .success(let entries):
                listing = FilesPane.Listing(
                    side: .local, generation: generation, path: path, entries: entries, complete: true)
            case .failure(let failure):
                listing = FilesPane.Listing(
                    side: .local, generation: generation, path: path, entries: [], complete: true,
                    error: failure.message)
            }
            mailbox.deliver(.filesListed(listing))
        }
    }

    /// On the login thread: the pane's host logged in (or not). A pane closed meanwhile drops the connection.
    private func loggedIn(_ hostID: UUID, _ result: TUILogin.FilesLogin) {
        switch result {
        case .failure(let failure):
            mailbox.post(.filesConnected(hostID: hostID, failure: failure.message))
        case .success(let login):
            // What the login changed (a pin, a remembered password), saved as a shell login saves it.
            if let error = BackgroundRecord(login.connection.outcome, target: login.plan.target.id, store: login.store)
                .wait()
            {
                mailbox.post(
                    .notify(Notice("could not save to the store: \(StoreWorker.message(error))", isError: true)))
            }
            lock.lock()
            guard let opened, opened.hostID == hostID, remote == nil else {
                lock.unlock()
                login.connection.close()
                return
            }
            let log = FilesReleaseLog.of(login.plan, outcome: login.connection.outcome, workspace: workspace)
            let side = FilesRemoteSide(connection: login.connection, hostID: hostID, log: log, mailbox: mailbox)
            remote = side
            lock.unlock()
            side.start(opened.start)
        }
    }
}

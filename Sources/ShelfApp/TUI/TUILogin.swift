// TUILogin: Enter on a host, in process. A background thread runs the whole connect flow (every hop: key
// exchange, host-key check, login) with questions as dialogs inside the TUI; once it succeeded, the run loop
// takes the connection (one thread at a time uses it), leaves curses, runs the shell, records the outcome as
// `sshelf connect` does, and comes back with a one-line result. Failures before the shell never leave curses.
// `c` (copy-id) logs in the same way and installs the host's identity key on that thread, curses still up.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfTerminal
import ShelfUI

final class TUILogin: @unchecked Sendable {
    /// A logged-in connection waiting for the run loop.
    private struct Ready {
        var connection: SSHConnection
        var plan: ConnectPlan
        var store: Store
    }

    private let context: AppContext
    private let mailbox: Mailbox
    let prompts: PromptChannel
    private let lock = NSLock()
    private var running = false
    private var ready: [UUID: Ready] = [:]
    /// Warnings of the vault while logging in (curses owns the screen: they go into the result line).
    private var warnings: [String] = []

    init(context: AppContext, mailbox: Mailbox) {
        self.context = context
        self.mailbox = mailbox
        prompts = PromptChannel(mailbox: mailbox)
    }

    /// A login is under way (one at a time: its dialogs share the screen).
    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// What the login is for: a shell (the run loop takes over), or installing the host's identity key.
    enum Purpose { case shell, copyID }

    /// Starts logging in to the host; posts `.loggedIn` or a `.connectFinished` line.
    func start(_ hostID: UUID, for purpose: Purpose = .shell) {
        lock.lock()
        running = true
        warnings = []
        lock.unlock()
        let thread = Thread { [self] in
            let result = login(hostID, by: purpose == .shell ? "tui" : "copy-id")
            if purpose == .copyID, case .success(let session) = result {
                let notice = installIdentity(session)
                lock.lock()
                running = false
                lock.unlock()
                mailbox.post(.connectFinished(notice))
                return
            }
            lock.lock()
            running = false
            if case .success(let session) = result { ready[hostID] = session }
            lock.unlock()
            switch result {
            case .success: mailbox.post(.loggedIn(hostID: hostID))
            case .failure(let failure): mailbox.post(.connectFinished(Notice(failure.message, isError: true)))
            }
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// copy-id on the login thread: the host's identity line appended to its authorized_keys, the outcome recorded.
    private func installIdentity(_ session: Ready) -> Notice {
        let host = Display.safe(session.plan.target.name)
        defer {
            session.connection.close()
            _ = BackgroundRecord(session.connection.outcome, target: session.plan.target.id, store: session.store).wait()
        }
        do {
            guard let identity = session.plan.endpoints.last?.identity else {
                return Notice("\(host) has no identity to install", isError: true)
            }
            let name = Display.safe(identity.name)
            switch try CopyIDCommand.install(try CopyIDCommand.keyLine(for: identity), on: session.connection) {
            case .added: return Notice("installed identity '\(name)' in ~/.ssh/authorized_keys on \(host)")
            case .present: return Notice("\(host) already has identity '\(name)'; nothing added")
            case .failed(let reason): return Notice("copy-id to \(host) failed: \(Display.safe(reason))", isError: true)
            }
        } catch let error as SSHError {
            return Notice("copy-id to \(host) failed: \(Display.safe(error.message))", isError: true)
        } catch {
            return Notice("copy-id to \(host) failed: \(StoreWorker.message(error))", isError: true)
        }
    }

    private func login(_ hostID: UUID, by purpose: String) -> Result<Ready, OperationFailure> {
        let delegate = TUIPrompts(channel: prompts)
        do {
            // The vault's warnings must not write over the curses screen: they go into the result line.
            let quiet = context.workspace.warning(to: { [weak self] text in
                guard let self else { return }
                lock.lock()
                warnings.append(Display.safe(text).trimmingCharacters(in: .whitespacesAndNewlines))
                lock.unlock()
            })
            let store = try quiet.openStore()
            guard let host = try store.host(id: hostID) else { return .failure(OperationFailure("not connected: the host is gone")) }
            let plan = try ConnectPlan.make(for: host, in: store)
            let credentials = VaultCredentialSource(workspace: quiet, store: store, releasedBy: purpose,
                                                    askPassphrase: { delegate.vaultPassphrase() })
            let connector = SSHConnector(options: .standard(quiet), credentials: credentials, delegate: delegate)
            let connection = try plan.connect(connector, store: store)
            return .success(Ready(connection: connection, plan: plan, store: store))
        } catch let error as SSHError {
            if delegate.refusedHostKey { return .failure(OperationFailure("not connected: the host key was not trusted")) }
            if error.kind == .cancelled { return .failure(OperationFailure("not connected: cancelled")) }
            return .failure(OperationFailure("not connected: \(Display.safe(error.message))"))
        } catch {
            return .failure(OperationFailure("not connected: \(Display.safe(StoreWorker.message(error)))"))
        }
    }

    /// Leaves curses, runs the shell on the logged-in connection, saves what the login changed, and returns the
    /// line to show. Called on the run loop after `.loggedIn`: the login thread is done with the connection.
    func runSession(_ hostID: UUID, terminal: Terminal) -> Notice? {
        lock.lock()
        let session = ready.removeValue(forKey: hostID)
        let warned = warnings
        lock.unlock()
        guard let session else { return nil }
        let name = Display.safe(session.plan.target.name)
        let connection = session.connection
        let record = BackgroundRecord(connection.outcome, target: session.plan.target.id, store: session.store)
        terminal.suspend()
        // Until the shell puts the terminal in raw mode (and after it restored it), Ctrl-C would be a signal that
        // ends the TUI with the session: ignored meanwhile (in raw mode it is a byte for the remote side).
        let previousInt = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previousInt) }
        let exit: Result<RemoteExit, SSHError>
        do {
            exit = .success(try connection.runShell(ShellOptions(term: context.environment["TERM"] ?? "xterm")))
        } catch {
            exit = .failure(error)
        }
        connection.close()
        terminal.resume()
        var notice: Notice
        switch exit {
        case .success(.status(0)): notice = Notice("session to \(name) ended (exit 0)")
        case .success(.status(let code)): notice = Notice("session to \(name) ended with exit \(code)", isError: true)
        case .success(.signal(let signal)):
            notice = Notice("session to \(name) ended by signal \(Display.safe(signal))", isError: true)
        case .success(.disconnected): notice = Notice("session to \(name): disconnected")
        case .failure(let error): notice = Notice("session to \(name) failed: \(Display.safe(error.message))", isError: true)
        }
        if let error = record.wait() {
            notice = Notice(notice.text + "; could not save to the store: \(StoreWorker.message(error))", isError: true)
        } else if let first = warned.first {
            notice = Notice(notice.text + "; \(Display.safe(first))", isError: true)
        }
        return notice
    }
}

// TUILogin: Enter on a host, in process. A background thread runs the whole connect flow (every hop: key
// exchange, host-key check, login) with questions as dialogs inside the TUI; once it succeeded, the run loop
// takes the connection (one thread at a time uses it), leaves curses, runs the shell, records the outcome as
// `sshelf connect` does, and comes back with a one-line result. Failures before the shell never leave curses. Esc
// stops an attempt at any stage; a changed host key ends it and offers the dialog that can replace the pin.
// `c` (copy-id) logs in the same way and installs the host's identity key on that thread, curses still up; `F` (the
// file pane) logs in the same way and hands the connection to TUIFiles.
// A host that `sshelf connect` would hand to OpenSSH (OpenSSHHandover.needed: an RSA key or a certificate on
// libssh2 1.10, a FIDO key, ForwardAgent) is handed over the same way: its ssh runs between leaving curses and
// coming back, after the line that says why, which the result line repeats.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore
import ShelfSystem
import ShelfTerminal
import ShelfUI

final class TUILogin: @unchecked Sendable {
    /// A logged-in connection waiting for the run loop.
    private struct Ready {
        var connection: SSHConnection
        var plan: ConnectPlan
        var store: Store
    }

    /// A host whose session goes to OpenSSH's ssh, waiting for the run loop, and why.
    private struct Handover {
        var plan: ConnectPlan
        var store: Store
        var why: String
    }

    /// A connect that met a changed host key: the keys, and the connect to start again once the pin is replaced.
    private struct ChangedKey {
        var change: HostKeyChange
        var target: ConnectAttempt
        var purpose: Purpose
    }

    private let context: AppContext
    private let mailbox: Mailbox
    private let vault: TUIVault
    let prompts: PromptChannel
    private let lock = Lock()
    /// Held by the login thread for its whole run: one login at a time (its dialogs share the screen). A connect
    /// started while the last one is still closing (its dialog was answered "no") waits here for it.
    private let oneAtATime = Lock()
    /// Counts attempts; a finishing attempt that a newer one superseded reports nothing.
    private var generation = 0
    private var ready: [UUID: Ready] = [:]
    private var handovers: [UUID: Handover] = [:]
    /// Warnings of the vault while logging in (curses owns the screen: they go into the result line).
    private var warnings: [String] = []
    /// Stops the attempt under way (Esc).
    private var cancellation: ConnectCancellation?
    /// The last changed key met, until the user replaces the pin or another connect starts.
    private var changedKey: ChangedKey?
    /// The last login failed its key exchange (the server may offer only post-quantum ones, which libssh2 has none of).
    private var handshakeFailed = false
    /// What a hop behind a jump host offered when its handshake failed for want of a post-quantum key exchange.
    private var postQuantumOffer: PostQuantumOffer?

    init(context: AppContext, mailbox: Mailbox, vault: TUIVault) {
        self.context = context
        self.mailbox = mailbox
        self.vault = vault
        prompts = PromptChannel(mailbox: mailbox)
    }

    /// What the login is for: a shell (the run loop takes over), or installing the host's identity key.
    /// A shell, or copy-id of `identity` (nil: the host's own).
    enum Purpose: Equatable { case shell, copyID(identity: UUID?), files }

    /// A login for the file pane, as it ended: the connection (with its plan and store) or why not.
    typealias FilesLogin = Result<(connection: SSHConnection, plan: ConnectPlan, store: Store), OperationFailure>
    /// Takes the file pane's logins (set by TUIFiles), on the login thread.
    var filesLoggedIn: (@Sendable (UUID, FilesLogin) -> Void)?

    /// Starts logging in to the host; posts `.loggedIn` or a `.connectFinished` line (and, for a changed host key,
    /// the dialog that can replace the pin).
    func start(_ hostID: UUID, for purpose: Purpose = .shell) { begin(hostID, for: purpose) { _ in nil } }

    /// Stops the attempt under way at whatever stage it is: a dialog is answered "cancel", the TCP connect stops
    /// waiting, an open socket is shut down (nothing more is sent on it).
    func cancel() {
        lock.lock()
        let attempt = cancellation
        lock.unlock()
        attempt?.cancel()
        prompts.cancelOpenQuestion()
    }

    /// The user typed the host's name in the changed-key dialog: replace the pin with the key that host offered,
    /// as `sshelf trust --replace` would, then connect again (the new connection is checked against the new pin).
    func replaceChangedKey() {
        lock.lock()
        let pending = changedKey
        changedKey = nil
        lock.unlock()
        guard let pending else { return }
        begin(pending.target.hostID, for: pending.purpose) { [context] store in
            do {
                try HostKeyOperations.replace(pending.change, workspace: TUIVault.quiet(context), store: store)
                return nil
            } catch {
                return OperationFailure("the pin was not replaced: \(TUIErrorLine.text(error))")
            }
        }
    }

    /// Runs `before` (on the login thread, with its store) and then the login.
    private func begin(_ hostID: UUID, for purpose: Purpose, before: @escaping @Sendable (Store) -> OperationFailure?) {
        let attempt = ConnectCancellation()
        lock.lock()
        generation += 1
        let mine = generation
        // Esc from now on stops this attempt, even while it still waits for the last one to close.
        cancellation = attempt
        lock.unlock()
        BackgroundThread.start(name: "sshelf-login") { [self] in
            oneAtATime.lock()
            defer { oneAtATime.unlock() }
            lock.lock()
            warnings = []
            changedKey = nil
            handshakeFailed = false
            postQuantumOffer = nil
            lock.unlock()
            var result: Result<Ready, OperationFailure>
            do {
                let store = try TUIVault.quiet(context).openStore()
                let failure = before(store)
                var handover = failure == nil && purpose == .shell ? Self.handover(hostID, store: store) : nil
                if handover == nil {
                    result =
                        failure.map { .failure($0) }
                        ?? login(hostID, for: purpose, store: store, cancellation: attempt)
                    // A server that offers only post-quantum key exchange: OpenSSH's ssh has one (said in its note).
                    lock.lock()
                    let failedHandshake = handshakeFailed, offer = postQuantumOffer
                    lock.unlock()
                    if purpose == .shell, case .failure = result, failedHandshake, !attempt.isCancelled {
                        handover = postQuantumOnly(hostID, offer: offer, store: store)
                    }
                } else {
                    result = .failure(OperationFailure("handed to OpenSSH"))  // never reported: handed over below
                }
                if let handover {
                    lock.lock()
                    if cancellation === attempt { cancellation = nil }
                    let (superseded, cancelled) = (generation != mine, attempt.isCancelled)
                    if !superseded && !cancelled { handovers[hostID] = handover }
                    lock.unlock()
                    if superseded { return }
                    // The run loop leaves curses and runs ssh (as it runs the shell of a login).
                    mailbox.post(
                        cancelled
                            ? .connectFinished(Notice("not connected: cancelled", isError: true))
                            : .loggedIn(hostID: hostID))
                    return
                }
            } catch {
                result = .failure(OperationFailure("not connected: \(TUIErrorLine.text(error))"))
            }
            // Logged in just as Esc was pressed: the user asked not to connect.
            if case .success(let session) = result, attempt.isCancelled {
                session.connection.close()
                result = .failure(OperationFailure("not connected: cancelled"))
            }
            if case .copyID(let identityID) = purpose, case .success(let session) = result {
                let notice = installIdentity(session, identityID: identityID)
                lock.lock()
                if cancellation === attempt { cancellation = nil }
                lock.unlock()
                mailbox.post(.connectFinished(notice))
                return
            }
            if purpose == .files {
                lock.lock()
                if cancellation === attempt { cancellation = nil }
                let changed = changedKey
                lock.unlock()
                filesLoggedIn?(hostID, result.map { ($0.connection, $0.plan, $0.store) })
                if case .failure = result, let changed { mailbox.post(.prompt(.keyMismatch(Self.dialog(changed)))) }
                return
            }
            lock.lock()
            if cancellation === attempt { cancellation = nil }
            if case .success(let session) = result { ready[hostID] = session }
            let changed = changedKey
            let superseded = generation != mine
            lock.unlock()
            // The user already moved on to another connect: this one's end is old news (its line was shown when
            // the user answered its dialog).
            if superseded, case .failure = result { return }
            switch result {
            case .success: mailbox.post(.loggedIn(hostID: hostID))
            case .failure(let failure):
                mailbox.post(.connectFinished(Notice(failure.message, isError: true)))
                if let changed { mailbox.post(.prompt(.keyMismatch(Self.dialog(changed)))) }
            }
        }
    }

    /// The host's session goes to OpenSSH (nil: sshelf's own client logs in; a plan that cannot be made is the
    /// login's to report).
    private static func handover(_ hostID: UUID, store: Store) -> Handover? {
        guard let host = try? store.host(id: hostID), let plan = try? ConnectPlan.make(for: host, in: store),
            let why = OpenSSHHandover.needed(plan)
        else { return nil }
        return Handover(plan: plan, store: store, why: why)
    }

    /// The session of a host whose handshake failed goes to OpenSSH when the server offers only post-quantum key
    /// exchange (nil: the failure stands).
    private func postQuantumOnly(_ hostID: UUID, offer: PostQuantumOffer?, store: Store) -> Handover? {
        let timeout = ConnectOptions.standard(context.workspace).connectTimeout
        guard let host = try? store.host(id: hostID), let plan = try? ConnectPlan.make(for: host, in: store),
            let why = OpenSSHHandover.postQuantumOnly(plan, offer: offer, timeout: timeout)
        else { return nil }
        return Handover(plan: plan, store: store, why: why)
    }

    /// copy-id on the login thread: the identity's line (the host's own when `identityID` is nil) appended to the
    /// host's authorized_keys, the outcome recorded.
    private func installIdentity(_ session: Ready, identityID: UUID?) -> Notice {
        let host = Display.safe(session.plan.target.name)
        defer {
            session.connection.close()
            _ = BackgroundRecord(session.connection.outcome, target: session.plan.target.id, store: session.store)
                .wait()
        }
        do {
            let chosen = try identityID.flatMap { id in try session.store.identities().first { $0.id == id } }
            if identityID != nil, chosen == nil { return Notice("the identity to install is gone", isError: true) }
            guard let identity = chosen ?? session.plan.endpoints.last?.identity else {
                return Notice("\(host) has no identity to install", isError: true)
            }
            let name = Display.safe(identity.name)
            let line = try AuthorizedKeyInstall.keyLine(for: identity)
            switch try AuthorizedKeyInstall.install(line, on: session.connection) {
            case .added: return Notice("installed identity '\(name)' in ~/.ssh/authorized_keys on \(host)")
            case .present: return Notice("\(host) already has identity '\(name)'; nothing added")
            case .failed(let reason): return Notice("copy-id to \(host) failed: \(Display.safe(reason))", isError: true)
            }
        } catch {
            return Notice("copy-id to \(host) failed: \(TUIErrorLine.text(error))", isError: true)
        }
    }

    private func login(_ hostID: UUID, for purpose: Purpose, store: Store, cancellation: ConnectCancellation)
        -> Result<Ready, OperationFailure>
    {
        let delegate = TUIPrompts(channel: prompts)
        do {
            guard let host = try store.host(id: hostID) else {
                return .failure(OperationFailure("not connected: the host is gone"))
            }
            let plan = try ConnectPlan.make(for: host, in: store)
            // The vault's warnings must not write over the curses screen: they go into the result line.
            let quiet = context.workspace.warning(to: { [weak self] text in
                guard let self else { return }
                lock.lock()
                warnings.append(Display.safe(text).trimmingSpacesAndNewlines())
                lock.unlock()
            })
            let credentials = TUICredentials(
                workspace: quiet, store: store, vault: vault,
                releasedBy: purpose == .shell ? "tui" : purpose == .files ? "files" : "copy-id",
                ask: { delegate.vaultPassphrase($0) }, cancel: { cancellation.cancel() })
            var options = ConnectOptions.standard(quiet)
            options.cancellation = cancellation
            let connector = SSHConnector(options: options, credentials: credentials, delegate: delegate)
            let connection = try plan.connect(connector, store: store)
            return .success(Ready(connection: connection, plan: plan, store: store))
        } catch let error as SSHError {
            if error.kind == .handshakeFailed {
                lock.lock()
                handshakeFailed = true
                postQuantumOffer = error.postQuantumOnly
                lock.unlock()
            }
            if delegate.refusedHostKey {
                return .failure(OperationFailure("not connected: the host key was not trusted"))
            }
            if error.kind == .cancelled || cancellation.isCancelled {
                return .failure(OperationFailure("not connected: cancelled"))
            }
            if let change = error.hostKeyChange {
                lock.lock()
                let target = ConnectAttempt(
                    hostID: hostID, name: Display.safe((try? store.host(id: hostID))??.name ?? change.hopName))
                changedKey = ChangedKey(change: change, target: target, purpose: purpose)
                lock.unlock()
                let hop = Display.safe(change.hopName)
                return .failure(OperationFailure("not connected: the host key of \(hop) has CHANGED; nothing was sent"))
            }
            return .failure(OperationFailure("not connected: \(TUIErrorLine.text(error))"))
        } catch {
            return .failure(OperationFailure("not connected: \(TUIErrorLine.text(error))"))
        }
    }

    /// The changed-key dialog: both keys, where the known one came from, and the host whose name must be typed.
    private static func dialog(_ changed: ChangedKey) -> KeyMismatch {
        let change = changed.change
        return KeyMismatch(
            kind: .changed, host: Display.safe(change.hopName), address: Display.safe(change.lookupName),
            offered: "\(change.offered.type) \(change.offered.fingerprint)",
            known: change.known.map { "\($0.type) \($0.fingerprint)" }, source: change.source.rawValue,
            retry: changed.target)
    }

    /// Leaves curses, runs the shell on the logged-in connection, saves what the login changed, and returns the
    /// line to show. Called on the run loop after `.loggedIn`: the login thread is done with the connection.
    func runSession(_ hostID: UUID, terminal: Terminal) -> Notice? {
        lock.lock()
        let session = ready.removeValue(forKey: hostID)
        let handover = handovers.removeValue(forKey: hostID)
        let warned = warnings
        lock.unlock()
        if let handover { return runOpenSSH(handover, terminal: terminal) }
        guard let session else { return nil }
        let name = Display.safe(session.plan.target.name)
        let connection = session.connection
        terminal.suspend()
        // Options sshelf's client does not apply are said as `sshelf connect` says them: once per host until the
        // host or those options change (OptionNotes), here where the session starts. Before the record starts: the
        // note reads the store, which is the record's thread's until `wait()`.
        OptionNotes.say(session.plan, store: session.store, always: false, context: context)
        let record = BackgroundRecord(connection.outcome, target: session.plan.target.id, store: session.store)
        // Until the shell puts the terminal in raw mode (and after it restored it), Ctrl-C would be a signal that
        // ends the TUI with the session: ignored meanwhile (in raw mode it is a byte for the remote side).
        let previousInt = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previousInt) }
        let exit: Result<RemoteExit, SSHError>
        do {
            var shell = ShellOptions(term: context.environment["TERM"] ?? "xterm")
            let context = self.context
            shell.snippetPicker = SnippetEscape.picker { try context.store().snippets() }
            exit = .success(try connection.runShell(shell))
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
        case .failure(let error):
            notice = Notice("session to \(name) failed: \(TUIErrorLine.text(error))", isError: true)
        }
        if let error = record.wait() {
            notice = Notice(notice.text + "; could not save to the store: \(StoreWorker.message(error))", isError: true)
        } else if let first = warned.first {
            notice = Notice(notice.text + "; \(Display.safe(first))", isError: true)
        }
        return notice
    }

    /// Leaves curses, says why the session goes to OpenSSH (the line `sshelf connect` prints), runs ssh as
    /// `connect` runs it (the bridge with its pins, the sshelf agent started when needed; the session recorded as
    /// the host's last: OpenSSHHandover.session), and returns the result line, which says why again.
    private func runOpenSSH(_ handover: Handover, terminal: Terminal) -> Notice {
        let name = Display.safe(handover.plan.target.name)
        terminal.suspend()
        context.errorOutput(OpenSSHHandover.note(handover.why) + "\n")
        // Run as `connect` runs it (Ctrl-C and job control are ssh's), and recorded as the host's last session.
        let exit: Result<Int32, Error>
        do {
            let (argv, environment) = try OpenSSHHandover.prepare(
                handover.plan, store: handover.store, dryRun: false,
                context: context)
            exit = .success(
                try OpenSSHHandover.session(
                    argv, environment: environment, plan: handover.plan, store: handover.store, context: context))
        } catch {
            exit = .failure(error)
        }
        terminal.resume()
        let why = "through OpenSSH: \(handover.why)"
        switch exit {
        case .success(0): return Notice("session to \(name) ended (exit 0); \(why)")
        case .success(let code): return Notice("session to \(name) ended with exit \(code); \(why)", isError: true)
        case .failure(let error):
            return Notice("session to \(name) failed: \(TUIErrorLine.text(error)); \(why)", isError: true)
        }
    }
}

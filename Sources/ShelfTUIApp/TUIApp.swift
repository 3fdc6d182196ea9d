// TUIApp: the run loop — draw when something changed, poll a key (not at all while a search job still has
// work: then a chunk of filtering runs between polls), apply background results, and execute effects.
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfStore
import ShelfSystem
import ShelfTerminal
import ShelfUI

public final class TUIApp {
    private let context: AppContext
    private let mailbox = Mailbox()
    private let worker: StoreWorker
    private let vault: TUIVault
    private let status: StatusSource
    private let login: TUILogin
    private let forwards: ForwardChildren
    private let fleet: TUIFleet
    private let files: TUIFiles
    private let recordings: TUIRecordings
    private let reachability: ReachabilityWorker
    private let optionCheck: OptionCheckWorker
    /// Nil when the test hook replaces the sync state (then nothing syncs in the background).
    private var sync: BackgroundSync?
    private var watcher: LiveWatcher?
    /// Where the sshelf agent asks "allow this signature?" while the TUI is open.
    private var agentQuestions: TUIConfirmListener?
    private var state: UIState
    private var terminal: Terminal?
    /// Set by `sshelf ui --benchmark-report`: measure, write the report, quit.
    public var benchmark: TUIBenchmark?

    public init(context: AppContext) {
        self.context = context
        let vault = TUIVault(context: context)
        self.vault = vault
        status = StatusSource(context: context, vault: vault)
        let login = TUILogin(context: context, mailbox: mailbox, vault: vault)
        self.login = login
        worker = StoreWorker(
            workspace: TUIVault.quiet(context), mailbox: mailbox,
            secretsPresent: { vault.itemNames() },
            askVaultPassphrase: TUIHostPassword.vaultPassphrase(asking: login.prompts))
        forwards = ForwardChildren(locations: context.locations, mailbox: mailbox, selfPath: SelfProcess.path)
        fleet = TUIFleet(context: context, mailbox: mailbox, prompts: login.prompts)
        files = TUIFiles(
            mailbox: mailbox, login: login, environment: context.environment,
            runtime: context.locations.runtimeDirectory, workspace: TUIVault.quiet(context))
        recordings = TUIRecordings(context: context, mailbox: mailbox, vault: vault)
        reachability = ReachabilityWorker(mailbox: mailbox)
        optionCheck = OptionCheckWorker(mailbox: mailbox, scratch: context.locations.configDirectory)
        state = UIState()
    }

    public func run() -> Int32 {
        let noColor = !(context.environment["NO_COLOR"] ?? "").isEmpty
        guard let terminal = Terminal(noColor: noColor) else {
            context.errorOutput(
                "sshelf: error: cannot use this terminal (TERM=\(Display.safe(context.environment["TERM"] ?? "")))\n"
                    + "sshelf: hint: set TERM to your terminal's type, e.g. xterm-256color; the CLI "
                    + "commands work without it\n")
            return 1
        }
        self.terminal = terminal
        /// Edits kept because sshelf quit while the pane asked about them: said once curses is gone.
        var keptEdits: [String] = []
        defer {
            login.prompts.cancelOpenQuestion()
            // The rules started here keep running (see ForwardChildren); the terminal says so once curses is gone.
            let handedOver = forwards.handOver()
            terminal.stop()
            if let handedOver { context.errorOutput(handedOver) }
            for line in keptEdits { context.errorOutput("sshelf: \(Display.safe(line))\n") }
        }
        let (vault, prompts, mailbox, locations) = (self.vault, login.prompts, self.mailbox, context.locations)
        agentQuestions = TUIConfirmListener(
            locations: context.locations, mailbox: mailbox,
            onUnlock: { question, answer in
                TUIUnlockForSSH.ask(
                    question, vault: vault, prompts: prompts, mailbox: mailbox, locations: locations, answer: answer)
            })
        defer { agentQuestions?.stop() }
        defer { keptEdits = files.close(because: "sshelf quit before the answer", quitting: true) }
        let size = terminal.size
        state = UIState(rows: size.rows, columns: size.columns, symbols: terminal.symbols, now: Date())
        state.reachability = ReachabilityColumn(start: ReachabilityWorker.start(context.environment))
        state.insideTmux = TmuxWindows(environment: context.environment) != nil
        state.status = status.current(store: try? Store(path: context.locations.store), now: state.now)
        if let failure = vault.failure() { apply(.vaultFailed(failure.message, hint: failure.hint)) }
        // The watcher's first look comes before the first load: nothing committed in between is missed.
        startLive()
        execute([.load])
        if let start = context.filesOnStart {
            apply(
                .showFiles(
                    hostID: start.hostID, name: start.name, remotePath: start.remotePath, localPath: start.localPath))
        }
        var dirty = true
        var lastTick = Date()
        while !state.quitting {
            // A search about to run would replace the rows at once: draw its results, not the stale ones.
            let searchDue = state.search.isRunning && state.catalog.isComplete
            if dirty && !searchDue {
                reachability.follow(state)
                optionCheck.follow(state)
                terminal.draw(Screen.render(state))
                dirty = false
                if let benchmark {
                    benchmark.frameDrawn(state)
                    if benchmark.isReady(state) {
                        runBenchmark(benchmark, terminal: terminal)
                        return 0
                    }
                }
            }
            // Idle: wake ten times a second for the clock; waiting for the store: every 2 ms; search due: no wait.
            let timeout = searchDue ? 0 : mailbox.pollTimeout(idle: 100, expecting: 2)
            if let input = terminal.readKey(timeoutMilliseconds: timeout) {
                switch input {
                case .key(let key): apply(.key(key))
                case .resize(let rows, let columns): apply(.resize(rows: rows, columns: columns))
                }
                dirty = true
            } else if searchDue {
                apply(.filterStep)
                dirty = true
            }
            for action in mailbox.take() {
                apply(action)
                dirty = true
            }
            let now = Date()
            if now.timeIntervalSince(lastTick) >= 1 {
                lastTick = now
                apply(.tick(now))
                forwards.refresh()
                reachability.pump()
                dirty = true
            }
        }
        return 0
    }

    /// Types the benchmark query the way the run loop handles it (the key, then its complete search, then one
    /// frame), timing each key to its drawn results.
    private func runBenchmark(_ benchmark: TUIBenchmark, terminal: Terminal) {
        apply(.key(.char("/")))
        for (i, ch) in benchmark.query.enumerated() {
            let start = DispatchTime.now()
            let cpu = TUIBenchmark.cpuMilliseconds()
            apply(.key(.char(ch)))
            while state.search.isRunning { apply(.filterStep) }
            terminal.draw(Screen.render(state))
            benchmark.record("key_\(i + 1)_complete_ms", TUIBenchmark.milliseconds(since: start))
            benchmark.record("key_\(i + 1)_cpu_ms", TUIBenchmark.cpuMilliseconds() - cpu)
        }
        benchmark.record("results", Double(state.visible.count))
        benchmark.write(hosts: state.catalog.count)
    }

    /// The watcher (changes by other processes) and background sync, which wake each other: a run's start and end
    /// show at once, and the watcher's findings (a local change, the remote changed or gone) start runs.
    private func startLive() {
        let mailbox = self.mailbox
        final class WatcherBox: @unchecked Sendable { var watcher: LiveWatcher? }
        let box = WatcherBox()
        if context.environment[StatusSource.testHookVariable] == nil {
            sync = BackgroundSync(
                context: context, status: status,
                reload: { mailbox.post(.storeChanged) }, changed: { box.watcher?.wake() })
        }
        let watcher = LiveWatcher(context: context, mailbox: mailbox, vault: vault, status: status, sync: sync)
        box.watcher = watcher
        self.watcher = watcher
        watcher.start()
        sync?.start()
    }

    private func apply(_ action: Action) {
        execute(Reducer.reduce(&state, action))
    }

    /// `t` on a forward rule: start or stop its child (see ForwardChildren). False for every other effect.
    private func runForwardEffect(_ effect: Effect) -> Bool {
        switch effect {
        case .startForward(let id, let allowPublicBind):
            let rule = state.catalog.rulesByHost.values.joined().first { $0.id == id }
            if let hostID = rule?.hostID,
                let failure = forwards.start(ruleID: id, hostID: hostID, allowPublicBind: allowPublicBind)
            {
                state.notice = failure
            }
            return true
        case .stopForward(let id):
            forwards.stop(ruleID: id)
            return true
        default:
            return false
        }
    }

    private func execute(_ effects: [Effect]) {
        for effect in effects {
            if runForwardEffect(effect) { continue }
            switch effect {
            case .connect(let id):
                login.start(id)
            case .cancelConnect:
                login.cancel()
            case .openInTmux(let ids):
                openInTmux(ids)
            case .answerPrompt(.replaceChangedKey):
                login.replaceChangedKey()
            case .unlockVault:
                unlockVault()
            case .lockVault:
                vault.lockAll()
                apply(.vaultStatus(vault.indicator()))
            case .syncNow:
                sync?.request(.now)
            case .launchSession(let id):
                runSession(id)
            case .quit:
                state.quitting = true
            case .answerPrompt(let answer):
                login.prompts.answer(answer)
            case .copyID(let id, let identity):
                login.start(id, for: .copyID(identity: identity))
            case .answerAgent(let id, let allow):
                agentQuestions?.answer(id, allow: allow)
            case .runFleet(let ids, let command, let confirmed):
                fleet.start(ids, command: command, confirmed: confirmed)
            case .stopFleet:
                fleet.stop()
            case .openFiles(let id, let remotePath, let localPath):
                files.open(id, remotePath: remotePath, localPath: localPath)
            case .listFiles(let side, let path, let generation):
                files.list(side, path: path, generation: generation)
            case .closeFiles:
                for line in files.close() { mailbox.post(.notify(Notice(line, isError: true))) }
            case .copyFiles(let request):
                files.copy(request)
            case .cancelCopy(let id):
                files.cancelCopy(id)
            case .changeFiles(let side, let change):
                files.change(side, change)
            case .editFile(let path):
                files.edit(path)
            case .runEditor(let id):
                if let terminal { files.runEditor(id, terminal: terminal) }
            case .resolveEdit(let id, let choice):
                files.resolveEdit(id, choice)
            case .moveCredentials(let keys, let target):
                moveCredentials(keys, to: target)
            case .loadRecordings(let id):
                recordings.load(id, name: state.recordings?.hostName ?? "")
            case .searchRecordings(let id, let text):
                recordings.search(text, hostID: id, name: state.recordings?.hostName ?? "")
            case .removeRecording(let id, let hostID):
                recordings.remove(id, hostID: hostID)
            case .playRecording(let id, let from):
                playRecording(id, from: from)
            default:
                worker.submit(effect)
            }
        }
    }

    /// `w` (and Enter with `sshelf tmux window on`) inside tmux: the hosts in a new tmux window, the TUI staying here.
    /// A few tmux commands, quick enough for the input path.
    private func openInTmux(_ ids: [UUID]) {
        guard let tmux = TmuxWindows(environment: context.environment) else {
            apply(.notify(Notice(TmuxWindows.notInside.message, isError: true)))
            return
        }
        let hosts = ids.compactMap { id in state.catalog.row(of: id).map { (state.catalog.reference($0), id) } }
        do {
            let window = try tmux.open(hosts, sshelf: SelfProcess.path)
            apply(
                .notify(
                    Notice(
                        hosts.count == 1
                            ? "opened \(hosts[0].0) in tmux window \(window)"
                            : "opened \(hosts.count) hosts in tmux window \(window), tiled (broadcast: sshelf tmux "
                                + "broadcast on --window \(window))")))
        } catch {
            apply(.notify(Notice(ShelfError(from: error).message, isError: true)))
        }
    }

    /// `V` on a locked vault (or on none: the offer to create one): the passphrase dialog on a background thread
    /// (the unlock's key stretching takes a moment), three tries, the result in the title bar and the status line.
    private func unlockVault() {
        let (vault, prompts, mailbox) = (self.vault, login.prompts, self.mailbox)
        // No vault on this device yet: V offers to create one (TUIVaultCreate).
        if !vault.exists {
            BackgroundThread.start(name: "sshelf-vault-create") {
                let notice = vault.create(ask: { question in
                    guard case .secret(let passphrase, _) = prompts.ask(.vaultPassphrase(prompt: question, input: ""))
                    else { return nil }
                    return passphrase
                })
                mailbox.post(.vaultStatus(vault.indicator()))
                mailbox.post(.notify(notice))
            }
            return
        }
        BackgroundThread.start(name: "sshelf-unlock") {
            let outcome = vault.unlock(ask: { question in
                let reply = prompts.ask(.vaultPassphrase(prompt: question, input: ""))
                guard case .secret(let passphrase, _) = reply else { return nil }
                return passphrase
            })
            mailbox.post(.vaultStatus(vault.indicator()))
            switch outcome {
            case .unlocked: mailbox.post(.notify(Notice("vault unlocked")))
            case .cancelled: break
            case .wrongPassphrase:
                let tries = TUIVault.passphraseTries
                mailbox.post(
                    .notify(Notice("the vault stays locked: the passphrase was wrong \(tries) times", isError: true)))
            case .failed(let message):
                mailbox.post(.notify(Notice("the vault stays locked: \(Display.safe(message))", isError: true)))
            }
        }
    }

    /// "y" to the autostart question: on a background thread (an unlock's key stretching takes a moment), with
    /// the passphrase dialog when the session is locked; the outcome in the title bar.
    private func moveCredentials(_ keys: [ReferenceKey], to target: String) {
        let (vault, prompts, mailbox) = (self.vault, login.prompts, self.mailbox)
        BackgroundThread.start(name: "sshelf-move") {
            let notice = vault.move(
                keys, to: target,
                ask: { question in
                    guard case .secret(let passphrase, _) = prompts.ask(.vaultPassphrase(prompt: question, input: ""))
                    else { return nil }
                    return passphrase
                })
            mailbox.post(.vaultStatus(vault.indicator()))
            mailbox.post(.notify(notice))
            mailbox.post(.storeChanged)
        }
    }

    /// Leaves curses for `sshelf play` and comes back to the recordings list with a one-line result.
    private func playRecording(_ id: UUID, from: Double?) {
        guard let terminal else { return }
        let notice = recordings.play(id, from: from, terminal: terminal)
        let size = terminal.size
        apply(.resize(rows: size.rows, columns: size.columns))
        apply(.notify(notice))
    }

    /// Leaves curses for the shell of a logged-in host and comes back to the same place with a one-line result.
    private func runSession(_ id: UUID) {
        guard let terminal, let notice = login.runSession(id, terminal: terminal) else { return }
        let size = terminal.size
        apply(.resize(rows: size.rows, columns: size.columns))
        apply(.connectFinished(notice))
    }
}

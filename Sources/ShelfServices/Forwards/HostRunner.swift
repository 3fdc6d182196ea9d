// HostRunner: one host of the supervisor on its own thread — connect unattended (once per session the rules ask
// for), run the host's autostart rules, and after a drop reconnect with exponential backoff and jitter. Errors
// only the user can fix (host key, credentials the supervisor may not read, a refused login) are `failed` with
// the reason and tried again only once a minute, so a fix (`sshelf trust`, `vault unlock`, `vault set-class`) is
// picked up. A host the loaded libssh2 cannot log in (post-quantum key exchange required, a user certificate or an
// RSA key on 1.10, a security key: OpenSSHHandover.loginNeeds) has its rules run by OpenSSH's `ssh -N` instead
// (OpenSSHForwardChild), supervised the same way: a child that ends is started again with backoff.
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem
import ShelfVault

public final class HostRunner: @unchecked Sendable {
    static let firstDelay = 0.5
    static let maximumDelay = 60.0

    let hostName: String
    private let plan: ConnectPlan
    private let rules: [PortForwardRule]
    private let options: ConnectOptions
    private let workspace: Workspace
    private let context: AppContext
    /// Opened and unlocked by `forward up --passphrase-fd`, shared by every runner; nil otherwise.
    private let vault: Vault?
    /// Each line the runner says, its hint as data: the face that prints it words it.
    private let report: @Sendable (RunnerLine) -> Void
    /// Who logs in, in messages ("'sshelf forward up'", "the sshelf service").
    private let who: String
    private let lock = Lock()
    private var states: [RuleState]
    private var pool: ForwardPool?
    /// The OpenSSH ssh running the rules now (a host that requires post-quantum key exchange).
    private var child: OpenSSHForwardChild?
    private var stopping = false
    /// The vault passphrase `forward up` was given, for the agent a post-quantum host's ssh signs through.
    private let agentPassphrase: AgentPassphrase?
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init(
        plan: ConnectPlan, rules: [PortForwardRule], options: ConnectOptions, vault: Vault?, context: AppContext,
        who: String = "'sshelf forward up'", agentPassphrase: AgentPassphrase? = nil,
        report: @escaping @Sendable (RunnerLine) -> Void
    ) {
        hostName = plan.target.name
        self.agentPassphrase = agentPassphrase
        self.vault = vault
        self.plan = plan
        self.rules = rules
        self.options = options
        self.report = report
        self.who = who
        workspace = context.workspace
        self.context = context
        let sessions = ForwardPool.sessionsNeeded(for: rules)
        states = rules.map { rule in
            let spread = min(rule.sessions, sessions)
            return RuleState(
                ruleID: rule.id, host: plan.target.name, spec: "-\(rule.spec.flag) \(rule.spec)", state: .starting,
                connectionsPerSession: spread > 1 ? Array(repeating: 0, count: spread) : nil)
        }
    }

    public func start() {
        // Weak: the thread must not hold the last reference past `finished` (nothing may be freed from it late).
        BackgroundThread.start(name: "sshelf-forward-\(hostName)") { [weak self, finished] in
            self?.loop()
            finished.signal()
        }
    }

    /// Stops the engine or the backoff sleep and waits for the thread to end.
    public func stop() {
        lock.lock()
        stopping = true
        let running = pool, ssh = child
        lock.unlock()
        running?.stop()
        ssh?.stop()
        wake.signal()
        finished.wait()
    }

    /// The rules' states, with live counts from the running engine.
    public func snapshot() -> [RuleState] {
        lock.lock()
        defer { lock.unlock() }
        guard let pool else { return states }
        let live = Dictionary(pool.status().map { ($0.ruleID, $0) }, uniquingKeysWith: { a, _ in a })
        return states.map { state in
            guard let status = live[state.ruleID] else { return state }
            var merged = state
            merged.take(status)
            return merged
        }
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    private func set(
        _ phase: RuleState.Phase, error: ShelfError? = nil, next: Date? = nil, ssh: Int32? = nil,
        note: String? = nil
    ) {
        let reason = error.map(RuleState.reason)
        lock.lock()
        for index in states.indices {
            states[index].state = phase
            states[index].lastError = reason?.error
            states[index].guidance = reason?.guidance
            states[index].nextAttempt = next
            states[index].sshPid = ssh
            if phase != .active { states[index].activeConnections = 0 }
        }
        lock.unlock()
        var line = RunnerLine("\(Display.safe(hostName)): \(phase.rawValue)")
        if let note { line.text += " \(note)" }
        if let reason {
            line.text += ": \(Display.safe(reason.error))"
            line.hint = reason.guidance
        }
        if let next { line.tail = " (next attempt in \(TextFormat.fixed(next.timeIntervalSinceNow, places: 1)) s)" }
        report(line)
    }

    /// Marks the rules that could not listen as failed, with the reason; they are tried again at the next login.
    private func leaveOut(_ failures: [ForwardEngine.RuleFailure]) {
        guard !failures.isEmpty else { return }
        lock.lock()
        for failure in failures {
            guard let index = states.firstIndex(where: { $0.ruleID == failure.rule.id }) else { continue }
            states[index].state = .failed
            states[index].lastError = ShelfError(from: failure.error).message
            states[index].guidance = nil
        }
        lock.unlock()
        for failure in failures {
            report(
                RunnerLine(
                    "\(Display.safe(hostName)): -\(failure.rule.spec.flag) \(failure.rule.spec) left out: "
                        + Display.safe(ShelfError(from: failure.error).message)))
        }
    }

    private func loop() {
        // This thread's own store connection (SQLite connections here are single-threaded), for the pins the
        // logins record.
        let store: Store
        do { store = try workspace.openStore() } catch {
            set(.failed, error: ShelfError(from: error))
            return
        }
        let credentials = UnattendedCredentials(
            workspace: workspace, store: store, who: who, vault: vault, releasedBy: "forward")
        var attempt = 0
        // Only when ssh is there to take it (loginNeeds says nothing without it): the own client's refusal below
        // then says why, and the host fails.
        if let why = OpenSSHHandover.loginNeeds(plan) {
            report(RunnerLine("note: \(why); running its rules through OpenSSH's ssh"))
            while !isStopping { runThroughOpenSSH(store: store, attempt: &attempt) }
            return
        }
        while !isStopping {
            set(.starting)
            credentials.reset()
            do {
                let connector = SSHConnector(options: options, credentials: credentials, delegate: UnattendedPrompts())
                let plan = try renewed(store: store)
                // One login per session the rules ask for (`sessions N`); nobody is asked anything on any of them.
                var connections: [SSHConnection] = []
                defer { for connection in connections { connection.close() } }
                for _ in 0..<ForwardPool.sessionsNeeded(for: rules) {
                    let connection = try plan.connect(connector, store: store)
                    connections.append(connection)
                    if !connection.outcome.pinnedKeys.isEmpty {
                        try? ConnectPlan.record(connection.outcome, target: nil, store: store)
                    }
                }
                // A rule whose port is taken is left out and reported; the host's other rules run.
                let running = try ForwardPool(
                    connections: connections, rules: rules, hostName: hostName, skipFailedRules: true)
                lock.lock()
                pool = running
                let stopNow = stopping
                lock.unlock()
                if stopNow { break }
                attempt = 0
                set(.active)
                leaveOut(running.failedRules)
                defer {
                    let last = snapshot()
                    lock.lock()
                    states = last
                    pool = nil
                    lock.unlock()
                }
                try running.run()
            } catch {
                guard !isStopping else { break }
                let reason = credentials.refusal ?? ShelfError(from: error)
                if credentials.refusal != nil || Self.isPermanent(error) {
                    set(.failed, error: reason, next: Date().addingTimeInterval(Self.maximumDelay))
                    waitForRetry(orUnlock: credentials)
                    continue
                }
                attempt += 1
                let delay = Self.delay(attempt: attempt)
                set(.retrying, error: reason, next: Date().addingTimeInterval(delay))
                _ = wake.wait(timeout: .now() + delay)
            }
        }
    }

    /// One attempt through OpenSSH's ssh: started, `active` once it has logged in (its key exchange and the time
    /// recorded as the host's last session, as a session of the own client records them), and when it ends `failed`
    /// (something only the user can fix: tried again in a minute) or `retrying` with backoff.
    private func runThroughOpenSSH(store: Store, attempt: inout Int) {
        set(.starting)
        let ending: OpenSSHForwardChild.Ending
        do {
            let plan = try renewed(store: store)
            let keepalive = plan.endpoints.last?.settings.serverAliveInterval ?? options.keepaliveInterval
            let started = try OpenSSHForwardChild.start(
                plan, rules: rules, keepalive: keepalive, store: store, context: context, passphrase: agentPassphrase,
                said: { [report] line in report(RunnerLine(line)) })
            lock.lock()
            child = started
            let stopNow = stopping
            lock.unlock()
            if stopNow { started.stop() }
            let pid = started.child.pid
            var loggedIn = false
            ending = started.run { keyExchange in
                loggedIn = true
                set(
                    .active, ssh: pid,
                    note: "through OpenSSH's ssh (pid \(pid), \(keyExchange ?? "key exchange unknown"))")
                var outcome = ConnectOutcome()
                outcome.keyExchanges = keyExchange.map { [$0] } ?? []
                try? ConnectPlan.record(outcome, target: plan.target.id, store: store)
            }
            if loggedIn { attempt = 0 }
            lock.lock()
            child = nil
            lock.unlock()
        } catch {
            guard !isStopping else { return }
            // Nothing retrying changes: this ssh has no post-quantum key exchange, the name cannot be written.
            set(.failed, error: ShelfError(from: error), next: Date().addingTimeInterval(Self.maximumDelay))
            waitForRetry(orUnlock: nil)
            return
        }
        guard !isStopping else { return }
        if ending.permanent {
            set(
                .failed, error: ShelfError(.failure, ending.reason), next: Date().addingTimeInterval(Self.maximumDelay))
            waitForRetry(orUnlock: nil)
            return
        }
        attempt += 1
        let delay = Self.delay(attempt: attempt)
        set(.retrying, error: ShelfError(.failure, ending.reason), next: Date().addingTimeInterval(delay))
        _ = wake.wait(timeout: .now() + delay)
    }

    /// The plan with its tied identities' certificates renewed where due (CertificateRenewal, the one renewal every
    /// login path calls; the release log names `forward up`): before every login, so a reconnect after the last
    /// certificate expired offers a new one. Nobody is there to type the vault passphrase the CA's key may need.
    private func renewed(store: Store) throws -> ConnectPlan {
        var renewed = plan
        try CertificateRenewal.prepare(
            &renewed, by: "forward up", now: CertificateRenewal.now(environment: context.environment),
            workspace: workspace, store: store,
            vaultPassphrase: {
                throw ShelfError(
                    .failure,
                    "the vault is locked for the key of the CA that renews the certificate; run 'sshelf vault "
                        + "unlock' (the supervisor tries again within a minute)")
            },
            note: { [report, hostName] in report(RunnerLine("\(Display.safe(hostName)): note: \($0)")) })
        return renewed
    }

    /// Waits the longest delay, or until the vault session opens the credential a refusal named (a `sshelf vault
    /// unlock` anywhere then brings the tunnel up within a second), or until stopped.
    private func waitForRetry(orUnlock credentials: UnattendedCredentials?) {
        let deadline = DispatchTime.now() + Self.maximumDelay
        while !isStopping, DispatchTime.now() < deadline {
            if wake.wait(timeout: min(deadline, .now() + 1)) == .success { return }
            if credentials?.refusedCredentialOpens == true { return }
        }
    }

    /// Exponential from half a second, capped at a minute, with ±25 % jitter so many hosts do not retry in step.
    static func delay(attempt: Int) -> Double {
        let base = min(maximumDelay, firstDelay * pow(2, Double(max(0, attempt - 1))))
        return base * Double.random(in: 0.75...1.25)
    }

    static func isPermanent(_ error: Error) -> Bool {
        guard let error = error as? SSHError else { return false }
        switch error.kind {
        case .hostKeyUnknown, .hostKeyChanged, .hostKeyOtherType, .hostKeyRevoked, .credentialNotSynced,
            .credentialUnavailable, .authenticationFailed, .rsaSignatureUnsupported, .cancelled,
            // A setting retrying cannot change: an algorithm list that leaves libssh2 nothing, a ProxyCommand that
            // cannot run, a host that requires post-quantum key exchange when OpenSSH's ssh is not there to take it.
            .invalidConfiguration:
            return true
        default:
            return false
        }
    }
}

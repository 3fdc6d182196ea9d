// ForwardRunCommands: `sshelf forward start|up|status|stop` — run one host's rules in the foreground, or every
// autostart rule under a supervisor (one session per host, reconnecting), and read or stop that supervisor.
// Connections are made exactly as `connect` makes them (plan, host-key trust, vault credentials).
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore
import ShelfSystem
import ShelfVault

enum ForwardRunCommands {
    static let publicBind = Flag(
        "allow-public-bind",
        "allow rules that listen on a non-loopback address (the port becomes reachable from the network)")

    struct StartOptions: PromptingLoginOptions {
        let login = LoginAnswerOptions()
        let allowPublicBind = ForwardRunCommands.publicBind
        let openssh = Flag(
            "openssh",
            "run the rules through OpenSSH's ssh -N with the sshelf agent and sshelf's pins (for unix-socket "
                + "forwards sshelf's own client cannot run: -R with a socket on the server, or -L to one on "
                + "libssh2 1.10)")
        let fromTUI = Flag(
            "from-tui",
            "started by the TUI's 't' (the TUI passes it): the rule keeps running after the TUI quits, and "
                + "'t' in any TUI stops it")
    }

    struct UpOptions: CommandOptions {
        let timeout = SSHCommands.timeout
        let allowPublicBind = ForwardRunCommands.publicBind
        let passphraseFD = Option(
            "passphrase-fd", .descriptor,
            "read the vault passphrase from descriptor N at start (afterFirstUnlock items; for systems "
                + "without the kernel keyring)")
    }

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["forward", "start"], summary: "run a host's forward rules in the foreground",
            details: """
                Connects to the host (as 'connect' does: jump chain, host-key check before any credential) and \
                runs its enabled forward rules, or only the RULEs named, until Ctrl-C or SIGTERM. A rule whose \
                port is already in use is reported by number and left out; the others run. Rules that listen on \
                a non-loopback address need --allow-public-bind. Exit status 0 after Ctrl-C when every rule ran, \
                1 when a rule could not listen (or none could), 255 when the connection failed or was lost.
                """,
            arguments: [
                ArgumentSpec(
                    name: "HOST", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    completion: .host),
                ArgumentSpec(
                    name: "RULE", help: "only these rules (id prefix or name); default: every enabled rule",
                    optional: true, variadic: true),
            ],
            options: StartOptions.self,
            examples: [
                "sshelf forward start prod-db", "sshelf forward start bastion socks",
                "sshelf forward start --openssh build gpg-socket",
            ],
            run: start),
        CommandSpec(
            path: ["forward", "up"], summary: "run every autostart forward rule, reconnecting after drops",
            details: """
                A supervisor in the foreground (run it under systemd --user or tmux): one session per host, \
                reconnecting with exponential backoff and jitter after a drop. Nobody is asked anything: host \
                keys must already be pinned or known ('sshelf trust HOST'), and credentials must be stored in a \
                class unattended reads can open (afterFirstUnlock…, readable after 'sshelf vault unlock'); a \
                credential stored whenUnlocked… is reported with the command that changes its class. Where the \
                kernel keyring is not available, give the vault passphrase with --passphrase-fd: it is checked at \
                start and opens the afterFirstUnlock items for this supervisor. 'sshelf forward status' shows \
                each rule's state; Ctrl-C, SIGTERM or 'sshelf forward stop' ends it.
                """,
            options: UpOptions.self,
            examples: ["sshelf forward up", "systemd-run --user sshelf forward up"],
            run: up),
        CommandSpec(
            path: ["forward", "status"], summary: "show the running forward rules: state, connections, bytes",
            details:
                "The supervisor's rules, then those each 'forward start' runs (from a terminal, or started in the TUI "
                + "and kept running after it quit), with its pid. States: starting, active (with connection and byte "
                + "counts), retrying (with the last error and the next attempt), failed (with the reason). --json "
                + "prints the supervisor's state only.",
            options: JSONOptions.self, run: status),
        CommandSpec(
            path: ["forward", "stop"], summary: "stop the running 'forward up' supervisor", run: stopSupervisor),
    ]

    static func start(_ call: Call<StartOptions>, _ context: AppContext) throws -> Int32 {
        let (plan, store) = try SSHCommands.loginPlan(call, context)
        let selected = try selectRules(call, hostID: plan.target.id, hostName: plan.target.name, store: store)
        try ForwardCommands.checkBindAddresses(selected, allowPublic: call[\.allowPublicBind])
        // A host that requires post-quantum key exchange goes to OpenSSH's ssh by itself: libssh2 has none.
        let postQuantum = call[\.openssh] ? nil : PostQuantumWords.handover(plan)
        if let postQuantum, access(OpenSSHOptionCheck.sshPath, X_OK) == 0 {
            context.errorOutput("sshelf: note: \(postQuantum); running the rules through OpenSSH's ssh\n")
        }
        if call[\.openssh] || (postQuantum != nil && access(OpenSSHOptionCheck.sshPath, X_OK) == 0) {
            return try OpenSSHForwards.run(
                plan, rules: selected, onlyRules: call.arguments.count > 1, store: store,
                context: context)
        }
        let (rules, refused) = try ownClientRules(selected, hostName: plan.target.name, context: context)
        let options = SSHCommands.connectOptions(call, context)
        // Rules with `sessions N` get N logins; the extra ones repeat the first one's answers without asking.
        let login = RepeatLogin()
        // Published for the TUI (every TUI shows the rules as starting, then running), whoever started this process.
        let publisher = StartStatePublisher(
            hostName: plan.target.name, rules: rules, fromTUI: call[\.fromTUI], context: context,
            note: { StandardStreams.write($0, fd: 2) })
        defer { publisher.stop() }
        return try SSHCommands.withConnection(
            plan, store: store, call: call, options: options, context: context, prompts: login.recording
        ) { connection in
            let extra = try login.connectMore(
                ForwardPool.sessionsNeeded(for: rules) - 1, to: plan.endpoints, options: options,
                credentials: try SSHCommands.credentialSource(context, store: store, call: call))
            defer { for session in extra { session.close() } }
            let pool: ForwardPool
            do {
                pool = try ForwardPool(
                    connections: [connection] + extra, rules: rules, hostName: plan.target.name, skipFailedRules: true)
            } catch {
                // Logged in, but no rule could listen: a local problem, not a connection failure.
                throw ShelfError(.failure, ShelfError(from: error).message, hint: portHint(error, rules: rules))
            }
            for failure in pool.failedRules {
                let rule = "-\(failure.rule.spec.flag) \(failure.rule.spec)"
                context.errorOutput("sshelf: error: \(rule) left out: \(Display.safe(failure.error.message))\n")
                if let hint = portHint(failure.error, rules: [failure.rule]) {
                    context.errorOutput("sshelf: hint: \(Display.safe(hint))\n")
                }
            }
            // Catch the signals before saying how to send them: a script that reads the line and stops us at once
            // must get a clean stop, not the default action.
            let signals = StopSignals { pool.stop() }
            defer { signals.cancel() }
            for status in pool.status() {
                let sessions = status.connectionsPerSession.map { " over \($0.count) sessions" } ?? ""
                context.errorOutput("sshelf: forwarding \(status.spec) (port \(status.boundPort))\(sessions)\n")
            }
            context.errorOutput("sshelf: press Ctrl-C to stop\n")
            publisher.running(pool)
            try pool.run()
            for status in pool.status() {
                context.errorOutput(
                    "sshelf: stopped \(status.spec): \(Display.counted(status.totalConnections, "connection"))"
                        + (status.failedConnections > 0 ? " (\(status.failedConnections) failed)" : "") + ", "
                        + "\(Display.counted(status.bytesOut, "byte")) out, "
                        + "\(Display.counted(status.bytesIn, "byte")) in\n"
                )
            }
            return pool.failedRules.isEmpty && refused == 0 ? 0 : 1
        }
    }

    /// The rules sshelf's own client can run with the loaded libssh2 (SocketForwardSupport), before connecting: each
    /// other one is reported with its reason and left out, and the count of those is returned; none left is an error.
    static func ownClientRules(_ rules: [PortForwardRule], hostName: String, context: AppContext) throws
        -> (rules: [PortForwardRule], refused: Int)
    {
        let refusals = rules.compactMap { rule in
            SocketForwardSupport.refusal(rule, hostName: hostName).map { (rule: rule, error: $0) }
        }
        guard !refusals.isEmpty else { return (rules, 0) }
        let runnable = rules.filter { rule in !refusals.contains { $0.rule.id == rule.id } }
        if runnable.isEmpty, refusals.count == 1, let only = refusals.first {
            throw ShelfError(.failure, only.error.message, hint: only.error.hint)
        }
        for refusal in refusals {
            context.errorOutput("sshelf: error: \(Display.safe(refusal.error.message)); left out\n")
            if let hint = refusal.error.hint { context.errorOutput("sshelf: hint: \(Display.safe(hint))\n") }
        }
        guard !runnable.isEmpty else {
            throw ShelfError(
                .failure, "no rule of \(Display.safe(hostName)) can run in sshelf's own client",
                hint: "sshelf forward start --openssh \(ShellWord.quote(Display.safe(hostName)))")
        }
        return (runnable, refusals.count)
    }

    /// For a rule that could not listen: the engine's own hint, then how to give the rule another port.
    static func portHint(_ error: Error, rules: [PortForwardRule]) -> String? {
        let base = (error as? SSHError)?.hint
        guard rules.count == 1, let rule = rules.first, rule.kind != .remote else { return base }
        let listen = rule.bindAddress.contains(":") ? "[\(rule.bindAddress)]" : rule.bindAddress
        let spec = "\(listen):PORT" + (rule.kind == .dynamic ? "" : ":\(rule.spec.targetPart)")
        let option = rule.kind == .dynamic ? "dynamic" : "local"
        let move = "sshelf forward edit \(Display.shortID(rule.id)) --\(option) \(spec)"
        return [base, "to give the rule another port: \(move)"].compactMap { $0 }.joined(separator: "; ")
    }

    static func up(_ call: Call<UpOptions>, _ context: AppContext) throws -> Int32 {
        let store = try context.store()
        let (hosts, rules) = try store.read { store in (try store.hosts(), try store.forwardRules()) }
        let autostart = rules.filter { $0.enabled && $0.autostart }
        try ForwardCommands.checkBindAddresses(autostart, allowPublic: call[\.allowPublicBind])
        let byID = Dictionary(hosts.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var byHost: [UUID: [PortForwardRule]] = [:]
        for rule in autostart {
            guard let hostID = rule.hostID, byID[hostID] != nil else {
                context.warn(
                    "forward \(Display.shortID(rule.id)) (-\(rule.spec.flag) \(rule.spec)) belongs to a "
                        + "deleted host; skipped"
                )
                continue
            }
            byHost[hostID, default: []].append(rule)
        }
        guard !byHost.isEmpty else {
            throw ShelfError(
                .notFound, "no enabled autostart forward rules",
                hint: "sshelf forward add HOST --local 8080:localhost:80 --autostart")
        }
        if let service = ServiceFiles.running(context.locations) {
            throw ShelfError(
                .failure, "the sshelf service (pid \(service.pid)) runs the autostart forwards already",
                hint: "sshelf forward status; sshelf service status")
        }
        guard let lockFD = try SupervisorFiles.lock(context.locations) else {
            let pid = (try? SupervisorFiles.read(context.locations))??.pid
            throw ShelfError(
                .failure, "a forward supervisor is already running\(pid.map { " (pid \($0))" } ?? "")",
                hint: "sshelf forward status; sshelf forward stop")
        }
        defer { close(lockFD) }
        let options = SSHCommands.connectOptions(timeout: call[\.timeout], context)
        let vault = try unlockedVault(call, context)
        // The same passphrase for the agent a post-quantum host's ssh signs through (another process).
        let agentPassphrase = AgentPassphrase.given(SecretInput(call, \.passphraseFD))
        // Runner threads report state changes (writes to the descriptor are safe from any thread) and wake the
        // publisher, so the state file follows a change at once; counts are refreshed twice a second.
        let wakeup = SupervisorWakeup()
        let report: @Sendable (RunnerLine) -> Void = { line in
            StandardStreams.write("sshelf: \(Display.safe(line.worded(by: CLIErrorHints.words)))\n", fd: 2)
            wakeup.poke()
        }
        let runners = try store.read { store in
            try byHost.compactMap { hostID, rules in byID[hostID].map { ($0, rules) } }
                .sorted { $0.0.name < $1.0.name }
                .map { host, rules in
                    HostRunner(
                        plan: try ConnectPlan.make(for: host, in: store), rules: rules, options: options,
                        vault: vault, context: context, agentPassphrase: agentPassphrase, report: report)
                }
        }
        let signals = StopSignals { wakeup.stop() }
        defer { signals.cancel() }
        let started = Date()
        let notes = ConnectionFailureNotes()
        func publish() {
            let state = SupervisorState(
                pid: getpid(), startedAt: started, updatedAt: Date(), rules: runners.flatMap { $0.snapshot() })
            for line in notes.lines(state.rules.filter { $0.state == .active }) { context.errorOutput(line) }
            do { try SupervisorFiles.write(state, context.locations) } catch {
                context.warn("could not write the forward state file: \(error)")
            }
        }
        publish()
        for runner in runners { runner.start() }
        while wakeup.wait(seconds: 0.5) { publish() }
        context.errorOutput("sshelf: stopping forwards\n")
        for runner in runners { runner.stop() }
        try? FileManager.default.removeItem(atPath: SupervisorFiles.statePath(context.locations))
        return 0
    }

    /// With --passphrase-fd: the vault, opened once and unlocked for the classes unattended logins read, shared by
    /// every host's runner (a wrong passphrase stops the supervisor at once, not at the first login).
    static func unlockedVault(_ call: Call<UpOptions>, _ context: AppContext) throws -> Vault? {
        guard call[\.passphraseFD] != nil else { return nil }
        let input = SecretInput(call, \.passphraseFD)
        let vault = try VaultCommands.open(context, create: false)
        let unattended = Set(AccessibilityClass.allCases.filter { $0.unlockScope == .session })
        // Kept for the process (readVaultPassphrase): the agent is handed the same line later.
        try VaultAccess.unlockIfNeeded(
            vault, for: unattended, passphrase: { try input.readVaultPassphrase(prompt: "Vault passphrase: ") })
        return vault
    }

    static func status(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        let state = try SupervisorFiles.read(context.locations)
        if call[\.json] {
            guard let state else {
                context.print("{\"running\": false, \"rules\": []}")
                return 0
            }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            context.print(JSONOutput.terminalSafe(try encoder.encode(state.forScripts)))
            return 0
        }
        if let state {
            // The service's rules: what to do is said as the service would take it (it is given no passphrase).
            let byService = ServiceFiles.running(context.locations)?.pid == state.pid
            let keyring =
                byService && (try? VaultAccess.open(context.workspace, create: false).session().shared) == true
            let wording: (Hint) -> String = {
                byService ? ServiceHintWords.words($0, keyring: keyring) : CLIErrorHints.words($0)
            }
            context.output(
                "supervisor pid \(state.pid)\(byService ? " (the sshelf service)" : "")\n"
                    + Display.table(
                        ["HOST", "RULE", "STATE", "CONNS", "SESSIONS", "OUT", "IN", "DETAIL"],
                        state.rules.map { statusRow($0, wordedBy: wording) }))
        } else {
            context.errorOutput("no forward supervisor is running; 'sshelf forward up' starts one\n")
        }
        // Rules `forward start` runs (typed in a terminal, or started with t in the TUI and kept after it quit).
        let started = SupervisorFiles.startStates(context.locations).sorted { $0.pid < $1.pid }
        guard !started.isEmpty else { return 0 }
        let rows = started.flatMap { process in
            process.rules.map { ["\(process.pid)", process.fromTUI == true ? "tui" : "terminal"] + statusRow($0) }
        }
        context.output(
            (state == nil ? "" : "\n") + "forward start processes (a TUI's 't' stops those it started; "
                + "'kill PID' stops any)\n"
                + Display.table(
                    ["PID", "BY", "HOST", "RULE", "STATE", "CONNS", "SESSIONS", "OUT", "IN", "DETAIL"], rows))
        return 0
    }

    /// One rule's line of `forward status`: host, spec, state, connections (active/total), sessions, bytes, detail
    /// (its hint in the CLI's words, or the service's for the service's rules).
    static func statusRow(_ rule: RuleState, wordedBy wording: (Hint) -> String = { CLIErrorHints.words($0) })
        -> [String]
    {
        var detail = rule.lastError(wordedBy: wording).map(Display.safe) ?? ""
        if let next = rule.nextAttempt {
            detail = "next attempt in \(max(0, Int(next.timeIntervalSinceNow.rounded(.up)))) s: " + detail
        }
        if let pid = rule.sshPid {
            detail = "through OpenSSH's ssh (pid \(pid))" + (detail.isEmpty ? "" : "; " + detail)
        }
        // A rule spread over several sessions shows how many connections each one carried.
        let sessions = rule.connectionsPerSession.map { "\($0.count) (\($0.map(String.init).joined(separator: " ")))" }
        return [
            Display.safe(rule.host), rule.spec, rule.state.rawValue,
            "\(rule.activeConnections)/\(rule.totalConnections)", sessions ?? "1",
            "\(rule.bytesOut)", "\(rule.bytesIn)", detail,
        ]
    }

    static func stopSupervisor(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        guard let state = try SupervisorFiles.read(context.locations) else {
            throw ShelfError(.notFound, "no forward supervisor is running")
        }
        if ServiceFiles.running(context.locations)?.pid == state.pid {
            throw ShelfError(
                .failure, "the autostart forwards run inside the sshelf service (pid \(state.pid))",
                hint: "turn a rule's autostart off ('sshelf forward edit RULE --no-autostart') or 'sshelf service stop'"
            )
        }
        guard kill(state.pid, SIGTERM) == 0 else {
            throw ShelfError(
                .failure, "cannot signal the supervisor (pid \(state.pid)): \(String(cString: strerror(errno)))")
        }
        guard ChildProcess.waitForExit(state.pid, deadline: Date().addingTimeInterval(15)) != nil else {
            throw ShelfError(.failure, "the supervisor (pid \(state.pid)) did not stop within 15 s")
        }
        context.print("stopped the forward supervisor (pid \(state.pid))")
        return 0
    }

    /// The named rules of this host, or all its enabled ones.
    static func selectRules(_ call: Call<StartOptions>, hostID: UUID, hostName: String, store: Store) throws
        -> [PortForwardRule]
    {
        let names = Array(call.arguments.dropFirst())
        let rules = try store.read { store -> [PortForwardRule] in
            if names.isEmpty { return try store.forwardRules(hostID: hostID).filter(\.enabled) }
            return try names.map { name in
                let rule = try Resolve.forwardRule(name, in: store)
                guard rule.hostID == hostID else {
                    throw ShelfError(
                        .usage, "forward rule '\(Display.safe(name))' belongs to another host",
                        hint: "sshelf forward list \(Display.safe(hostName))")
                }
                return rule
            }
        }
        guard !rules.isEmpty else {
            throw ShelfError(
                .notFound, "\(Display.safe(hostName)) has no enabled forward rules",
                hint: "sshelf forward add \(Display.safe(hostName)) --local 8080:localhost:80")
        }
        return rules
    }
}

/// Wakes the supervisor's publishing loop on a state change, and tells it to stop.
final class SupervisorWakeup: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = Lock()
    private var stopping = false

    func poke() { semaphore.signal() }

    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        semaphore.signal()
    }

    /// Waits for a poke or the timeout; false once stop() was called.
    func wait(seconds: Double) -> Bool {
        _ = semaphore.wait(timeout: .now() + seconds)
        lock.lock()
        defer { lock.unlock() }
        return !stopping
    }
}

// SSHCommands: `connect`, `exec` and `trust` — the CLI faces of the ShelfSSH connect flow. Connection failures
// exit 255 (as ssh does); otherwise the remote command's or shell's exit status is ours.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore
import ShelfSystem

enum SSHCommands {
    static let timeout = Option(
        "timeout", .seconds(atMost: 600), "connect timeout per address (default 10)")

    struct ConnectCommandOptions: PromptingLoginOptions {
        let login = LoginAnswerOptions()
        let dryRun = Flag("dry-run", "print the plan (hops, host keys, credential sources) and stop")
        let openssh = Flag(
            "openssh",
            "hand the session to OpenSSH's ssh through the ssh_config bridge, with the sshelf agent (for "
                + "options sshelf's own client cannot do: ForwardAgent, X11, ControlMaster…)")
        let verbose = Flag(
            "verbose", short: "v",
            "say which key exchange the session used, and the note about options sshelf's client does not "
                + "apply every time (not only the first)")
        let window = Flag("window", "inside tmux: open the session in a new tmux window (see sshelf tmux window)")
        let noWindow = Flag("no-window", "connect in this terminal even when 'sshelf tmux window' is on")
        let recording = RecordChoice.Options()
    }

    struct ExecCommandOptions: PromptingLoginOptions {
        let login = LoginAnswerOptions()
        let noStdin = Flag("no-stdin", short: "n", "do not forward standard input")
        let tty = Flag(
            "tty", short: "t",
            "give the command a terminal (PTY), as ssh -tt: for sudo's password prompt, top, an editor (a new "
                + "login, not a warm session)")
        let persist = Flag(
            "persist", "keep the session warm in the background for later exec calls (logs in without asking)")
        let persistFor = Option(
            "persist-for", WarmCommands.idle,
            "with --persist: end the warm session after this long idle (default \(WarmCommands.defaultIdle))")
    }

    struct TrustCommandOptions: LoginOptions {
        let replace = Flag("replace", "replace a pinned or known key that differs (after a deliberate server change)")
        let fingerprint = Option(
            "fingerprint", .text("SHA256:..."), "only pin if the offered key has this fingerprint")
        let timeout = SSHCommands.timeout
        let ca = Option("ca", .path("KEY"), "trust this CA key (a public key line or .pub file) instead")
        let hosts = Option(
            "hosts", .text("PATTERN"), "with --ca: the host names it is trusted for (e.g. '*.example.org')")
        let remove = Flag("remove", "with --ca: stop trusting that CA (for --hosts PATTERN only, when given)")
        let passphraseFD = LoginPassphraseOption.passphraseFD
        let id = CommandSpec.hostID
    }

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["connect"], summary: "open an interactive shell on a host",
            details: """
                Follows the host's jump chain, verifies every host key before any credential is read, then opens a \
                shell with a terminal of your size. Type ~. at the start of a line to disconnect. The exit status \
                is the remote shell's; 255 when the connection failed or was cut.
                """,
            arguments: [
                ArgumentSpec(
                    name: "NAME", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    completion: .host)
            ],
            options: ConnectCommandOptions.self,
            examples: [
                "sshelf connect prod-db", "sshelf connect prod-db --dry-run", "sshelf connect prod-db --openssh",
                "sshelf connect prod-db --record",
            ],
            extraArguments: { words in
                // As `ssh HOST CMD` runs CMD: here that is exec (with -t when it wants a terminal).
                "to run a command on it: sshelf exec "
                    + words.map { ShellWord.quote(Display.safe($0)) }.prefix(1).joined()
                    + " -- " + words.dropFirst().map { ShellWord.quote(Display.safe($0)) }.joined(separator: " ")
                    + " (exec -t gives it a terminal)"
            },
            run: connect),
        CommandSpec(
            path: ["exec"], summary: "run a command on a host",
            details: """
                Everything after -- is the remote command. Its stdout and stderr stay apart, and its exit status is \
                returned (255 if the connection failed). When a warm session for the host is running (see \
                --persist and `sshelf warm`), the command runs on a new channel of it, with no handshake or login; \
                otherwise exec connects as usual.
                """,
            arguments: [
                ArgumentSpec(
                    name: "NAME", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    completion: .host),
                ArgumentSpec(name: "CMD", help: "the remote command and its arguments (after --)", variadic: true),
            ],
            options: ExecCommandOptions.self,
            examples: [
                "sshelf exec prod-db -- uptime", "sshelf exec prod-db -- tar czf - /etc > etc.tgz",
                "sshelf exec prod-db --persist -- uptime",
            ],
            run: exec),
        CommandSpec(
            path: ["trust"], summary: "pin a host's current host key, or trust a CA for host names, deliberately",
            details: """
                Connects (through the jump chain), reads the key the host offers and pins it on the host record and \
                in sshelf's known_hosts. A key that differs from the pinned or known one is only replaced with \
                --replace; --fingerprint makes sure the key is the one you checked out of band. A host that requires \
                post-quantum key exchange (--pq require), or a server that offers only that, has its key read \
                through OpenSSH's ssh over a post-quantum key exchange (no credential is offered; a host reached \
                directly). With --ca KEY \
                --hosts PATTERN instead of NAME: trusts the certificate authority KEY (a public key line or .pub \
                file) for the hosts PATTERN names (known_hosts patterns, comma-separated) — a CA pin, which syncs \
                signed like a host's pin — so a host presenting a valid host certificate it signed for the name \
                connected to is trusted without a prompt (docs/SSH.md, "Host certificates"). --ca KEY --remove \
                stops trusting it (for --hosts PATTERN only, when given), on every device once synced.
                """,
            arguments: [
                ArgumentSpec(
                    name: "NAME", help: "host name (NAME@ID when several hosts share it, or an id prefix)",
                    optional: true, completion: .host)
            ],
            options: TrustCommandOptions.self,
            examples: [
                "sshelf trust prod-db --fingerprint SHA256:abc...", "sshelf trust prod-db --replace",
                "sshelf trust --ca ~/team_ca.pub --hosts '*.example.org'", "sshelf trust --ca ~/team_ca.pub --remove",
            ],
            run: trust),
    ]

    /// The credential source the flow asks after host-key verification: the vault, asking for its passphrase when
    /// an item is locked — read once from --passphrase-fd N, or typed on the terminal (up to three tries). The
    /// release log names the command (connect, exec, forward, copy-id).
    static func credentialSource(_ context: AppContext, store: Store, call: Call<some LoginOptions>) throws
        -> CredentialSource
    {
        let input = SecretInput(call, \.passphraseFD)
        var asked = 0
        let by = call.command.path.first ?? call.command.name
        return VaultCredentialSource(
            workspace: context.workspace, store: store, releasedBy: by,
            askPassphrase: {
                asked += 1
                if input.fd != nil { return asked == 1 ? try? input.readVaultPassphrase(prompt: "") : nil }
                guard isatty(0) == 1 else { return nil }
                return try? input.read(
                    prompt: asked == 1 ? "Vault passphrase: " : "Wrong passphrase. Vault passphrase: ")
            })
    }

    // MARK: commands

    static func connect(_ call: Call<ConnectCommandOptions>, _ context: AppContext) throws -> Int32 {
        if let opened = try openInTmuxWindow(call, context) { return opened }
        let dryRun = call[\.dryRun]
        let (plan, store) = try loginPlan(call, context, dryRun: dryRun)
        let certificate = CertificateRenewal.sshOptions(plan, locations: context.locations)
        // A session handed to OpenSSH is recorded too: ssh then runs on a terminal sshelf holds (OpenSSHRelay).
        func handOver() throws -> Int32 {
            let record =
                try !dryRun && RecordChoice.decide(call, \.recording, host: plan.target, store: store, context: context)
            let recorder = try record ? recorderForOpenSSH(call, plan: plan, store: store, context: context) : nil
            return try OpenSSHHandover.run(
                plan, store: store, dryRun: dryRun, context: context, options: certificate, recorder: recorder,
                verbose: call[\.verbose])
        }
        if call[\.openssh] { return try handOver() }
        if let why = OpenSSHHandover.needed(plan) {
            context.errorOutput(OpenSSHHandover.note(why) + "\n")
            return try handOver()
        }
        let options = connectOptions(call, context)
        if dryRun {
            context.print(
                plan.describe(trust: options.trust, agentSocket: options.agentSocket, environment: options.environment))
            return 0
        }
        OptionNotes.say(plan, store: store, always: call[\.verbose], context: context)
        // As ssh: a PTY (and the ~ escapes) only when stdin is a terminal, unless RequestTTY force; without one the
        // login shell reads stdin as a script and ends at its end (`sshelf connect web1 < setup.sh`).
        var shell = ShellOptions(term: context.environment["TERM"] ?? "xterm")
        shell.snippetPicker = SnippetEscape.picker { try context.store().snippets() }
        let tty = plan.endpoints[plan.endpoints.count - 1].settings.requestTTY
        if tty != .force && isatty(0) != 1 {
            shell.requestTerminal = false
            shell.escapeEnabled = false
            shell.errors = 2
            if tty != .no {
                context.errorOutput("sshelf: no terminal (PTY) is asked for: stdin is not a terminal\n")
            }
        }
        let record = try RecordChoice.decide(call, \.recording, host: plan.target, store: store, context: context)
        return try handingOverPostQuantumOnly(
            plan, store: store, options: options, context: context, verbose: call[\.verbose],
            recorder: { record ? try recorderForOpenSSH(call, plan: plan, store: store, context: context) : nil }
        ) {
            try withConnection(plan, store: store, call: call, options: options, context: context) { connection in
                if call[\.verbose], let kex = connection.outcome.keyExchanges.last, !kex.isEmpty {
                    context.errorOutput(KeyExchangeWords.connected(kex, host: plan.target.name) + "\n")
                }
                // Started once the login is done: the recordings key's line follows the verified host key's.
                var shell = shell
                let recorder =
                    record
                    ? try SessionRecording.begin(
                        host: plan.target, size: TerminalSize.current(1) ?? TerminalSize(rows: 24, columns: 80),
                        recordInput: call[\.recording.recordInput], by: "connect", workspace: context.workspace,
                        store: store) : nil
                if let recorder {
                    shell.observer = recorder
                    context.errorOutput(
                        "sshelf: recording this session as \(Recordings.shortID(recorder.info.id)) "
                            + "('sshelf sessions list')\r\n")
                }
                let exit: RemoteExit
                do {
                    exit = try connection.runShell(shell)
                } catch {
                    recorder?.finish(how: "connection lost").map { context.warn($0) }
                    throw error
                }
                recorder?.finish(how: "\(exit.exitCode)").map { context.warn($0) }
                if exit == .disconnected {
                    context.errorOutput("\r\nConnection to \(Display.safe(plan.target.name)) closed.\r\n")
                }
                return exit.exitCode
            }
        }
    }

    static func exec(_ call: Call<ExecCommandOptions>, _ context: AppContext) throws -> Int32 {
        let command = call.arguments.dropFirst().joined(separator: " ")
        guard !command.isEmpty else {
            throw ShelfError(.usage, "exec: missing the remote command", hint: "sshelf exec NAME -- COMMAND ...")
        }
        let (plan, store) = try loginPlan(call, context)
        let options = connectOptions(call, context)
        // /dev/null as stdin can only say end-of-file: sent as -n says it, without a relay for it.
        let stdin = !call[\.noStdin] && !NullInput.isNull(0)
        if call[\.persistFor] != nil && !call[\.persist] {
            throw ShelfError(.usage, "--persist-for needs --persist")
        }
        // A command that ran through a warm session counts as a connection too (last connected).
        func warmRan(_ status: Int32) -> Int32 {
            if let error = BackgroundRecord(ConnectOutcome(), target: plan.target.id, store: store).wait() {
                context.warn("ran, but could not save to the store: \(error)")
            }
            return status
        }
        // --tty asks for a terminal, which a warm keeper's channels do not have: always a new login.
        let forceTTY = call[\.tty]
        if forceTTY && call[\.persist] {
            throw ShelfError(
                .usage, "exec: --tty (a terminal for the command) cannot go through a warm session (--persist)",
                hint: "leave out one of them")
        }
        // A host the loaded libssh2 cannot log in (an RSA key on 1.10, a security key) goes to OpenSSH's ssh, as
        // `connect` hands it over: no warm keeper could log it in either.
        if let why = OpenSSHHandover.loginNeeds(plan) {
            context.errorOutput(OpenSSHHandover.note(why) + "\n")
            if call[\.persist] { context.warn("no warm session for a host that goes through OpenSSH's ssh") }
            return try OpenSSHHandover.run(
                plan, store: store, dryRun: false, context: context,
                options: CertificateRenewal.sshOptions(plan, locations: context.locations) + (stdin ? [] : ["-n"])
                    + (forceTTY ? ["-tt"] : []), command: command)
        }
        if !forceTTY, let status = WarmClient.exec(command, stdin: stdin, plan: plan, context: context) {
            return warmRan(status)
        }
        if call[\.persist] {
            let idle = call[\.persistFor] ?? WarmCommands.defaultIdle
            let wait = options.connectTimeout * Double(plan.endpoints.count) + 20
            if let reason = WarmClient.start(plan: plan, idle: idle, timeout: wait, context: context) {
                context.warn("could not keep a warm session: \(reason)")
            } else if let status = WarmClient.exec(command, stdin: stdin, plan: plan, context: context) {
                return warmRan(status)
            }
        }
        // --tty, RequestTTY force (or yes, from a terminal): the command gets a PTY.
        let tty = plan.endpoints[plan.endpoints.count - 1].settings.requestTTY
        let terminal =
            forceTTY || tty == .force || (tty == .yes && isatty(0) == 1) ? context.environment["TERM"] ?? "xterm" : nil
        return try handingOverPostQuantumOnly(
            plan, store: store, options: options, context: context,
            sshOptions: (stdin ? [] : ["-n"]) + (forceTTY ? ["-tt"] : []), command: command
        ) {
            try withConnection(plan, store: store, call: call, options: options, context: context) { connection in
                let exit = try connection.exec(
                    command, input: stdin ? 0 : nil, terminal: terminal, passInterrupts: true,
                    stdout: { writeAll(1, $0) }, stderr: { writeAll(2, $0) })
                return exit.exitCode
            }
        }
    }

    static func trust(_ call: Call<TrustCommandOptions>, _ context: AppContext) throws -> Int32 {
        if call[\.ca] != nil || call[\.hosts] != nil || call[\.remove] {
            return try trustAuthority(call, context)
        }
        // NAME is optional for --ca's sake; `--id ID` stands for it here.
        guard let word = call.arguments.first ?? call[\.id].map(TargetWord.id) else {
            throw ShelfError(
                .usage, "trust: missing NAME",
                hint: "sshelf trust NAME to pin a host's key, or sshelf trust --ca KEY --hosts PATTERN to trust a CA")
        }
        let (plan, store) = try plan(for: word, context)
        let options = connectOptions(call, context)
        let prompts = TerminalPrompts(
            acceptNew: false, passwordFD: nil, remember: false, errorOutput: context.errorOutput)
        let connector = SSHConnector(
            options: options, credentials: try credentialSource(context, store: store, call: call), delegate: prompts)
        let key: HostKey
        if let why = PostQuantumWords.handover(plan) {
            // Never a classical key exchange for a host that requires post-quantum: OpenSSH's ssh reads the key.
            context.errorOutput("sshelf: note: \(why); reading its key through OpenSSH's ssh\n")
            key = try OpenSSHHostKeyFetch.fetch(
                plan,
                kex: try OpenSSHKex.required(for: plan.target.name, off: plan.postQuantumOff[plan.target.id] ?? ""),
                timeout: options.connectTimeout, workspace: context.workspace)
        } else {
            do {
                key = try connector.fetchHostKey(plan.endpoints)
            } catch {
                // The jump hosts on the way were verified: their pins are kept even though this one is not.
                try? ConnectPlan.record(connector.lastOutcome, target: nil, store: store)
                guard let why = OpenSSHHandover.postQuantumOnly(plan, after: error, timeout: options.connectTimeout),
                    !OpenSSHKex.postQuantum().isEmpty
                else { throw error }
                context.errorOutput("sshelf: note: \(why); reading its key through OpenSSH's ssh\n")
                key = try OpenSSHHostKeyFetch.fetch(
                    plan, kex: OpenSSHKex.postQuantum(), timeout: options.connectTimeout, workspace: context.workspace)
            }
        }
        let target = plan.target
        let name = Display.safe(target.name)
        if let wanted = call[\.fingerprint], wanted != key.fingerprint {
            throw ShelfError(
                .failure,
                "\(name) offered \(key.type) \(key.fingerprint), not \(Display.safe(wanted)); nothing was pinned",
                hint:
                    "check the fingerprint with the server's administrator (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub)"
            )
        }
        let verdict = options.trust.evaluate(
            key, host: target.hostname.isEmpty ? target.name : target.hostname,
            port: target.port, pinned: target.pinnedHostKey)
        switch verdict {
        case .trusted:
            break
        case .revoked(let source):
            throw ShelfError(
                .failure, "\(name)'s key \(key.fingerprint) is marked @revoked in \(source.rawValue); not pinned")
        case .changed(let known, let source) where !call[\.replace]:
            let old = known.map(\.fingerprint).joined(separator: ", ")
            throw ShelfError(
                .failure,
                "\(name) offers \(key.type) \(key.fingerprint), but \(source.rawValue) has "
                    + "\(old.isEmpty ? "another key" : old); nothing was pinned",
                hint: "if the server's key changed on purpose: sshelf trust \(name) --replace --fingerprint "
                    + "\(key.fingerprint)")
        case .otherType(let types, let source) where !call[\.replace]:
            throw ShelfError(
                .failure,
                "\(name) offers \(key.type) \(key.fingerprint), but \(source.rawValue) knows it as "
                    + "\(types.joined(separator: ", ")); nothing was pinned",
                hint: "if that is expected: sshelf trust \(name) --replace --fingerprint \(key.fingerprint)")
        case .unknown where call[\.fingerprint] == nil:
            guard
                prompts.decide(
                    HostKeyQuestion(
                        hopName: target.name, lookupName: plan.endpoints.last?.lookupName ?? name,
                        key: key, reason: .unknown)) != .refuse
            else {
                throw ShelfError(
                    .failure, "\(name) offers \(key.type) \(key.fingerprint); not pinned without confirmation",
                    hint: "check it out of band, then: sshelf trust \(name) --fingerprint \(key.fingerprint)")
            }
        case .changed, .otherType, .unknown:
            break
        }
        let hop = plan.endpoints[plan.endpoints.count - 1]
        try HostKeyOperations.pin(
            key, host: hop.hostname, port: hop.port, hostID: target.id,
            replacing: call[\.replace], trust: options.trust, store: store)
        context.print("pinned \(key.type) \(key.fingerprint) for \(name)")
        return 0
    }

    /// `trust --ca KEY --hosts PATTERN`: a CA pin in the store (synced); with --remove, the pins of KEY go.
    static func trustAuthority(_ call: Call<TrustCommandOptions>, _ context: AppContext) throws -> Int32 {
        let remove = call[\.remove]
        guard let given = call[\.ca], remove || call[\.hosts] != nil else {
            throw ShelfError(
                .usage, "trust --ca KEY needs --hosts PATTERN (and --hosts needs --ca)",
                hint: "e.g. sshelf trust --ca team_ca.pub --hosts '*.example.org'")
        }
        if !call.arguments.isEmpty {
            throw ShelfError(
                .usage, "trust --ca takes no host NAME: the CA is trusted for the names --hosts gives",
                hint: "e.g. sshelf trust --ca team_ca.pub --hosts '*.example.org'")
        }
        var line = given.trimmingSpacesAndNewlines()
        if IdentityKeys.blob(of: line) == nil, let data = try? RegularFile.read(given, limit: 64 * 1024) {
            line = String(decoding: data, as: UTF8.self).trimmingSpacesAndNewlines()
        }
        let fields = line.split(separator: " ")
        guard fields.count >= 2, let key = HostKey(type: String(fields[0]), base64: String(fields[1])),
            !key.type.hasSuffix(SSHCertificate.suffix)
        else {
            throw ShelfError(
                .invalid, "--ca: '\(Display.safe(given))' is neither a public key line nor a file holding one",
                hint: "give the CA's .pub file or its line (sshelf ca show NAME prints one)")
        }
        let store = try context.store()
        let patterns = call[\.hosts]
        if remove {
            let options = connectOptions(call, context)
            let removed = try CAPins.remove(key, patterns: patterns, store: store, trust: options.trust)
            guard removed > 0 else {
                throw ShelfError(
                    .notFound,
                    "the CA \(key.type) \(key.fingerprint) is not trusted"
                        + (patterns.map { " for \(Display.safe($0))" } ?? ""),
                    hint: "sshelf show HOST says which CA vouched for a host")
            }
            context.print(
                "no longer trusting the CA \(key.type) \(key.fingerprint)"
                    + (patterns.map { " for host certificates of \(Display.safe($0))" } ?? ""))
            return 0
        }
        let patternList = patterns ?? ""
        let change = try CAPins.add(key, patterns: patternList, store: store)
        context.print(
            "trusting the CA \(key.type) \(key.fingerprint) for host certificates of \(Display.safe(patternList)) "
                + (change == .added ? "(a CA pin: it syncs like host pins)" : "(pinned already)"))
        return 0
    }

    // MARK: shared

    /// The names of the other hosts whose pinned key is the key a hop offers (none when the store cannot be read: a
    /// note, not a reason to stop).
    static func pinnedElsewhere(_ question: HostKeyQuestion, plan: ConnectPlan, store: Store) -> [String] {
        let pinned = question.key.pinned
        let hop = plan.endpoints.first { $0.name == question.hopName }?.hostID
        return ((try? store.hosts()) ?? []).filter { $0.pinnedHostKey == pinned && $0.id != hop }.map(\.name)
    }

    /// The plan of a command that logs in: a certificate a CA in the vault keeps fresh for the hops' identities is
    /// renewed first (not for --dry-run), so sshelf's client and a hand-over to OpenSSH both offer the new one.
    /// `connect --window`, or the tmux window setting inside tmux: the session opens in a new tmux window (a new
    /// sshelf there, which makes its own login plan); nil when the session stays here.
    private static func openInTmuxWindow(_ call: Call<ConnectCommandOptions>, _ context: AppContext) throws -> Int32? {
        if call[\.window] && call[\.noWindow] {
            throw ShelfError(.usage, "connect: --window and --no-window do not go together", hint: "leave out one")
        }
        let inTmux = TmuxWindows(environment: context.environment)
        let maybe = call[\.window] || (inTmux != nil && !call[\.noWindow] && !call[\.dryRun])
        guard maybe else { return nil }
        let (plan, store) = try plan(for: call.arguments[0], context)
        let windowSetting = inTmux == nil ? nil : try store.setting(TmuxWindows.windowSetting)
        guard call[\.window] || windowSetting == "on" else { return nil }
        guard let inTmux else { throw TmuxWindows.notInside }
        let window = try inTmux.open([(plan.target.name, plan.target.id)], sshelf: SelfProcess.path)
        context.print("opened \(Display.safe(plan.target.name)) in tmux window \(window)")
        return 0
    }

    static func loginPlan(_ call: Call<some LoginOptions>, _ context: AppContext, dryRun: Bool = false) throws
        -> (ConnectPlan, Store)
    {
        var (plan, store) = try plan(for: call.arguments[0], context)
        guard !dryRun else { return (plan, store) }
        let vaultInput = SecretInput(call, \.passphraseFD)
        try CertificateRenewal.prepare(
            &plan, by: call.command.path.first ?? call.command.name, now: CACommands.now(context),
            workspace: context.workspace, store: store,
            vaultPassphrase: { try vaultInput.readVaultPassphrase(prompt: "Vault passphrase: ") },
            note: { context.errorOutput("sshelf: note: \($0)\n") })
        return (plan, store)
    }

    static func plan(for name: String, _ context: AppContext) throws -> (ConnectPlan, Store) {
        let store = try context.store()
        return (try ConnectPlan.make(named: name, in: store), store)
    }

    /// The connect options with `--timeout` (parsed: more than 0, at most 600 seconds).
    static func connectOptions(_ call: Call<some LoginOptions>, _ context: AppContext) -> ConnectOptions {
        connectOptions(timeout: call[\.timeout], context)
    }

    static func connectOptions(timeout: Double?, _ context: AppContext) -> ConnectOptions {
        .standard(context.workspace, connectTimeout: timeout)
    }

    /// Connects, records what changed, and runs `body`; a connection error leaves as such (exit 255). `prompts` may
    /// wrap the terminal prompts (a forward with several sessions keeps the first login's answers).
    static func withConnection(
        _ plan: ConnectPlan, store: Store, call: Call<some PromptingLoginOptions>, options: ConnectOptions,
        context: AppContext, prompts wrap: (ConnectDelegate) -> ConnectDelegate = { $0 },
        body: (SSHConnection) throws -> Int32
    ) throws -> Int32 {
        let prompts = TerminalPrompts(
            acceptNew: call[\.login.acceptNew], passwordFD: call[\.login.passwordFD],
            remember: call[\.login.remember] ? true : nil, errorOutput: context.errorOutput,
            otherNames: { question in pinnedElsewhere(question, plan: plan, store: store) })
        let connector = SSHConnector(
            options: options, credentials: try credentialSource(context, store: store, call: call),
            delegate: wrap(prompts))
        let connection = try plan.connect(connector, store: store)
        defer { connection.close() }
        let record = BackgroundRecord(connection.outcome, target: plan.target.id, store: store)
        defer {
            if let error = record.wait() {
                context.warn("connected, but could not save to the store: \(ShelfError(from: error).message)")
            }
        }
        return try body(connection)
    }

    /// Runs `body`; when its handshake fails because the host offers only post-quantum key exchange (which libssh2
    /// has none of), the session goes to OpenSSH's ssh instead, with one line saying why.
    /// Starts the recording of a session that goes to OpenSSH, saying so.
    static func recorderForOpenSSH(
        _ call: Call<ConnectCommandOptions>, plan: ConnectPlan, store: Store, context: AppContext
    ) throws -> SessionRecorder {
        let recorder = try SessionRecording.begin(
            host: plan.target, size: TerminalSize.current(1) ?? TerminalSize(rows: 24, columns: 80),
            recordInput: call[\.recording.recordInput], by: "openssh", workspace: context.workspace, store: store)
        context.errorOutput(
            "sshelf: recording this session as \(Recordings.shortID(recorder.info.id)) ('sshelf sessions list')\n")
        return recorder
    }

    static func handingOverPostQuantumOnly(
        _ plan: ConnectPlan, store: Store, options: ConnectOptions, context: AppContext, sshOptions: [String] = [],
        command: String? = nil, verbose: Bool = false, recorder: () throws -> SessionRecorder? = { nil },
        body: () throws -> Int32
    ) throws -> Int32 {
        do {
            return try body()
        } catch let error as SSHError {
            guard let why = OpenSSHHandover.postQuantumOnly(plan, after: error, timeout: options.connectTimeout) else {
                throw error
            }
            context.errorOutput(OpenSSHHandover.note(why) + "\n")
            return try OpenSSHHandover.run(
                plan, store: store, dryRun: false, context: context, options: sshOptions, command: command,
                recorder: try recorder(), verbose: verbose)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) { StandardStreams.write(bytes, fd: fd) }
}

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
    static let connectOptions: [OptionSpec] = [
        .flag("accept-new", "accept and pin the host key of a host never seen before (never a changed key)"),
        .value("password-fd", "N", "read the password from file descriptor N (for scripts; never argv or env)"),
        .flag(
            "remember",
            "keep a password (typed or on --password-fd) or a key file's passphrase in the vault "
                + "once it has logged in"),
        .value("timeout", "SECONDS", "connect timeout per address (default 10)"),
        passphraseOption,
    ]

    static let passphraseOption = OptionSpec.value(
        "passphrase-fd", "N",
        "read the vault passphrase from descriptor N when a credential the login needs is locked (for "
            + "scripts; never argv or env)")

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
            options: connectOptions + [
                .flag("dry-run", "print the plan (hops, host keys, credential sources) and stop"),
                .flag(
                    "openssh",
                    "hand the session to OpenSSH's ssh through the ssh_config bridge, with the sshelf agent (for "
                        + "options sshelf's own client cannot do: ForwardAgent, X11, ControlMaster…)"),
                .flag(
                    "verbose", short: "v",
                    "say which key exchange the session used, and the note about options sshelf's client does not "
                        + "apply every time (not only the first)"),
                .flag("window", "inside tmux: open the session in a new tmux window (see sshelf tmux window)"),
                .flag("no-window", "connect in this terminal even when 'sshelf tmux window' is on"),
            ] + RecordChoice.options,
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
            options: connectOptions + [
                .flag("no-stdin", short: "n", "do not forward standard input"),
                .flag(
                    "tty", short: "t",
                    "give the command a terminal (PTY), as ssh -tt: for sudo's password prompt, top, an editor (a new "
                        + "login, not a warm session)"),
                .flag(
                    "persist", "keep the session warm in the background for later exec calls (logs in without asking)"),
                .value(
                    "persist-for", "SECONDS",
                    "with --persist: end the warm session after this long idle (default "
                        + "600)"),
            ],
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
            options: [
                .flag("replace", "replace a pinned or known key that differs (after a deliberate server change)"),
                .value("fingerprint", "SHA256:...", "only pin if the offered key has this fingerprint"),
                .value("timeout", "SECONDS", "connect timeout per address (default 10)"),
                .value("ca", "KEY", completion: .file, "trust this CA key (a public key line or .pub file) instead"),
                .value("hosts", "PATTERN", "with --ca: the host names it is trusted for (e.g. '*.example.org')"),
                .flag("remove", "with --ca: stop trusting that CA (for --hosts PATTERN only, when given)"),
                passphraseOption, CommandSpec.hostIDOption,
            ],
            examples: [
                "sshelf trust prod-db --fingerprint SHA256:abc...", "sshelf trust prod-db --replace",
                "sshelf trust --ca ~/team_ca.pub --hosts '*.example.org'", "sshelf trust --ca ~/team_ca.pub --remove",
            ],
            run: trust),
    ]

    /// The credential source the flow asks after host-key verification: the vault, asking for its passphrase when
    /// an item is locked — read once from --passphrase-fd N, or typed on the terminal (up to three tries). The
    /// release log names the command (connect, exec, forward, copy-id).
    static func credentialSource(_ context: AppContext, store: Store, call: Invocation) throws -> CredentialSource {
        let input = try SecretInput(call, option: "passphrase-fd")
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

    static func connect(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        if let opened = try openInTmuxWindow(call, context) { return opened }
        let (plan, store) = try loginPlan(call, context)
        let certificate = CertificateRenewal.sshOptions(plan, locations: context.locations)
        let dryRun = call.flag("dry-run")
        // A session handed to OpenSSH is recorded too: ssh then runs on a terminal sshelf holds (OpenSSHRelay).
        func handOver() throws -> Int32 {
            let record = try !dryRun && RecordChoice.decide(call, host: plan.target, store: store, context: context)
            let recorder = try record ? recorderForOpenSSH(call, plan: plan, store: store, context: context) : nil
            return try OpenSSHHandover.run(
                plan, store: store, dryRun: dryRun, context: context, options: certificate, recorder: recorder,
                passphrase: try AgentPassphrase.option(call))
        }
        if call.flag("openssh") { return try handOver() }
        if let why = OpenSSHHandover.needed(plan) {
            context.errorOutput(OpenSSHHandover.note(why) + "\n")
            return try handOver()
        }
        let options = try connectOptions(call, context)
        if call.flag("dry-run") {
            context.print(
                plan.describe(trust: options.trust, agentSocket: options.agentSocket, environment: options.environment))
            return 0
        }
        OptionNotes.say(plan, store: store, always: call.flag("verbose"), context: context)
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
        let record = try RecordChoice.decide(call, host: plan.target, store: store, context: context)
        return try handingOverPostQuantumOnly(
            plan, store: store, options: options, context: context, passphrase: try AgentPassphrase.option(call),
            recorder: { record ? try recorderForOpenSSH(call, plan: plan, store: store, context: context) : nil }
        ) {
            try withConnection(plan, store: store, call: call, options: options, context: context) { connection in
                if call.flag("verbose"), let kex = connection.outcome.keyExchanges.last, !kex.isEmpty {
                    context.errorOutput(KeyExchangeWords.connected(kex, host: plan.target.name) + "\n")
                }
                // Started once the login is done: the recordings key's line follows the verified host key's.
                var shell = shell
                let recorder =
                    record
                    ? try SessionRecording.begin(
                        host: plan.target, size: TerminalSize.current(1) ?? TerminalSize(rows: 24, columns: 80),
                        recordInput: call.flag("record-input"), by: "connect", workspace: context.workspace,
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

    static func exec(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let command = call.arguments.dropFirst().joined(separator: " ")
        guard !command.isEmpty else {
            throw ShelfError(.usage, "exec: missing the remote command", hint: "sshelf exec NAME -- COMMAND ...")
        }
        let (plan, store) = try loginPlan(call, context)
        let options = try connectOptions(call, context)
        // /dev/null as stdin can only say end-of-file: sent as -n says it, without a relay for it.
        let stdin = !call.flag("no-stdin") && !NullInput.isNull(0)
        if call.value("persist-for") != nil && !call.flag("persist") {
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
        let forceTTY = call.flag("tty")
        if forceTTY && call.flag("persist") {
            throw ShelfError(
                .usage, "exec: --tty (a terminal for the command) cannot go through a warm session (--persist)",
                hint: "leave out one of them")
        }
        // A host the loaded libssh2 cannot log in (an RSA key on 1.10, a security key) goes to OpenSSH's ssh, as
        // `connect` hands it over: no warm keeper could log it in either.
        if let why = OpenSSHHandover.loginNeeds(plan) {
            context.errorOutput(OpenSSHHandover.note(why) + "\n")
            if call.flag("persist") { context.warn("no warm session for a host that goes through OpenSSH's ssh") }
            return try OpenSSHHandover.run(
                plan, store: store, dryRun: false, context: context,
                options: CertificateRenewal.sshOptions(plan, locations: context.locations) + (stdin ? [] : ["-n"])
                    + (forceTTY ? ["-tt"] : []), command: command, passphrase: try AgentPassphrase.option(call))
        }
        if !forceTTY, let status = WarmClient.exec(command, stdin: stdin, plan: plan, context: context) {
            return warmRan(status)
        }
        if call.flag("persist") {
            let idle = try WarmCommands.idleSeconds(call.value("persist-for"), option: "--persist-for")
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
            sshOptions: (stdin ? [] : ["-n"]) + (forceTTY ? ["-tt"] : []), command: command,
            passphrase: try AgentPassphrase.option(call)
        ) {
            try withConnection(plan, store: store, call: call, options: options, context: context) { connection in
                let exit = try connection.exec(
                    command, input: stdin ? 0 : nil, terminal: terminal, passInterrupts: true,
                    stdout: { writeAll(1, $0) }, stderr: { writeAll(2, $0) })
                return exit.exitCode
            }
        }
    }

    static func trust(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        if call.value("ca") != nil || call.value("hosts") != nil || call.flag("remove") {
            return try trustAuthority(call, context)
        }
        // NAME is optional for --ca's sake; `--id ID` stands for it here.
        guard let word = call.arguments.first ?? call.value("id").map(TargetWord.id) else {
            throw ShelfError(
                .usage, "trust: missing NAME",
                hint: "sshelf trust NAME to pin a host's key, or sshelf trust --ca KEY --hosts PATTERN to trust a CA")
        }
        let (plan, store) = try plan(for: word, context)
        let options = try connectOptions(call, context)
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
        if let wanted = call.value("fingerprint"), wanted != key.fingerprint {
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
        case .changed(let known, let source) where !call.flag("replace"):
            let old = known.map(\.fingerprint).joined(separator: ", ")
            throw ShelfError(
                .failure,
                "\(name) offers \(key.type) \(key.fingerprint), but \(source.rawValue) has "
                    + "\(old.isEmpty ? "another key" : old); nothing was pinned",
                hint: "if the server's key changed on purpose: sshelf trust \(name) --replace --fingerprint "
                    + "\(key.fingerprint)")
        case .otherType(let types, let source) where !call.flag("replace"):
            throw ShelfError(
                .failure,
                "\(name) offers \(key.type) \(key.fingerprint), but \(source.rawValue) knows it as "
                    + "\(types.joined(separator: ", ")); nothing was pinned",
                hint: "if that is expected: sshelf trust \(name) --replace --fingerprint \(key.fingerprint)")
        case .unknown where call.value("fingerprint") == nil:
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
            replacing: call.flag("replace"), trust: options.trust, store: store)
        context.print("pinned \(key.type) \(key.fingerprint) for \(name)")
        return 0
    }

    /// `trust --ca KEY --hosts PATTERN`: a CA pin in the store (synced); with --remove, the pins of KEY go.
    static func trustAuthority(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let remove = call.flag("remove")
        guard let given = call.value("ca"), remove || call.value("hosts") != nil else {
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
        let patterns = call.value("hosts")
        if remove {
            let options = try connectOptions(call, context)
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
    private static func openInTmuxWindow(_ call: Invocation, _ context: AppContext) throws -> Int32? {
        if call.flag("window") && call.flag("no-window") {
            throw ShelfError(.usage, "connect: --window and --no-window do not go together", hint: "leave out one")
        }
        let inTmux = TmuxWindows(environment: context.environment)
        let maybe = call.flag("window") || (inTmux != nil && !call.flag("no-window") && !call.flag("dry-run"))
        guard maybe else { return nil }
        let (plan, store) = try plan(for: call.arguments[0], context)
        let windowSetting = inTmux == nil ? nil : try store.setting(TmuxWindows.windowSetting)
        guard call.flag("window") || windowSetting == "on" else { return nil }
        guard let inTmux else { throw TmuxWindows.notInside }
        let window = try inTmux.open([(plan.target.name, plan.target.id)], sshelf: SelfProcess.path)
        context.print("opened \(Display.safe(plan.target.name)) in tmux window \(window)")
        return 0
    }

    static func loginPlan(_ call: Invocation, _ context: AppContext) throws -> (ConnectPlan, Store) {
        var (plan, store) = try plan(for: call.arguments[0], context)
        guard !call.flag("dry-run") else { return (plan, store) }
        let vaultInput = try SecretInput(call, option: "passphrase-fd")
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

    static func connectOptions(_ call: Invocation, _ context: AppContext) throws -> ConnectOptions {
        var timeout: Double? = nil
        if let text = call.value("timeout") {
            guard let value = Double(text), value > 0, value <= 600 else {
                throw ShelfError(.invalid, "--timeout: '\(Display.safe(text))' is not a number of seconds (0-600)")
            }
            timeout = value
        }
        return .standard(context.workspace, connectTimeout: timeout)
    }

    private static func passwordFD(_ call: Invocation) throws -> Int32? {
        guard let text = call.value("password-fd") else { return nil }
        guard let fd = Int32(text), fd >= 0, fcntl(fd, F_GETFD) != -1 else {
            throw ShelfError(.invalid, "--password-fd: '\(Display.safe(text))' is not an open file descriptor")
        }
        return fd
    }

    /// Connects, records what changed, and runs `body`; a connection error leaves as such (exit 255). `prompts` may
    /// wrap the terminal prompts (a forward with several sessions keeps the first login's answers).
    static func withConnection(
        _ plan: ConnectPlan, store: Store, call: Invocation, options: ConnectOptions,
        context: AppContext, prompts wrap: (ConnectDelegate) -> ConnectDelegate = { $0 },
        body: (SSHConnection) throws -> Int32
    ) throws -> Int32 {
        let prompts = TerminalPrompts(
            acceptNew: call.flag("accept-new"), passwordFD: try passwordFD(call),
            remember: call.flag("remember") ? true : nil, errorOutput: context.errorOutput,
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
    static func recorderForOpenSSH(_ call: Invocation, plan: ConnectPlan, store: Store, context: AppContext) throws
        -> SessionRecorder
    {
        let recorder = try SessionRecording.begin(
            host: plan.target, size: TerminalSize.current(1) ?? TerminalSize(rows: 24, columns: 80),
            recordInput: call.flag("record-input"), by: "openssh", workspace: context.workspace, store: store)
        context.errorOutput(
            "sshelf: recording this session as \(Recordings.shortID(recorder.info.id)) ('sshelf sessions list')\n")
        return recorder
    }

    static func handingOverPostQuantumOnly(
        _ plan: ConnectPlan, store: Store, options: ConnectOptions, context: AppContext, sshOptions: [String] = [],
        command: String? = nil, passphrase: AgentPassphrase? = nil, recorder: () throws -> SessionRecorder? = { nil },
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
                recorder: try recorder(), passphrase: passphrase)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) { StandardStreams.write(bytes, fd: fd) }
}

// OpenSSHHandover: `sshelf connect NAME --openssh` — for what libssh2 1.10 cannot do (ForwardAgent, X11, a
// ControlMaster…), the session goes to OpenSSH's own ssh: the bridge is brought up to date, the sshelf agent is
// started when a hop's key is in the vault, and ssh runs as a child on the user's terminal (OpenSSHChild: its exit
// status is sshelf's, job control works), reading the host through the bridge — with the user's ~/.ssh/config when
// that includes the bridge — and with the sshelf agent as SSH_AUTH_SOCK, so a forwarded agent is the vault's.
// `connect` also hands over by itself, saying why, when the loaded libssh2 cannot log a hop in (an RSA key, or a user
// certificate, on libssh2 1.10; a FIDO security key; a hop that requires post-quantum key exchange, `--pq require`,
// with KexAlgorithms limited to those: `kexArguments`), and when the host asks for ForwardAgent, and after a failed
// handshake with a server that offers only post-quantum key exchange (`postQuantumOnly`); Enter in the TUI hands
// over on the same decision (`needed`), running ssh between leaving curses and coming back (`prepare`). `exec` hands
// over for the login reasons alone (`loginNeeds`), with the command; `run` through OpenSSHFleet. After a session
// handed over, what ssh used is recorded as the host's last session (`session`, shared by connect, exec and the TUI).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore

public enum OpenSSHHandover {
    static let sshPath = "/usr/bin/ssh"

    /// Why sshelf's own client cannot do what `plan`'s hosts ask with the libssh2 it loaded and OpenSSH can (nil when
    /// it can, or when OpenSSH's ssh is not installed): a hop logs in with an RSA key and the library signs only
    /// ssh-rsa, or with a FIDO security key, or names a user certificate the library cannot use, or the host asks for
    /// ForwardAgent.
    public static func needed(_ plan: ConnectPlan) -> String? {
        loginNeeds(plan) ?? forwardAgent(plan)
    }

    /// Why sshelf's own client cannot log `plan`'s hosts in with the libssh2 it loaded and OpenSSH's ssh can (a hop
    /// that requires post-quantum key exchange, an RSA key on a library that signs only ssh-rsa, a FIDO security key, a
    /// user certificate it cannot use): what `exec`,
    /// `run` and `cp` hand over for (nil when it can, or when ssh is not installed). ForwardAgent is `connect`'s
    /// alone: a command or a copy forwards no agent.
    public static func loginNeeds(_ plan: ConnectPlan) -> String? {
        guard access(sshPath, X_OK) == 0 else { return nil }
        if let why = PostQuantumWords.handover(plan) { return why }
        if let why = securityKey(plan) { return why }
        for hop in plan.endpoints where !LibSSH2.features.rsaSHA2 {
            guard let identity = hop.identity, identity.keyType == .rsa,
                identity.privateKeyRef != nil || !identity.keyFile.isEmpty
            else { continue }
            switch hop.authMethod {
            case .password, .keyboardInteractive: continue
            default: break
            }
            return "\(Display.safe(hop.name)) logs in with the RSA key of identity '\(Display.safe(identity.name))', "
                + "which libssh2 \(LibSSH2.version) can only sign with ssh-rsa (SHA-1, refused by "
                + "OpenSSH 8.8 and later)"
        }
        if !LibSSH2.features.userCertificates,
            let hop = plan.endpoints.first(where: { !$0.settings.certificateFiles.isEmpty })
        {
            return "\(Display.safe(hop.name)) sets CertificateFile, which sshelf's own client cannot use with libssh2 "
                + "\(LibSSH2.version) (it names the signature after the certificate, which servers refuse)"
        }
        return nil
    }

    /// Why a host whose handshake failed goes to OpenSSH: the first hop (the host itself, or the outermost jump host)
    /// offers only post-quantum key exchanges, which libssh2 has none of (nil for any other failure, a first hop with
    /// a ProxyCommand — only a hop reached directly is asked — or when OpenSSH's ssh is not installed). The server's
    /// offer is read from its first packet (`KexProbe`). A later hop is reached through the one before it, which the
    /// probe does not do: `--pq require` on it sends it to OpenSSH.
    public static func postQuantumOnly(_ plan: ConnectPlan, after error: SSHError, timeout: Double) -> String? {
        guard error.kind == .handshakeFailed else { return nil }
        return postQuantumOnly(plan, offer: error.postQuantumOnly, timeout: timeout)
    }

    /// The same for a handshake known to have failed, with what a hop behind a jump host offered when the failure
    /// kept it (a fleet host's result, `FleetHostResult.postQuantumOffer`); else the first hop is probed.
    public static func postQuantumOnly(_ plan: ConnectPlan, offer: PostQuantumOffer?, timeout: Double) -> String? {
        guard let offer else { return postQuantumOnly(plan, timeout: timeout) }
        guard access(sshPath, X_OK) == 0 else { return nil }
        return words(hop: offer.hopName, offered: offer.offered)
    }

    /// The reason for a hop whose server offers only the post-quantum key exchanges `offered`.
    static func words(hop: String, offered: [String]) -> String {
        "\(Display.safe(hop)) offers only post-quantum key exchange ("
            + offered.map(Display.safe).joined(separator: ", ")
            + "), which sshelf's own client (libssh2 \(LibSSH2.version)) does not have"
    }

    /// The same, for a handshake already known to have failed (a fleet host's result says so).
    public static func postQuantumOnly(_ plan: ConnectPlan, timeout: Double) -> String? {
        guard access(sshPath, X_OK) == 0, let hop = plan.endpoints.first, hop.settings.proxyCommand == nil,
            let offered = KexProbe.offered(
                host: hop.hostname.isEmpty ? hop.name : hop.hostname, port: hop.port, timeout: timeout),
            let offer = PostQuantumOffer.only(offered, hop: hop.name)
        else { return nil }
        return words(hop: offer.hopName, offered: offer.offered)
    }

    /// The line that says a session goes to OpenSSH, and why (`connect` and the TUI say the same).
    public static func note(_ why: String) -> String {
        "sshelf: note: \(why); handing the session to OpenSSH's ssh with the sshelf agent"
    }

    /// A hop that logs in with a FIDO security key (an `sk-` public key): sshelf's own client does not use them on
    /// either library (1.11's libssh2_userauth_publickey_sk needs the token's callback, which sshelf does not
    /// implement); OpenSSH's ssh asks for the touch.
    private static func securityKey(_ plan: ConnectPlan) -> String? {
        for hop in plan.endpoints {
            guard let identity = hop.identity, identity.publicKey.hasPrefix("sk-") else { continue }
            switch hop.authMethod {
            case .password, .keyboardInteractive: continue
            default: break
            }
            return "\(Display.safe(hop.name)) logs in with the FIDO security key of identity "
                + "'\(Display.safe(identity.name))', which sshelf's own client does not use"
        }
        return nil
    }

    /// Why a host that asks for ForwardAgent goes to OpenSSH. libssh2 1.10 refuses the auth-agent@openssh.com
    /// channels the server opens; 1.11 accepts them, but exposes neither the session identifier nor the server's
    /// signature over it, so the forwarded agent could not be bound to the host (session-bind@openssh.com) and the
    /// agent could not check a host-bound key's hops — OpenSSH's ssh binds it.
    static func forwardAgent(_ plan: ConnectPlan) -> String? {
        guard let target = plan.endpoints.last,
            target.settings.unsupported.contains(where: { $0.lowercased() == "forwardagent" })
        else { return nil }
        let why =
            LibSSH2.isAtLeast(1, 11)
            ? "which sshelf's own client does not do (libssh2 \(LibSSH2.version) cannot tell the agent which server "
                + "it is forwarded to)"
            : "which sshelf's own client cannot do with libssh2 \(LibSSH2.version) (it refuses the agent "
                + "channels the server opens)"
        return "\(Display.safe(target.name)) sets ForwardAgent, \(why)"
    }

    /// Runs ssh for `plan` as a child on this terminal (OpenSSHChild): a login, or with `command` that command
    /// (`exec`), with `options` (`-n`, `-tt`) before the host's name; its exit status is the answer, and the
    /// session is recorded as the host's last with the key exchange ssh used (`session`). A recorded login runs ssh
    /// on a terminal this process holds instead, relaying (OpenSSHRelay), and ends the recording when ssh ends (its
    /// key exchange recorded the same way).
    public static func run(
        _ plan: ConnectPlan, store: Store, dryRun: Bool, context: AppContext, options: [String] = [],
        command: String? = nil, recorder: SessionRecorder? = nil, verbose: Bool = false
    ) throws -> Int32 {
        var (argv, environment) = try prepare(plan, store: store, dryRun: dryRun, context: context)
        let name = argv.removeLast()
        argv += options + (command.map { ["--", name, $0] } ?? [name])
        if dryRun {
            context.print(
                "SSH_AUTH_SOCK=\(environment["SSH_AUTH_SOCK"].map(ShellWord.quote) ?? "(unset)") "
                    + argv.map(ShellWord.quote).joined(separator: " "))
            return 0
        }
        if let recorder {
            let status: Int32
            do {
                status = try logged(argv, plan: plan, store: store, context: context, verbose: verbose) {
                    try OpenSSHRelay.run($0, environment: environment, observer: recorder)
                }
            } catch {
                recorder.finish(how: "ssh did not start").map { context.warn($0) }
                throw error
            }
            recorder.finish(how: "\(status)").map { context.warn($0) }
            return status
        }
        return try session(argv, environment: environment, plan: plan, store: store, context: context, verbose: verbose)
    }

    /// Runs `argv` (ssh for `plan`'s target, as `prepare` made it) as a child on this terminal and descriptors
    /// (OpenSSHChild), with ssh's log written to a private file (OpenSSHSessionLog) whose ssh's own words go to
    /// standard error as ssh writes them (OpenSSHLogEcho); after it, a session that logged in is recorded as the
    /// host's last (the time, and the key exchange ssh negotiated: `show`, the TUI's details, `check`) as a session
    /// of sshelf's own client is. `connect` and `exec` handed over, and the TUI's Enter, all run here. A failure to
    /// record is a warning.
    public static func session(
        _ argv: [String], environment: [String: String], plan: ConnectPlan, store: Store, context: AppContext,
        verbose: Bool = false
    ) throws -> Int32 {
        try logged(argv, plan: plan, store: store, context: context, verbose: verbose) {
            try OpenSSHChild.run($0, environment: environment)
        }
    }

    /// Runs `argv` with ssh's log options added through `run` (a child on this terminal, or on one held for a
    /// recording), then says ssh's words and records the session (`session`). `verbose` (`connect -v`): the key
    /// exchange is said as soon as ssh logs it.
    static func logged(
        _ argv: [String], plan: ConnectPlan, store: Store, context: AppContext, verbose: Bool = false,
        run: ([String]) throws -> Int32
    ) throws -> Int32 {
        var argv = argv
        let log: OpenSSHSessionLog?
        do {
            log = try OpenSSHSessionLog(context.locations)
        } catch {
            context.warn("the session will not be recorded as the host's last: \(ShelfError(from: error).message)")
            log = nil
        }
        defer { log?.remove() }
        if let log { argv.insert(contentsOf: log.arguments, at: 1) }
        // ssh's own words reach standard error as it writes them (or, when the file cannot be followed, at the end).
        // `connect -v`: the key exchange said as soon as ssh logs it ("\r\n": ssh may have the terminal raw by now).
        let name = Display.safe(plan.target.name)
        let sayKeyExchange: ((String) -> Void)? =
            verbose
            ? { kex in
                let line = "sshelf: key exchange with \(name): \(KeyExchange.describe(kex)), OpenSSH's ssh\r\n"
                Array(line.utf8).withUnsafeBytes { StandardStreams.write($0, fd: 2) }
            } : nil
        let echo = log.flatMap { OpenSSHLogEcho(path: $0.path, keyExchange: sayKeyExchange) }
        let status: Int32
        do {
            status = try run(argv)
        } catch {
            echo?.finish()
            throw error
        }
        echo?.finish()
        guard let log else { return status }
        let read = log.read()
        if echo == nil { read.said.withUnsafeBytes { StandardStreams.write($0, fd: 2) } }
        if read.loggedIn {
            var outcome = ConnectOutcome()
            outcome.keyExchanges = read.keyExchange.map { [$0] } ?? []
            do {
                try ConnectPlan.record(outcome, target: plan.target.id, store: store)
            } catch {
                context.warn("the session ran, but could not save to the store: \(ShelfError(from: error).message)")
            }
        }
        return status
    }

    /// What ssh runs with for `plan`'s target: the bridge brought up to date (its host, its pinned keys), the
    /// sshelf agent started when a hop's key is in the vault (with `dryRun` only said), SSH_AUTH_SOCK set to it.
    public static func prepare(_ plan: ConnectPlan, store: Store, dryRun: Bool, context: AppContext) throws
        -> (argv: [String], environment: [String: String])
    {
        let target = plan.target
        guard access(sshPath, X_OK) == 0 else {
            throw ShelfError(
                .failure, "OpenSSH's ssh is not installed (\(sshPath))",
                hint: "install openssh-client, or connect without --openssh")
        }
        let bridge = SSHConfigBridge(workspace: context.workspace)
        try bridge.write(from: store)
        let input = try store.hosts()
        guard SSHConfigEmitter.writtenNames(input)[target.id] == target.name else {
            throw ShelfError(
                .invalid,
                "'\(Display.safe(target.name))' cannot be written to the ssh_config bridge (a name ssh reads as a "
                    + "pattern, or shared with another host)",
                hint: "rename it (sshelf edit \(ShellWord.quote(Display.safe(target.name))) --rename NEWNAME), "
                    + "then try again")
        }
        let environment = try agentEnvironment(plan, store: store, dryRun: dryRun, context: context)
        return (
            [sshPath] + configArguments(context, bridge: bridge.path) + (try kexArguments(plan)) + [target.name],
            environment
        )
    }

    /// `-o KexAlgorithms=…` limited to the post-quantum ones ssh has, when the target requires one (the bridge gives
    /// each such hop the same line; on the command line it also wins over a line of the user's own config). Throws
    /// when ssh has none: never a classical key exchange in its place.
    public static func kexArguments(_ plan: ConnectPlan) throws -> [String] {
        guard let off = plan.postQuantumOff[plan.target.id] else { return [] }
        let names = try OpenSSHKex.required(for: plan.target.name, off: off)
        return ["-o", "KexAlgorithms=" + names.joined(separator: ",")]
    }

    /// The environment ssh runs with: the sshelf agent as SSH_AUTH_SOCK when a hop's key is in the vault (the agent
    /// started when it is not running) or when the agent runs anyway.
    static func agentEnvironment(
        _ plan: ConnectPlan, store: Store, dryRun: Bool, context: AppContext, said: ((String) -> Void)? = nil
    ) throws -> [String: String] {
        var environment = context.environment
        let vaultKeys = Set(try store.identities().filter { $0.privateKeyRef != nil }.map(\.id))
        if plan.hosts.contains(where: { $0.identityID.map(vaultKeys.contains) == true })
            || AgentClient.status(context.locations) != nil
        {
            if AgentClient.status(context.locations) == nil {
                if dryRun {
                    context.print("would start the sshelf agent (sshelf agent start)")
                } else {
                    let (pid, log) = try AgentStart.inBackground(context)
                    let line = "started the sshelf agent (pid \(pid)) for ssh; its log is \(log)"
                    if let said { said(line) } else { context.errorOutput("sshelf: \(line)\n") }
                }
            }
            environment["SSH_AUTH_SOCK"] = context.locations.agentSocket
        }
        return environment
    }

    /// Which config ssh reads: the user's own when it includes the bridge (named with -F when HOME is not the
    /// home ssh itself would use), else the bridge alone.
    static func configArguments(_ context: AppContext, bridge: String) -> [String] {
        let include = SSHConfigInclude(home: context.homeDirectory, bridgePath: bridge)
        guard include.isInstalled else { return ["-F", bridge] }
        let ownHome = getpwuid(geteuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } }
        return ownHome == context.homeDirectory ? [] : ["-F", include.configPath]
    }
}

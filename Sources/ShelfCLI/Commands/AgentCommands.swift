// AgentCommands: `sshelf agent` (an ssh-agent serving the vault's identities, in the foreground), `agent start`,
// `stop` and `status` for a background one, and `--print-env` for shells.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem
import ShelfVault

#if canImport(Glibc)
import Glibc
#endif

enum AgentCommands {
    static let confirmTimeout = Option(
        "confirm-timeout", .seconds(1...3600),
        "refuse a signature nobody confirmed within this long (default \(AgentConfirmation.defaultTimeout))")
    static let printEnv = Flag("print-env", "print SSH_AUTH_SOCK=…; export SSH_AUTH_SOCK; for eval in a shell")

    struct ForegroundOptions: CommandOptions {
        let printEnv = AgentCommands.printEnv
        let confirmTimeout = AgentCommands.confirmTimeout
        let readyFD = Option(
            "ready-fd", .descriptor, "write 'ready' (or why it could not start) to descriptor N, then close it")
    }

    struct StartOptions: CommandOptions {
        let printEnv = AgentCommands.printEnv
        let confirmTimeout = AgentCommands.confirmTimeout
        let unlock = Flag(
            "unlock",
            "unlock the vault session now (passphrase asked here, or --passphrase-fd), so every key is served")
        let passphraseFD = VaultCommands.passphraseFD
    }

    static let commands: [CommandSpec] = [
        CommandSpec(
            path: ["agent"], summary: "run an ssh-agent that serves the identities in the vault (foreground)",
            details: """
                OpenSSH's ssh, scp, git and ssh-add use it through SSH_AUTH_SOCK. It lists every identity whose \
                private key is in the vault (ed25519, ECDSA, RSA with rsa-sha2-256/512) and signs with it; the key \
                is read from the vault for each signature and never written anywhere else. `ssh-add KEY` stores a \
                new key in the vault as an identity; `ssh-add -d` only stops serving it ('sshelf identity rm' \
                deletes it). Keys marked --confirm ask on this terminal; a locked vault asks for its passphrase \
                here. Every signature is written to the release log ('sshelf log'). Stops on Ctrl-C.
                """,
            options: ForegroundOptions.self,
            examples: ["sshelf agent", "eval \"$(sshelf agent --print-env)\""],
            run: foreground),
        CommandSpec(
            path: ["agent", "start"], summary: "start the sshelf agent in the background (if it is not running)",
            details: """
                With no terminal, a key marked --confirm is asked about in a running sshelf TUI (and refused when \
                none is open), and keys the vault session cannot open now are not listed (its log says which): \
                'sshelf vault unlock', --unlock (also for an agent that is running already) or 'ssh-add -X' \
                unlocks the session for the agent and every other sshelf process. Its log is agent.log in the \
                state folder.
                """,
            options: StartOptions.self,
            examples: ["eval \"$(sshelf agent start --print-env)\"", "sshelf agent start --unlock"],
            run: start),
        CommandSpec(path: ["agent", "stop"], summary: "stop the running sshelf agent", run: stop),
        CommandSpec(
            path: ["agent", "status"], summary: "show where the agent listens, its pid, its keys, locked or not",
            options: JSONOptions.self, run: status),
        AgentUnlockGuard.command,
    ]

    // MARK: commands

    static func foreground(_ call: Call<ForegroundOptions>, _ context: AppContext) throws -> Int32 {
        if call[\.printEnv] {
            context.print(environmentLine(context.locations.agentSocket))
            return 0
        }
        let timeout = call[\.confirmTimeout] ?? AgentConfirmation.defaultTimeout
        let ready = call[\.readyFD]
        let interactive = ready == nil && hasTerminal
        let report = reporter(context)
        let confirmation = AgentConfirmation(
            locations: context.locations, timeoutSeconds: timeout, useTerminal: interactive)
        let ask: ((String) -> SecretBytes?)? =
            interactive
            ? { prompt in
                try? SecretInput(fd: nil, option: "passphrase-fd").read(prompt: prompt)
            } : nil
        let service = AgentService(context: context, confirmation: confirmation, askPassphrase: ask, report: report)
        if ready == nil {
            report("in another shell: export SSH_AUTH_SOCK=\(shellQuoted(context.locations.agentSocket))")
        }
        return AgentServer(context: context, service: service).run(ready: ready, foreground: ready == nil)
    }

    static func start(_ call: Call<StartOptions>, _ context: AppContext) throws -> Int32 {
        let timeout = call[\.confirmTimeout] ?? AgentConfirmation.defaultTimeout
        let locations = context.locations
        let unlockInput = call[\.unlock] ? SecretInput(call, \.passphraseFD) : nil
        if let running = AgentClient.status(locations) {
            if let unlockInput { try unlockAgent(context, unlockInput, pid: running.pid) }
            if call[\.printEnv] {
                context.print(environmentLine(running.socket))
            } else if ServiceFiles.running(locations)?.pid == Int32(running.pid) {
                context.print("the sshelf service (pid \(running.pid)) runs the agent already, at \(running.socket)")
            } else {
                context.print("the sshelf agent is already running (pid \(running.pid)) at \(running.socket)")
            }
            return 0
        }
        let (pid, logPath) = try AgentStart.inBackground(context, confirmTimeout: timeout)
        if let unlockInput { try unlockAgent(context, unlockInput, pid: Int(pid)) }
        if call[\.printEnv] {
            context.print(environmentLine(locations.agentSocket))
        } else {
            context.print("started the sshelf agent (pid \(pid)) at \(locations.agentSocket); its log is \(logPath)")
            context.errorOutput("point ssh at it with: eval \"$(sshelf agent --print-env)\"\n")
        }
        return 0
    }

    static func stop(_ call: Invocation, _ context: AppContext) throws -> Int32 {
        let locations = context.locations
        guard let running = AgentClient.status(locations) else {
            context.errorOutput("no sshelf agent is running; nothing to stop\n")
            return 0
        }
        let pid = pid_t(running.pid)
        if ServiceFiles.running(locations)?.pid == pid {
            throw ShelfError(
                .failure, "the agent runs inside the sshelf service (pid \(pid)); stopping it would stop the service",
                hint: "sshelf service stop")
        }
        guard kill(pid, SIGTERM) == 0 else {
            throw ShelfError(.failure, "cannot signal the agent (pid \(pid)): \(String(cString: strerror(errno)))")
        }
        guard ChildProcess.waitForExit(pid, deadline: Date().addingTimeInterval(10)) != nil else {
            throw ShelfError(.failure, "the agent (pid \(pid)) did not stop within 10 s")
        }
        context.print("stopped the sshelf agent (pid \(pid))")
        return 0
    }

    static func status(_ call: Call<JSONOptions>, _ context: AppContext) throws -> Int32 {
        guard let running = AgentClient.status(context.locations) else {
            if call[\.json] {
                context.print("{\"running\":false,\"socket\":\(jsonString(context.locations.agentSocket))}")
                return 3
            }
            throw ShelfError(.notFound, "no sshelf agent is running", hint: "start one: sshelf agent start")
        }
        if call[\.json] {
            context.print("{\"running\":true,\"agent\":\(JSONOutput.terminalSafe(Array(running.encoded.utf8)))}")
            return 0
        }
        let state = AgentStateFile.read(context.locations)
        let lines: [(String, String)] = [
            (
                "running",
                "pid \(running.pid), since \(Display.relative(running.started))"
                    + (state.map { $0.foreground ? " (foreground)" : " (background)" } ?? "")
            ),
            ("socket", running.socket),
            (
                "keys",
                running.keys.isEmpty
                    ? "none" : "\(running.keys.count): " + running.keys.map(Display.safe).joined(separator: ", ")
            ),
            ("locked", running.locked ? "yes (ssh-add -X unlocks it)" : "no"),
            (
                "vault",
                running.vault
                    + (running.lockedKeys.isEmpty
                        ? ""
                        : "; locked for \(running.lockedKeys.map(Display.safe).joined(separator: ", ")) ("
                            + (running.sharedUnlock == false
                                ? "not listed until 'sshelf agent start --unlock' or 'ssh-add -X': without a kernel "
                                    + "keyring, 'sshelf vault unlock' does not reach the agent)"
                                : "not listed until 'sshelf vault unlock', 'sshelf agent start --unlock' or "
                                    + "'ssh-add -X')"))
            ),
            ("confirm by", "\(running.confirm), within \(running.confirmTimeout) s"),
            (
                "log",
                state.map { $0.foreground ? "its terminal" : context.locations.stateDirectory + "/agent.log" } ?? "?"
            ),
        ]
        context.output(lines.map { "\($0.0.padded(to: 11))\($0.1)\n" }.joined())
        return 0
    }

    // MARK: helpers

    /// Unlocks the vault session, which the running agent `pid` signs through, and says so. Where the kernel keyring
    /// cannot keep the session between processes, the passphrase is handed to the agent itself (as `ssh-add -X`).
    static func unlockAgent(_ context: AppContext, _ input: SecretInput, pid: Int) throws {
        guard Vault.exists(at: context.locations) else {
            context.errorOutput("there is no vault on this device: the agent has no keys to unlock\n")
            return
        }
        let vault = try VaultCommands.open(context, create: false)
        guard vault.hasPassphrase else {
            context.errorOutput("the vault has no passphrase: the agent (pid \(pid)) signs with every key already\n")
            return
        }
        let passphrase = try input.read(prompt: "Vault passphrase (for the agent): ")
        try VaultCommands.attempt { () throws(VaultError) in try vault.unlock(passphrase: passphrase) }
        let session = vault.session()
        if session.shared {
            let idle = VaultSessionState.duration(session.idleSeconds)
            context.errorOutput(
                "unlocked the vault session: the agent (pid \(pid)) signs with every key until 'sshelf vault lock' or "
                    + "\(idle) without use\n")
            return
        }
        guard AgentClient.unlock(context.locations, passphrase: passphrase) else {
            throw ShelfError(
                .failure, "the agent did not open the vault: the passphrase is not correct (or the agent is locked)",
                hint: "try again; 'sshelf agent status' shows whether the agent itself is locked")
        }
        context.errorOutput(
            "unlocked the vault in the agent (pid \(pid)) itself: this system keeps no unlock between processes (no "
                + "kernel keyring)\n")
    }

    /// `SSH_AUTH_SOCK=…; export SSH_AUTH_SOCK;` as ssh-agent prints it, the path quoted when a shell would split it.
    static func environmentLine(_ socket: String) -> String {
        "SSH_AUTH_SOCK=\(shellQuoted(socket)); export SSH_AUTH_SOCK;"
    }

    static func shellQuoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy {
            TextTrim.isAlphanumeric($0) || "/._-+:@%".unicodeScalars.contains($0)
        }
        return plain && !text.isEmpty ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }

    private static func jsonString(_ text: String) -> String {
        JSONOutput.terminalSafe((try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8))
    }

    static var hasTerminal: Bool {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else { return false }
        close(tty)
        return true
    }

    /// The agent's log lines: stderr (its terminal, or agent.log when started in the background), with the time.
    static func reporter(_ context: AppContext) -> @Sendable (String) -> Void {
        { [context] line in
            context.errorOutput("sshelf agent \(LocalTime.text(Date())): \(Display.safe(line))\n")
        }
    }
}

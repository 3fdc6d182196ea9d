// OpenSSHForwardChild: one attempt of the forward supervisor for a host that requires post-quantum key exchange —
// its autostart rules run by OpenSSH's `ssh -N` (a private config written from the bridge with only those rules, the
// sshelf agent, sshelf's pins alone, KexAlgorithms limited to the post-quantum names ssh has, BatchMode: nothing is
// asked). ssh's log comes back on a pipe from its standard error and is read here, never stored: it says when ssh
// has logged in, which key exchange it agreed on, and why it ended. HostRunner supervises it (states, backoff, stop).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem

final class OpenSSHForwardChild: @unchecked Sendable {
    /// How an attempt ended: ssh's exit status, its last words (the reason), and whether retrying can change it.
    struct Ending {
        var status: Int32
        var reason: String
        var permanent: Bool
        var loggedIn: Bool
    }

    let child: StoppableChild
    private let log: Int32
    private let configPath: String
    /// How many of the rules are remote (-R): ssh confirms those only when the server answers, after it logged in.
    private let remoteForwards: Int

    private init(child: StoppableChild, log: Int32, configPath: String, remoteForwards: Int) {
        self.child = child
        self.log = log
        self.configPath = configPath
        self.remoteForwards = remoteForwards
    }

    /// Writes the config and starts ssh for `rules` of `plan`'s target; `said` takes what sshelf says on the way (the
    /// agent started for it). `passphrase`: what the agent is given when the host's vault key is locked for it
    /// (ssh runs in batch mode: the bridge's guard asks nobody).
    static func start(
        _ plan: ConnectPlan, rules: [PortForwardRule], keepalive: Int, store: Store, context: AppContext,
        passphrase: AgentPassphrase? = nil, said: @escaping (String) -> Void
    ) throws -> OpenSSHForwardChild {
        let ssh = OpenSSHHandover.sshPath
        let target = plan.target
        let kex = try OpenSSHHandover.kexArguments(plan)
        guard SSHConfigEmitter.writtenNames(try store.hosts())[target.id] == target.name else {
            throw ShelfError(
                .invalid,
                "'\(Display.safe(target.name))' cannot be written to an ssh_config (a name ssh reads as a pattern, or "
                    + "shared with another host)",
                hint: "rename it (sshelf edit \(ShellWord.quote(Display.safe(target.name))) --rename NEWNAME)")
        }
        try PrivateFiles.ensureDirectory(context.locations.runtimeDirectory)
        let config =
            context.locations.runtimeDirectory
            + "/forward-up-\(getpid())-\(target.id.uuidString.lowercased().prefix(8)).config"
        try SSHConfigBridge(workspace: context.workspace).writeForwardRun(
            from: store, hostID: target.id, ruleIDs: Set(rules.map(\.id)), onlyRules: true, to: config)
        let environment: [String: String]
        do {
            environment = try OpenSSHHandover.agentEnvironment(
                plan, store: store, dryRun: false, context: context, said: said, passphrase: passphrase,
                interactive: false)
        } catch {
            unlink(config)
            throw error
        }
        // ExitOnForwardFailure: a rule ssh cannot set up ends the attempt with its reason. BatchMode: no prompt (the
        // supervisor has nobody to ask); StrictHostKeyChecking yes: only a key the bridge's pins (or the user's
        // known_hosts for a host not pinned in sshelf) hold, never one accepted on first sight. LogLevel DEBUG1 on
        // standard error: the lines read below ("kex: algorithm:" is a debug1 line); ssh closes every other
        // descriptor it inherits, so the pipe is its standard error.
        let argv =
            [
                ssh, "-F", config, "-N", "-o", "ExitOnForwardFailure=yes", "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=yes", "-o", "UpdateHostKeys=no", "-o", "LogLevel=DEBUG1", "-o",
                "ServerAliveInterval=\(keepalive)",
            ] + kex + CertificateRenewal.sshOptions(plan, locations: context.locations) + [target.name]
        var fds: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&fds) == 0 else {
            unlink(config)
            throw ShelfError(.failure, "could not make a pipe for ssh's log: \(String(cString: strerror(errno)))")
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        let started = ChildProcess.spawn(argv, stdin: null, stdout: null, stderr: fds[1], environment: environment)
        close(null)
        close(fds[1])
        switch started {
        case .success(let pid):
            return OpenSSHForwardChild(
                child: StoppableChild(pid: pid), log: fds[0], configPath: config,
                remoteForwards: rules.filter { $0.kind == .remote }.count)
        case .failure(let error):
            close(fds[0])
            unlink(config)
            throw ShelfError(.failure, "could not run \(ssh): \(error)")
        }
    }

    /// Reads ssh's log until ssh ends: `loggedIn` is called once ssh has logged in and every rule is up (its local
    /// listeners bound, the server's yes to each remote one), with the key exchange it agreed on — "active" means a
    /// connection to the port is served, not refused. Returns how it ended; the config is removed.
    func run(loggedIn: (_ keyExchange: String?) -> Void) -> Ending {
        var reader = LogLines(remoteForwards: remoteForwards)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var announced = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(log, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            reader.take(buffer[0..<count])
            if reader.forwarding, !announced {
                announced = true
                loggedIn(reader.keyExchange)
            }
        }
        close(log)
        let status = child.wait()
        unlink(configPath)
        let reason = reader.lastWords.map { "ssh: \($0)" } ?? "ssh ended with status \(status)"
        return Ending(
            status: status, reason: reason, permanent: !announced && reader.needsTheUser, loggedIn: announced)
    }

    /// Ends ssh (SIGTERM, repeated until it has gone).
    func stop() { child.stop(SIGTERM) }

    /// ssh's standard error, line by line: what it says is kept only as far as the supervisor needs it.
    struct LogLines {
        private var partial: [UInt8] = []
        private(set) var loggedIn = false
        /// Remote rules the server has not said yes to yet.
        private var remoteUnconfirmed: Int
        /// ssh's "Entering interactive session." (debug1): printed once ssh_init_forwarding has bound every local
        /// and dynamic listener, so a connection to one is served from then on.
        private var listening = false
        /// Every rule is up: ssh logged in, bound its listeners and had each remote one confirmed.
        var forwarding: Bool { loggedIn && listening && remoteUnconfirmed == 0 }

        init(remoteForwards: Int = 0) { remoteUnconfirmed = remoteForwards }
        private(set) var keyExchange: String?
        /// The last line that is not ssh's debug chatter: why it ended.
        private(set) var lastWords: String?
        /// ssh said something only the user can fix (a host key, a refused login, no common key exchange).
        private(set) var needsTheUser = false

        /// What ssh prints on its way that says nothing about why it ended.
        static let chatter = [
            "Authenticated to ", "Transferred: ", "Bytes per second", "Warning: Permanently added",
            "Killed by signal", "Connection to ", "Pseudo-terminal", "Exit status",
        ]
        /// What ssh says when retrying cannot help.
        static let permanent = [
            "Host key verification failed", "Permission denied", "no matching key exchange method",
            "REMOTE HOST IDENTIFICATION HAS CHANGED", "Too many authentication failures", "Bad configuration option",
            "No matching host key type", "Unsupported KEX algorithm",
        ]

        mutating func take(_ bytes: ArraySlice<UInt8>) {
            partial += bytes
            while let end = partial.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: partial[..<end], as: UTF8.self).trimmingScalars(in: "\r")
                partial.removeSubrange(...end)
                read(line)
            }
            // A line longer than anything ssh says is not kept whole.
            if partial.count > 8192 { partial.removeAll() }
        }

        private mutating func read(_ line: String) {
            if line.hasPrefix("debug") {
                // The first one, ssh's own whole line (OpenSSHSessionLog.keyExchange: a server's version string
                // inside another line does not count).
                if keyExchange == nil { keyExchange = OpenSSHSessionLog.keyExchange(in: line) }
                if line == "debug1: Entering interactive session." { listening = true }
                if line.hasPrefix("debug1: remote forward success for: "), remoteUnconfirmed > 0 {
                    remoteUnconfirmed -= 1
                }
                return
            }
            if line.hasPrefix("Authenticated to ") { loggedIn = true }
            guard !line.isEmpty, !Self.chatter.contains(where: line.hasPrefix) else { return }
            lastWords = Display.safe(String(line.prefix(300)))
            if Self.permanent.contains(where: line.contains) { needsTheUser = true }
        }
    }
}

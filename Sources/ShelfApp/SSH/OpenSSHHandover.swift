// OpenSSHHandover: `sshelf connect NAME --openssh` — for what libssh2 1.10 cannot do (ForwardAgent, X11, a
// ControlMaster…), the session goes to OpenSSH's own ssh: the bridge is brought up to date, the sshelf agent is
// started when a hop's key is in the vault, and ssh replaces this process (its terminal, its exit status), reading
// the host through the bridge — with the user's ~/.ssh/config when that includes the bridge — and with the sshelf
// agent as SSH_AUTH_SOCK, so a forwarded agent is the vault's. `connect` also hands over by itself, saying why, when
// the loaded libssh2 cannot log a hop in (an RSA key on libssh2 1.10, which signs only SHA-1 ssh-rsa).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore

enum OpenSSHHandover {
    static let sshPath = "/usr/bin/ssh"

    /// Why sshelf's own client cannot log in to `plan`'s hosts with the libssh2 it loaded and OpenSSH can (nil when it
    /// can, or when OpenSSH's ssh is not installed): a hop logs in with an RSA key and the library signs only ssh-rsa.
    static func needed(_ plan: ConnectPlan) -> String? {
        guard !LibSSH2.features.rsaSHA2, access(sshPath, X_OK) == 0 else { return nil }
        for hop in plan.endpoints {
            guard let identity = hop.identity, identity.keyType == .rsa,
                identity.privateKeyRef != nil || !identity.keyFile.isEmpty
            else { continue }
            switch hop.authMethod {
            case .password, .keyboardInteractive: continue
            default: break
            }
            return "\(Display.safe(hop.name)) logs in with the RSA key of identity '\(Display.safe(identity.name))', which libssh2 \(LibSSH2.version) can only sign with ssh-rsa (SHA-1, refused by OpenSSH 8.8 and later)"
        }
        return nil
    }

    static func run(_ plan: ConnectPlan, store: Store, dryRun: Bool, context: AppContext) throws -> Int32 {
        let target = plan.target
        guard access(sshPath, X_OK) == 0 else {
            throw ShelfError(.failure, "OpenSSH's ssh is not installed (\(sshPath))", hint: "install openssh-client, or connect without --openssh")
        }
        let bridge = SSHConfigBridge(workspace: context.workspace)
        try bridge.write(from: store)
        let input = try store.hosts()
        guard SSHConfigEmitter.writtenNames(input)[target.id] == target.name else {
            throw ShelfError(.invalid, "'\(Display.safe(target.name))' cannot be written to the ssh_config bridge (a name ssh reads as a pattern, or shared with another host)",
                             hint: "rename it (sshelf edit \(ShellWord.quote(Display.safe(target.name))) --rename NEWNAME), then try again")
        }
        var environment = context.environment
        let vaultKeys = Set(try store.identities().filter { $0.privateKeyRef != nil }.map(\.id))
        if plan.hosts.contains(where: { $0.identityID.map(vaultKeys.contains) == true }) || AgentClient.status(context.locations) != nil {
            if AgentClient.status(context.locations) == nil {
                if dryRun {
                    context.print("would start the sshelf agent (sshelf agent start)")
                } else {
                    let (pid, log) = try AgentCommands.startInBackground(context)
                    context.errorOutput("sshelf: started the sshelf agent (pid \(pid)) for ssh; its log is \(log)\n")
                }
            }
            environment["SSH_AUTH_SOCK"] = context.locations.agentSocket
        }
        let argv = [sshPath] + configArguments(context, bridge: bridge.path) + [target.name]
        if dryRun {
            context.print("SSH_AUTH_SOCK=\(environment["SSH_AUTH_SOCK"].map(ShellWord.quote) ?? "(unset)") "
                + argv.map(ShellWord.quote).joined(separator: " "))
            return 0
        }
        exec(argv, environment: environment)
        throw ShelfError(.failure, "could not run \(sshPath): \(String(cString: strerror(errno)))")
    }

    /// Which config ssh reads: the user's own when it includes the bridge (named with -F when HOME is not the
    /// home ssh itself would use), else the bridge alone.
    static func configArguments(_ context: AppContext, bridge: String) -> [String] {
        let include = SSHConfigInclude(home: context.homeDirectory, bridgePath: bridge)
        guard include.isInstalled else { return ["-F", bridge] }
        let ownHome = getpwuid(geteuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } }
        return ownHome == context.homeDirectory ? [] : ["-F", include.configPath]
    }

    /// Replaces this process with `argv` (returns only when that failed).
    static func exec(_ argv: [String], environment: [String: String]) {
        var cArgv = argv.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        _ = execve(argv[0], &cArgv, &cEnvironment)
        for pointer in cArgv + cEnvironment { free(pointer) }
    }
}

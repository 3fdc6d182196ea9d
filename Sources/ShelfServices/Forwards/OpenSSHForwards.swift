// OpenSSHForwards: `sshelf forward start --openssh HOST [RULE…]` — the rules run by OpenSSH's `ssh -N` instead of
// sshelf's own client: for forwards no libssh2 can carry (a unix socket listening on the server, `-R
// /run/a.sock:/run/b.sock`), or a socket target the loaded libssh2 lacks. ssh reads a private config written from
// the bridge with only these rules as forwards, logs in with the sshelf agent and trusts sshelf's pins alone; this
// process waits for it (Ctrl-C and SIGTERM reach it) and removes that config after.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem

public enum OpenSSHForwards {
    public static func run(
        _ plan: ConnectPlan, rules: [PortForwardRule], onlyRules: Bool, store: Store,
        context: AppContext
    ) throws -> Int32 {
        let ssh = OpenSSHHandover.sshPath
        guard access(ssh, X_OK) == 0 else {
            throw ShelfError(
                .failure, "OpenSSH's ssh is not installed (\(ssh))",
                hint: "install openssh-client, or start the rules without --openssh")
        }
        let target = plan.target
        guard SSHConfigEmitter.writtenNames(try store.hosts())[target.id] == target.name else {
            throw ShelfError(
                .invalid,
                "'\(Display.safe(target.name))' cannot be written to an ssh_config (a name ssh reads as a pattern, or "
                    + "shared with another host)",
                hint: "rename it (sshelf edit \(ShellWord.quote(Display.safe(target.name))) --rename NEWNAME), "
                    + "then try again")
        }
        try PrivateFiles.ensureDirectory(context.locations.runtimeDirectory)
        let config = context.locations.runtimeDirectory + "/forward-openssh-\(getpid()).config"
        let bridge = SSHConfigBridge(workspace: context.workspace)
        try bridge.writeForwardRun(
            from: store, hostID: target.id, ruleIDs: Set(rules.map(\.id)), onlyRules: onlyRules,
            to: config)
        defer { unlink(config) }
        let environment = try OpenSSHHandover.agentEnvironment(plan, store: store, dryRun: false, context: context)
        // ExitOnForwardFailure: a forward ssh cannot open ends it with its reason, as a rule that cannot listen does.
        let argv =
            [ssh, "-F", config, "-N", "-o", "ExitOnForwardFailure=yes"] + (try OpenSSHHandover.kexArguments(plan))
            + [target.name]
        let pid: pid_t
        switch ChildProcess.spawn(argv, stdin: 0, stdout: 1, stderr: 2, environment: environment) {
        case .success(let started): pid = started
        case .failure(let error): throw ShelfError(.failure, "could not run \(ssh): \(error)")
        }
        // ssh gets Ctrl-C from the terminal itself; a SIGTERM to sshelf is passed on, and again until ssh has
        // ended (ssh 9.2 can miss one: StoppableChild). Either is a clean stop.
        let child = StoppableChild(pid: pid)
        let signals = StopSignals { child.stop(SIGTERM) }
        defer { signals.cancel() }
        for rule in rules {
            context.errorOutput("sshelf: forwarding -\(rule.spec.flag) \(rule.spec) through OpenSSH's ssh\n")
        }
        context.errorOutput("sshelf: press Ctrl-C to stop\n")
        let status = child.wait()
        // ssh says 255 when a signal stopped it; without one that was a failed or lost connection (as for connect).
        return child.wasStopped && (status == 255 || status > 128) ? 0 : status
    }
}

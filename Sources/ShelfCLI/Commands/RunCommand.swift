// RunCommand: `sshelf run TARGETS -- COMMAND` — one command on many hosts at once (docs/FLEET.md): targets resolved
// once, guard rails (confirmation, canary), each host connected as a login is (key verified before any credential,
// nothing asked mid-run) or through its warm session, Ctrl-C handled in two steps, one release-log entry per run.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore
import ShelfSystem

enum RunCommand {
    static let command = CommandSpec(
        path: ["run"], summary: "run one command on many hosts at once (a group, a tag, a search)",
        details: """
            TARGETS are host names, @group/path (with its subgroups), tag:NAME, or a search as 'sshelf list' takes \
            it ('db fra', or q:WORD); --hosts-file adds a file of host names. Hosts run in parallel, each connected \
            as a login is: its host key is verified before any credential is read, and a host whose key is unknown \
            (without --accept-new) or changed is skipped and reported — nothing is asked in the middle of a run. A \
            host with a warm session (exec --persist) runs the command on it. At the end every distinct output is \
            shown once with the hosts that gave it, then each host's status, hosts that ended alike on one line. On a \
            terminal the hosts' output is shown safe: control characters and escape sequences as ^[, ^M, <U+009B> \
            (a host cannot set the clipboard or the title, or hide a line); --raw, or a file or pipe, gets it raw. \
            More than \(FleetGuard.confirmAbove) \
            hosts, or any host tagged '\(FleetGuard.protectedTag)', must be confirmed by typing the number of hosts \
            (--yes for scripts). As with pssh: -l USER logs every host in as USER for this run, -t gives each \
            command a terminal, --sudo runs it under sudo with the password asked once here (typed only into a \
            prompt sudo was told to mark, on hosts whose key was verified), --stream prints lines as they arrive, \
            prefixed by host. Ctrl-C starts no more hosts and lets running ones end; a second Ctrl-C stops them. \
            Each run is one entry in the release log (sshelf log): the hosts, a SHA-256 of the command, each host's \
            verified key and status. Exit status: 0 when every host succeeded; 1 when a command failed, a canary \
            failed or Ctrl-C stopped the run; 255 when a host was not reached, its key was refused, its login failed, \
            its connection was lost mid-command or it timed out; 2 when a confirmation was needed and not given. \
            See docs/FLEET.md.
            """,
        arguments: [
            ArgumentSpec(
                name: "TARGETS", help: "hosts, @group, tag:NAME or a quoted search; then -- and the command",
                variadic: true, completion: .host)
        ],
        options: Options.self,
        examples: [
            "sshelf run @prod -- uptime", "sshelf run tag:db 'web fra' -- systemctl is-active nginx",
            "sshelf run @prod --canary 2 --yes -- sudo apt-get -y upgrade",
            "sshelf run --hosts-file hosts.txt -- df -h /",
        ],
        run: run)

    struct Options: FleetOptions {
        let hostsFile = Option(
            "hosts-file", .text("FILE"),
            "also run on the hosts named in FILE (one sshelf host name a line, # comments)")
        let dryRun = Flag(
            "dry-run",
            "list the hosts and each one's connect plan (hops, host keys, credential sources); connect to none"
                + " (the command may be left out)")
        let parallel = Option(
            "parallel", FleetCommand.parallel,
            "run on at most N hosts at once (default \(FleetRun.Settings.defaultParallel))")
        let canary = Option(
            "canary", .count(0...10_000, examples: ["2"]),
            "run on the first N hosts first; stop there unless all of them succeed")
        let timeout = Option(
            "timeout", .seconds(atMost: 600), "connect timeout per host and address (default 10)")
        let commandTimeout = Option(
            "command-timeout", .seconds(atMost: 86_400),
            "cut a command that runs longer than this (default \(Int(FleetRun.Settings.defaultCommandTimeout)))")
        let json = Flag(
            "json", "print one JSON object a line per host (name, outcome, exit status, stdout, stderr, times)")
        let raw = Flag(
            "raw",
            "print the hosts' output byte for byte even on a terminal (escape sequences included; without it a "
                + "terminal is shown them as ^[ and <U+009B>, and a file or pipe gets them raw)")
        let stream = Flag(
            "stream",
            "print each line as it arrives, prefixed by its host (as pssh -P); the hosts' statuses at the end")
        let login = FleetCommand.login
        let tty = Flag(
            "tty", short: "t",
            "give each command a terminal (PTY), as ssh -tt and pssh -x -t do, for commands that need one")
        let sudo = Flag(
            "sudo",
            "run the command under sudo on a terminal: sudo's password is asked once here and typed only where"
                + " sudo asks for it")
        let sudoPasswordFD = Option(
            "sudo-password-fd", .descriptor, "with --sudo: read sudo's password from descriptor N (for scripts)")
        let yes = Flag(
            "yes", short: "y", "go ahead without the typed confirmation a large or protected run asks for")
        let acceptNew = Flag(
            "accept-new", "accept and pin the host key of hosts never seen before (never a changed key)")
        let passphraseFD = LoginPassphraseOption.passphraseFD
    }

    static func run(_ call: Call<Options>, _ context: AppContext) throws -> Int32 {
        let split = call.separator ?? call.arguments.count
        let targets = Array(call.arguments[..<split])
        let command = call.arguments[split...].joined(separator: " ")
        // A dry run plans the hosts; the command is optional there (checking who a target reaches comes first).
        guard !command.isEmpty || call[\.dryRun] else {
            throw ShelfError(.usage, "run: missing the command", hint: "sshelf run TARGETS -- COMMAND ...")
        }
        return try run(command, on: targets, call, context)
    }

    /// `command` on `targets` with the guard rails and options of `call` (which holds run's options): `run`
    /// itself, and `snippet run` with a snippet's filled-in command.
    static func run(_ command: String, on targets: [String], _ call: Call<Options>, _ context: AppContext) throws
        -> Int32
    {
        let store = try context.store()
        var fleet = try FleetCommand.resolve(
            targets, hostsFile: call[\.hostsFile], store: store, context: context)
        try FleetCommand.loginUser(call, &fleet)
        let options = SSHCommands.connectOptions(call, context)
        if call[\.dryRun] {
            FleetCommand.printDryRun(fleet, options: options, context: context)
            let hosts = "\(fleet.plans.count) host\(fleet.plans.count == 1 ? "" : "s")"
            if command.isEmpty {
                context.print("\(hosts), no command given")
            } else {
                context.print("command \(FleetLog.commandHash(command)) (\(command.utf8.count) bytes) on \(hosts)")
            }
            return 0
        }
        if call[\.stream] && call[\.json] {
            throw ShelfError(
                .usage, "run: --stream and --json do not go together",
                hint: "--json prints each host's output whole at the end; --stream prints lines as they arrive")
        }
        try FleetCommand.confirm(fleet, call: call, context: context)
        try CACommands.renewCertificates(
            &fleet.plans, by: "run", vaultInput: SecretInput(call, \.passphraseFD), context: context, store: store)
        let sudo = try RunSudo.ask(call)
        let stream = call[\.stream] ? RunReport.stream(raw: call[\.raw] || isatty(1) != 1) : nil
        let settings = FleetRun.Settings(
            parallel: call[\.parallel] ?? FleetRun.Settings.defaultParallel, canary: call[\.canary] ?? 0,
            commandTimeout: call[\.commandTimeout] ?? FleetRun.Settings.defaultCommandTimeout)
        let session = try FleetSession(call: call, store: store, context: context, by: "run")
        try session.begin(fleet, what: "run", item: FleetLog.commandHash(command))
        // No live progress line between streamed lines (it would be cut into them).
        let summary = session.run(
            fleet, settings: settings, options: options, json: call[\.json] || stream != nil,
            job: FleetSession.job(
                command, session: session, options: options, acceptNew: call[\.acceptNew],
                warm: fleet.loginUser == nil && !call[\.tty] && sudo == nil,
                terminal: call[\.tty] || sudo != nil ? RunSudo.terminalType(context) : nil, sudo: sudo,
                stream: stream,
                context: context))
        try session.finish(summary, fleet: fleet, what: "run", item: FleetLog.commandHash(command))
        if call[\.json] {
            RunReport.printJSON(summary.results, context: context)
        } else if stream != nil {
            RunReport.printStatuses(summary, context: context)
        } else {
            RunReport.print(summary, raw: call[\.raw] || isatty(1) != 1, context: context)
        }
        return FleetReport.exitStatus(summary.results)
    }
}

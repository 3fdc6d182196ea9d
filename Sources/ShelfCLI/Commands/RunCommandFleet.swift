// RunCommandFleet: what `run` and `cp` share on the command line — resolving targets and a hosts file into connect
// plans, the dry-run listing, the typed confirmation, option values, and the session's passphrase from
// --passphrase-fd or the terminal (FleetSession, in ShelfServices, is the run itself).
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore
import ShelfSystem

enum FleetCommand {
    static func resolve(_ targets: [String], hostsFile: String?, store: Store, context: AppContext) throws -> Fleet {
        var words = targets
        if let hostsFile {
            let text: String
            do {
                text = try String(decoding: RegularFile.read(hostsFile), as: UTF8.self)
            } catch {
                throw ShelfError(
                    .invalid, "--hosts-file: cannot read \(Display.safe(hostsFile)): \(error)",
                    hint: "give a file with one sshelf host name a line")
            }
            let names = FleetTargets.names(inHostsFile: text)
            guard !names.isEmpty else {
                throw ShelfError(
                    .invalid, "--hosts-file: \(Display.safe(hostsFile)) names no host",
                    hint: "one sshelf host name a line")
            }
            for name in names where !TargetWord(name).isOneHost {
                throw ShelfError(
                    .invalid, "--hosts-file: '\(Display.safe(name))' is not a host name",
                    hint: "a hosts file lists host names only; put groups, tags and searches on the command line")
            }
            words += names
        }
        guard !words.isEmpty else {
            throw ShelfError(
                .usage, "no hosts given",
                hint: "name hosts, @group, tag:NAME or a search before --, or use --hosts-file FILE")
        }
        // One snapshot for the targets and every host's plan.
        let plans = try store.read { store in
            try FleetTargets.hosts(try FleetTargets.resolve(words, in: store)).map {
                try ConnectPlan.make(for: $0, in: store)
            }
        }
        return Fleet(targets: words, plans: plans)
    }

    /// `-l USER`: every host of the run logs in as USER (checked as a host's user is).
    static func loginUser(_ call: Call<some FleetOptions>, _ fleet: inout Fleet) throws {
        guard let user = call[\.login] else { return }
        if let problem = Validation.userProblem(user) ?? (user.isEmpty ? "user is empty" : nil) {
            throw ShelfError(
                .invalid, "-l: \(Display.safe(user)): \(problem)",
                hint: "give the user the hosts should log in as, e.g. -l deploy")
        }
        fleet.logIn(as: user)
    }

    static let login = Option(
        "login", short: "l", .text("USER"),
        "log in to every host as USER for this run (its jump hosts keep their own user)")

    /// `--parallel N`: how many hosts at once, 1 to 10000.
    static let parallel = ValueKind<Int>.count(1...10_000, examples: ["8"])

    /// What a run would do per host: its connect plan as a run follows it (nothing asked: the steps that would ask
    /// say what happens instead), or its warm session when one runs.
    static func printDryRun(_ fleet: Fleet, options: ConnectOptions, context: AppContext) {
        let warm = Set(WarmListing.entries(context.locations).map(\.hostID))
        for plan in fleet.plans {
            context.print(
                plan.describe(
                    trust: options.trust, agentSocket: options.agentSocket, environment: options.environment,
                    unattended: true))
            if let note = OpenSSHFleet.dryRunNote(plan) {
                context.print(note)
            } else if warm.contains(plan.target.id) {
                context.print(
                    "a warm session runs for it (sshelf warm list): the command would go through it, no login")
            }
        }
        if let reason = FleetGuard.reason(fleet.hosts) {
            context.print("would ask for confirmation: \(reason)")
        }
    }

    /// A large or protected run goes ahead only when the user types the number of hosts (or gave --yes).
    static func confirm(_ fleet: Fleet, call: Call<some FleetOptions>, context: AppContext) throws {
        guard let reason = FleetGuard.reason(fleet.hosts), !call[\.yes] else { return }
        let answer = FleetGuard.answer(fleet.hosts)
        guard isatty(0) == 1, let tty = TTY.open() else {
            throw ShelfError(
                .usage,
                "\(call.command.name): this needs a confirmation, and there is no terminal to ask on: \(reason)",
                hint: "check the hosts with --dry-run, then re-run with --yes")
        }
        defer { tty.close() }
        let names = HostRanges.fold(fleet.hosts.map { Display.safe($0.name) }, within: 240)
        tty.write("sshelf \(call.command.name) needs a confirmation: \(reason).\nHosts: \(names)\n")
        tty.write("Type \(answer) (the number of hosts) to go ahead: ")
        guard tty.readLine(echo: true).trimmingSpaces() == answer else {
            throw ShelfError(
                .usage, "not confirmed; nothing was run",
                hint: "type the number of hosts at the question, or give --yes")
        }
    }
}

extension FleetSession {
    /// The command line's: the passphrase from --passphrase-fd, or asked on the terminal.
    convenience init(call: Call<some LoginOptions>, store: Store, context: AppContext, by: String) throws {
        let input = SecretInput(call, \.passphraseFD)
        try self.init(store: store, context: context, by: by) {
            guard input.fd != nil || isatty(0) == 1 else { return nil }
            return try? input.readVaultPassphrase(prompt: "Vault passphrase: ")
        }
    }
}

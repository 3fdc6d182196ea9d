// RunCommandFleet: what `run` and `cp` share — resolving targets and a hosts file into connect plans, the dry-run
// listing, the typed confirmation, option values, and FleetSession: the vault and release log prepared before any
// host starts, Ctrl-C turned into the run's two-step stop, the live progress line (terminals only), and what a run
// leaves behind (pinned keys, last-connected times, its release-log entry).
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem
import ShelfVault

struct Fleet {
    var targets: [String]
    var plans: [ConnectPlan]
    var hosts: [ShelfCore.Host] { plans.map(\.target) }
}

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
            for name in names
            where name.hasPrefix("@") || name.hasPrefix("tag:") || name.contains(where: \.isWhitespace) {
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

    static func printDryRun(_ fleet: Fleet, options: ConnectOptions, context: AppContext) {
        for plan in fleet.plans {
            context.print(
                plan.describe(trust: options.trust, agentSocket: options.agentSocket, environment: options.environment))
        }
        if let reason = FleetGuard.reason(fleet.hosts) {
            context.print("would ask for confirmation: \(reason)")
        }
    }

    /// A large or protected run goes ahead only when the user types the number of hosts (or gave --yes).
    static func confirm(_ fleet: Fleet, call: Invocation, context: AppContext) throws {
        guard let reason = FleetGuard.reason(fleet.hosts), !call.flag("yes") else { return }
        let answer = FleetGuard.answer(fleet.hosts)
        guard isatty(0) == 1, let tty = TTY.open() else {
            throw ShelfError(
                .usage,
                "\(call.command.name): this needs a confirmation, and there is no terminal to ask on: \(reason)",
                hint: "check the hosts with --dry-run, then re-run with --yes")
        }
        defer { tty.close() }
        let names =
            fleet.hosts.prefix(8).map { Display.safe($0.name) }.joined(separator: ", ")
            + (fleet.hosts.count > 8 ? ", …" : "")
        tty.write("sshelf \(call.command.name) needs a confirmation: \(reason).\nHosts: \(names)\n")
        tty.write("Type \(answer) (the number of hosts) to go ahead: ")
        guard tty.readLine(echo: true).trimmingSpaces() == answer else {
            throw ShelfError(
                .usage, "not confirmed; nothing was run",
                hint: "type the number of hosts at the question, or give --yes")
        }
    }

    static func count(_ call: Invocation, _ option: String, default value: Int, allowZero: Bool = false) throws -> Int {
        guard let text = call.value(option) else { return value }
        guard let number = Int(text), number >= (allowZero ? 0 : 1), number <= 10_000 else {
            throw ShelfError(
                .invalid, "--\(option): '\(Display.safe(text))' is not a whole number (\(allowZero ? 0 : 1)-10000)")
        }
        return number
    }

    static func seconds(_ call: Invocation, _ option: String, default value: Double) throws -> Double {
        guard let text = call.value(option) else { return value }
        guard let number = Double(text), number > 0, number <= 86_400 else {
            throw ShelfError(.invalid, "--\(option): '\(Display.safe(text))' is not a number of seconds (up to 86400)")
        }
        return number
    }

    /// `SHA256:…` of a pinned key, as ssh-keygen -l prints it.
    static func fingerprint(_ key: PinnedHostKey) -> String? {
        guard let blob = Data(base64Encoded: key.key) else { return nil }
        let digest = Data(Digest.sha256(Array(blob))).base64EncodedString()
        return "SHA256:" + digest.trimmingScalars(in: "=")
    }
}

/// One fleet command's run: shared vault and credential lock, signals, progress, and the record it leaves.
final class FleetSession: @unchecked Sendable {
    private let context: AppContext
    private let store: Store
    private let vault: Vault
    private let by: String
    private let lock = Lock()
    /// Where the vault's and the log's warnings go: the terminal's stderr for the CLI, the run pane in the TUI.
    private let workspace: Workspace
    private let warn: (String) -> Void

    /// Opens the vault and makes sure the release log can take this run's entry before anything starts; a locked
    /// log key is unlocked with what `passphrase` gives (nil: the run does not start).
    init(
        store: Store, context: AppContext, by: String, workspace: Workspace? = nil,
        warn: ((String) -> Void)? = nil, passphrase: () -> SecretBytes?
    ) throws {
        self.context = context
        self.store = store
        self.by = by
        self.workspace = workspace ?? context.workspace
        self.warn = warn ?? context.warn
        vault = try FleetLog.prepare(self.workspace, passphrase: passphrase)
    }

    /// The command line's: the passphrase from --passphrase-fd, or asked on the terminal.
    convenience init(call: Invocation, store: Store, context: AppContext, by: String) throws {
        let input = try SecretInput(call, option: "passphrase-fd")
        try self.init(store: store, context: context, by: by) {
            guard input.fd != nil || isatty(0) == 1 else { return nil }
            return try? input.read(prompt: "Vault passphrase: ")
        }
    }

    /// A host's own credential source (sources keep per-attempt state); lookups of all hosts take one lock.
    func credentials() -> CredentialSource {
        FleetCredentials(
            workspace: workspace, store: store, vault: vault, releasedBy: by,
            who: "'sshelf \(by)'", lock: lock)
    }

    /// Runs `job` for every host: SIGINT becomes the two-step stop, and a terminal on stderr gets the progress line.
    func run(
        _ fleet: Fleet, settings: FleetRun.Settings, options: ConnectOptions, json: Bool,
        line: @escaping (FleetRun.Progress) -> String = FleetSession.progressLine,
        job: @escaping Job
    ) -> FleetRun.Summary {
        let interrupts = WakePipe()
        let errorOutput = context.errorOutput
        let presses = Counter()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            let count = presses.add(Int(source.data))
            StandardStreams.write(
                count == 1
                    ? "\r\u{1B}[Ksshelf: stopping: no more hosts start; running ones may finish "
                        + "(Ctrl-C again stops them)\n"
                    : "\r\u{1B}[Ksshelf: stopping the running hosts\n", fd: 2)
            for _ in 0..<source.data { interrupts.signal() }
        }
        // libdispatch installs its handler only once the source is registered; until then a Ctrl-C would be lost.
        let registered = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { registered.signal() }
        source.resume()
        registered.wait()
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        let live = isatty(2) == 1 && !json
        let summary = run(
            fleet, settings: settings, interrupts: interrupts.readEnd,
            progress: live
                ? { progress in
                    errorOutput("\r\u{1B}[K" + line(progress))
                } : nil, job: job)
        if live { errorOutput("\r\u{1B}[K") }
        return summary
    }

    typealias Job = (ConnectPlan, FleetAbort, @escaping @Sendable () -> Void) -> FleetHostResult

    /// Runs `job` for every host on the fleet scheduler: each byte readable on `interrupts` is one stop request
    /// (the first starts no more hosts, the second stops running ones), `progress` is called while hosts run.
    func run(
        _ fleet: Fleet, settings: FleetRun.Settings, interrupts: Int32, progress: ((FleetRun.Progress) -> Void)?,
        job: @escaping Job
    ) -> FleetRun.Summary {
        let plans = fleet.plans
        let runner = FleetRun(names: plans.map(\.target.name), ids: plans.map(\.target.id), settings: settings) {
            index, abort, connected in
            job(plans[index], abort, connected)
        }
        return runner.run(interrupts: interrupts, progress: progress)
    }

    static func progressLine(_ progress: FleetRun.Progress) -> String {
        let done = progress.succeeded + progress.failed
        var line = "\(done)/\(progress.total) done, \(progress.failed) failed, \(progress.running) running"
        if !progress.slowest.isEmpty {
            line +=
                "; slowest: "
                + progress.slowest.map { "\(Display.safe($0.name)) \(TextFormat.fixed($0.seconds, places: 1))s" }
                .joined(separator: ", ")
        }
        return progress.stopping ? line + " (stopping)" : line
    }

    /// Saves what the connections changed (keys pinned with --accept-new, last-connected times) and appends the run's
    /// release-log entry.
    func finish(_ summary: FleetRun.Summary, fleet: Fleet, what: String, item: String) throws {
        // One transaction for every host: each commit is an fsync, which a host apiece would multiply by the fleet.
        do {
            try store.write { store in
                for result in summary.results {
                    guard let outcome = result.connectOutcome else { continue }
                    let reached = result.outcome == .succeeded || result.outcome == .failed
                    try ConnectPlan.record(outcome, target: reached ? result.hostID : nil, store: store)
                }
            }
        } catch {
            warn(
                "could not save the hosts' pinned keys and last-connected times: \(ShelfError(from: error).message)")
        }
        let entry = FleetLog.entry(by: by, what: what, item: item, targets: fleet.targets, results: summary.results)
        try FleetLog.record(entry, vault: vault, workspace: workspace)
    }
}

/// Ctrl-C presses, counted on the signal queue.
private final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var value = 0
    func add(_ count: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += count
        return value
    }
}

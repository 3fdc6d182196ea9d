// TUIFleet: the run pane's runs, as `sshelf run` makes them — the guard rails (FleetGuard: a large or protected run
// waits for the typed confirmation), the release log prepared before any host starts, `sshelf run`'s scheduler and
// per-host job (FleetSession, RunCommand.job: warm session or a login with the key verified first, nothing asked
// mid-run, an unknown or changed key skipped), and its release-log entry. Esc in the pane is the run's Ctrl-C. What
// the hosts do goes to the run loop as `FleetPane.Update`, about five times a second.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfServices
import ShelfStore
import ShelfSystem
import ShelfUI

final class TUIFleet: @unchecked Sendable {
    private let context: AppContext
    private let mailbox: Mailbox
    private let prompts: PromptChannel
    private let lock = Lock()
    /// The stop requests of the run under way (one byte per Esc), nil when none runs.
    private var interrupts: WakePipe?
    private var running = false

    init(context: AppContext, mailbox: Mailbox, prompts: PromptChannel) {
        self.context = context
        self.mailbox = mailbox
        self.prompts = prompts
    }

    /// Runs `command` on the hosts in the background (one run at a time: the pane stays until it has ended).
    func start(_ ids: [UUID], command: String, confirmed: Bool) {
        lock.lock()
        guard !running else {
            lock.unlock()
            return
        }
        running = true
        let stops = WakePipe()
        interrupts = stops
        lock.unlock()
        BackgroundThread.start(name: "fleet run") { [self] in
            run(ids, command: command, confirmed: confirmed, stops: stops)
            lock.lock()
            running = false
            interrupts = nil
            lock.unlock()
        }
    }

    /// Esc: one stop request (the first starts no more hosts, the second stops the running ones).
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        interrupts?.signal()
    }

    private func run(_ ids: [UUID], command: String, confirmed: Bool, stops: WakePipe) {
        // Warnings of the vault or the log go to the pane's last line: curses owns the terminal.
        let warnings = Warnings()
        let workspace = context.workspace.warning(to: { warnings.add($0) })
        var fleet = Fleet(targets: [], plans: [])
        do {
            let store = try workspace.openStore()
            fleet = try store.read { store in
                // The pane lists the hosts in the order every report of a run uses (bulk-6 before bulk-59).
                let hosts = try ids.compactMap { try store.host(id: $0) }.sorted {
                    FleetReport.precedes(($0.name, $0.id), ($1.name, $1.id))
                }
                let plans = try hosts.map { try ConnectPlan.make(for: $0, in: store) }
                return Fleet(targets: hosts.map(\.name), plans: plans)
            }
            guard !fleet.plans.isEmpty else { throw ShelfError(.notFound, "the marked hosts are gone") }
            if !confirmed, let reason = FleetGuard.reason(fleet.hosts) {
                mailbox.post(.fleetConfirm(reason: reason, answer: FleetGuard.answer(fleet.hosts)))
                return
            }
            let session = try FleetSession(
                store: store, context: context, by: "run", workspace: workspace, warn: { warnings.add($0) }
            ) { [prompts] in
                let reply = prompts.ask(.vaultPassphrase(prompt: "To log the run, the vault passphrase", input: ""))
                guard case .secret(let passphrase, _) = reply else { return nil }
                return passphrase
            }
            let options = ConnectOptions.standard(workspace)
            let settings = FleetRun.Settings(
                parallel: FleetRun.Settings.defaultParallel, commandTimeout: FleetRun.Settings.defaultCommandTimeout)
            try session.begin(fleet, what: "run", item: FleetLog.commandHash(command))
            let plans = fleet.plans
            let groups = GroupCache()
            let summary = session.run(
                fleet, settings: settings, interrupts: stops.readEnd,
                progress: { [mailbox] progress in
                    mailbox.post(.fleetProgress(Self.update(plans, progress.hosts, ended: false, groups: groups)))
                },
                job: FleetSession.job(command, session: session, options: options, acceptNew: false, context: context))
            var last = FleetReport.summaryLine(summary)
            do {
                try session.finish(summary, fleet: fleet, what: "run", item: FleetLog.commandHash(command))
            } catch {
                warnings.add("the run could not be logged: \(ShelfError(from: error).message)")
            }
            if let warning = warnings.text { last += "; \(warning)" }
            let states = summary.results.map { FleetRun.HostState.finished($0) }
            mailbox.post(.fleetProgress(Self.update(plans, states, ended: true, summary: last, groups: groups)))
        } catch {
            let hosts = fleet.plans.map {
                FleetPane.HostLine(id: $0.target.id, name: Display.safe($0.target.name), state: .notStarted)
            }
            let text = Self.notRun(ShelfError(from: error))
            mailbox.post(.fleetProgress(FleetPane.Update(hosts: hosts, groups: [], ended: true, summary: text)))
        }
    }

    /// A run refused before any host started, with its hint in the TUI's words (the V key, not a flag).
    static func notRun(_ why: ShelfError) -> String {
        "not run: \(why.message)" + (TUIErrorLine.hint(for: why).map { " (\($0))" } ?? "")
    }

    /// What the pane shows of the hosts: each one's state and how it ended, and the outputs of those that ended,
    /// grouped as `sshelf run` prints them.
    static func update(
        _ plans: [ConnectPlan], _ states: [FleetRun.HostState], ended: Bool, summary: String? = nil,
        groups cache: GroupCache = GroupCache()
    ) -> FleetPane.Update {
        var finished: [FleetHostResult] = []
        let hosts = zip(plans, states).enumerated().map { index, pair -> FleetPane.HostLine in
            let (plan, state) = pair
            var line = FleetPane.HostLine(id: plan.target.id, name: Display.safe(plan.target.name), state: .queued)
            switch state {
            case .queued: line.state = ended ? .notStarted : .queued
            case .connecting: line.state = .connecting
            case .running: line.state = .running
            case .finished(let result):
                finished.append(result)
                line.state = lineState(result.outcome)
                line.detail = FleetReport.status(result)
                line.output = cache.output(of: index) { hostOutput(result) }
            }
            return line
        }
        let groups = cache.groups(finished) {
            FleetReport.groups(finished).map { group in
                FleetPane.OutputGroup(
                    hosts: group.hosts.map(Display.safe), stdout: lines(group.stdout), stderr: lines(group.stderr))
            }
        }
        return FleetPane.Update(hosts: hosts, groups: groups, ended: ended, summary: summary)
    }

    /// The grouped outputs of the hosts ended so far, made again only when another host has ended: grouping compares
    /// whole outputs (up to 8 MiB a stream and host), too much to repeat five times a second for nothing.
    final class GroupCache: @unchecked Sendable {
        private var ended = -1
        private var made: [FleetPane.OutputGroup] = []
        /// Each ended host's own output as lines (Enter on the host), made once.
        private var outputs: [Int: [String]] = [:]

        func output(of index: Int, make: () -> [String]) -> [String] {
            if let made = outputs[index] { return made }
            let lines = make()
            outputs[index] = lines
            return lines
        }

        func groups(_ finished: [FleetHostResult], make: () -> [FleetPane.OutputGroup]) -> [FleetPane.OutputGroup] {
            if finished.count != ended {
                ended = finished.count
                made = make()
            }
            return made
        }
    }

    /// One host's whole output for the pane: stdout's lines, then `--- stderr` and stderr's.
    static func hostOutput(_ result: FleetHostResult) -> [String] {
        let stderr = lines(result.stderr, limit: 20_000)
        return lines(result.stdout, limit: 20_000) + (stderr.isEmpty ? [] : ["--- stderr"] + stderr)
    }

    static func lineState(_ outcome: FleetHostResult.Outcome) -> FleetPane.HostLine.State {
        switch outcome {
        case .succeeded: .done
        case .failed, .unreachable, .loginFailed, .connectionLost, .timedOut: .failed
        case .hostKeyRefused: .skipped
        case .killed: .stopped
        case .notStarted: .notStarted
        }
    }

    /// Remote output as lines for the pane: shown safe as `sshelf run` shows it on a terminal (HostOutputText: ESC as
    /// ^[, C1 controls as <U+009B>), tabs as spaces, at most `limit` lines (the pane says how many more).
    static func lines(_ bytes: [UInt8], limit: Int = 1000) -> [String] {
        guard !bytes.isEmpty else { return [] }
        let text = HostOutputText.clean(bytes).replacing("\t", with: "    ")
        var all = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if all.last == "" { all.removeLast() }
        guard all.count > limit else { return all }
        return Array(all.prefix(limit)) + ["… \(all.count - limit) more lines (sshelf run prints them all)"]
    }
}

/// Warnings collected while curses owns the terminal.
private final class Warnings: @unchecked Sendable {
    private let lock = Lock()
    private var list: [String] = []

    func add(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        if !list.contains(text) { list.append(text) }
    }

    var text: String? {
        lock.lock()
        defer { lock.unlock() }
        return list.isEmpty ? nil : list.joined(separator: "; ")
    }
}

// FleetSession: what `run`, `cp` and the TUI's run pane share — the vault and release log prepared before any host
// starts, Ctrl-C turned into the run's two-step stop, the live progress line (terminals only), and what a run leaves
// behind (pinned keys, last-connected times, its release-log entry).
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfSSH
import ShelfStore
import ShelfSystem
import ShelfVault

public struct Fleet {
    public var targets: [String]
    public var plans: [ConnectPlan]
    public var hosts: [ShelfCore.Host] { plans.map(\.target) }

    /// The user every host logs in as for this run (`-l USER`), when it is not each host's own.
    public private(set) var loginUser: String?

    public init(targets: [String], plans: [ConnectPlan]) {
        self.targets = targets
        self.plans = plans
    }

    /// Every host logs in as `user` for this run only (pssh's and pscp's `-l`); its jump hosts keep theirs. A host's
    /// remembered password is its own user's, so it is not offered for another one.
    public mutating func logIn(as user: String) {
        loginUser = user
        for index in plans.indices {
            let last = plans[index].endpoints.count - 1
            guard plans[index].endpoints[last].user != user else { continue }
            plans[index].endpoints[last].user = user
            plans[index].endpoints[last].passwordRef = nil
        }
    }
}

/// One fleet command's run: shared vault and credential lock, signals, progress, and the record it leaves.
public final class FleetSession: @unchecked Sendable {
    private let context: AppContext
    private let store: Store
    private let vault: Vault
    private let by: String
    private let lock = Lock()
    /// Where the vault's and the log's warnings go: the terminal's stderr for the CLI, the run pane in the TUI.
    private let workspace: Workspace
    private let warn: (String) -> Void
    /// Where hosts sshelf's own client cannot log in with the loaded libssh2 go: OpenSSH's ssh (OpenSSHFleet).
    public let openSSH: OpenSSHFleet

    /// Opens the vault and makes sure the release log can take this run's entry before anything starts; a locked
    /// log key is unlocked with what `passphrase` gives (nil: the run does not start).
    public init(
        store: Store, context: AppContext, by: String, workspace: Workspace? = nil,
        warn: ((String) -> Void)? = nil, passphrase: () -> SecretBytes?
    ) throws {
        self.context = context
        self.store = store
        self.by = by
        self.workspace = workspace ?? context.workspace
        self.warn = warn ?? context.warn
        vault = try FleetLog.prepare(self.workspace, what: by == "cp" ? "copy" : "run", passphrase: passphrase)
        openSSH = OpenSSHFleet(store: store, context: context, warn: self.warn)
    }

    /// A host's own credential source (sources keep per-attempt state); lookups of all hosts take one lock.
    public func credentials() -> CredentialSource {
        FleetCredentials(
            workspace: workspace, store: store, vault: vault, releasedBy: by,
            who: "'sshelf \(by)'", lock: lock)
    }

    /// Runs `job` for every host: SIGINT becomes the two-step stop, and a terminal on stderr gets the progress line.
    public func run(
        _ fleet: Fleet, settings: FleetRun.Settings, options: ConnectOptions, json: Bool,
        line: @escaping (FleetRun.Progress) -> String = FleetSession.progressLine,
        job: @escaping Job
    ) -> FleetRun.Summary {
        let interrupts = WakePipe()
        let errorOutput = context.errorOutput
        let presses = Counter()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let messages = Self.stopMessages(settings)
        source.setEventHandler {
            let count = presses.add(Int(source.data))
            StandardStreams.write("\r\u{1B}[K" + (count == 1 ? messages.first : messages.again) + "\n", fd: 2)
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
                    errorOutput("\r\u{1B}[K" + Self.fit(line(progress), columns: TerminalSize.current(2)?.columns))
                } : nil, job: job)
        if live { errorOutput("\r\u{1B}[K") }
        return summary
    }

    public typealias Job = (ConnectPlan, FleetAbort, @escaping @Sendable () -> Void) -> FleetHostResult

    /// What the first Ctrl-C and any later one say: a run lets running hosts finish until the second, a copy stops
    /// them at the first (each removes its temporary file; FleetRun.Settings.stopGrace).
    static func stopMessages(_ settings: FleetRun.Settings) -> (first: String, again: String) {
        guard let grace = settings.stopGrace else {
            return (
                "sshelf: stopping: no more hosts start; running ones may finish (Ctrl-C again stops them)",
                "sshelf: stopping the running hosts"
            )
        }
        let cut = "a host that does not answer within \(TextFormat.fixed(grace, places: 0)) s is cut off"
        return (
            "sshelf: stopping: no more hosts start; running copies stop and remove their temporary files (\(cut))",
            "sshelf: still stopping: running copies are removing their temporary files (\(cut))"
        )
    }

    /// Runs `job` for every host on the fleet scheduler: each byte readable on `interrupts` is one stop request
    /// (the first starts no more hosts, the second stops running ones), `progress` is called while hosts run.
    public func run(
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

    /// The live line cut to one column short of the terminal's width: a line that wrapped would leave a copy of
    /// itself on the screen at every update (a carriage return goes back only to the start of its last row).
    public static func fit(_ line: String, columns: Int?) -> String {
        guard let columns, line.count >= columns else { return line }
        return String(line.prefix(max(1, columns - 1)))
    }

    public static func progressLine(_ progress: FleetRun.Progress) -> String {
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

    /// `SHA256:…` of a pinned key, as ssh-keygen -l prints it.
    public static func fingerprint(_ key: PinnedHostKey) -> String? {
        guard let blob = Data(base64Encoded: key.key) else { return nil }
        let digest = Data(Digest.sha256(Array(blob))).base64EncodedString()
        return "SHA256:" + digest.trimmingScalars(in: "=")
    }

    /// Writes the run's first release-log line, before any host starts: a run (warm or cold alike) whose line
    /// cannot be written sends nothing to any host. Throws `.storage` in the user's words.
    public func begin(_ fleet: Fleet, what: String, item: String) throws {
        let entry = FleetLog.startEntry(
            by: by, what: what, item: item, targets: fleet.targets, hosts: fleet.hosts.map(\.name))
        try FleetLog.record(entry, what: what, vault: vault, workspace: workspace)
    }

    /// Saves what the connections changed (keys pinned with --accept-new, last-connected times) and appends the run's
    /// release-log entry.
    public func finish(_ summary: FleetRun.Summary, fleet: Fleet, what: String, item: String) throws {
        // One transaction for every host: each commit is an fsync, which a host apiece would multiply by the fleet.
        do {
            try store.write { store in
                for result in summary.results {
                    guard let outcome = result.connectOutcome else { continue }
                    let reached = [.succeeded, .failed, .connectionLost].contains(result.outcome)
                    try ConnectPlan.record(outcome, target: reached ? result.hostID : nil, store: store)
                }
            }
        } catch {
            warn(
                "could not save the hosts' pinned keys and last-connected times: \(ShelfError(from: error).message)")
        }
        let entry = FleetLog.entry(by: by, what: what, item: item, targets: fleet.targets, results: summary.results)
        try FleetLog.record(entry, what: what, vault: vault, workspace: workspace)
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

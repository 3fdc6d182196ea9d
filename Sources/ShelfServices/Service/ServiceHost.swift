// ServiceHost: `sshelf service run` — one long-running process per user that hosts the sshelf agent, the forward
// supervisor (autostart rules) and background sync (ServiceSync), and publishes their state (ServiceState). Its
// main thread waits in one poll(2) on two descriptors: a wake pipe (a signal, a part's state changed) and one
// inotify descriptor (the store's WAL, the folder remote; ServiceWatch). Every other wait is the sync thread's
// timer, the agent's socket, or a forward's sockets and keepalives: an idle service does not wake without cause.
// kill -9 at any moment loses nothing (every write it makes is a transaction or an atomic rename; a sync run is
// the same run as `sync now`), and SIGTERM stops each part in turn.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfStore
import ShelfSync
import ShelfSystem

public final class ServiceHost: @unchecked Sendable {
    private let context: AppContext
    private let wake = WakePipe()
    private let lock = Lock()
    private var stopping = false
    private var wakeups = 0
    /// SIGUSR2s handled (main thread only): the state file says so, so whoever asked knows which turn wrote it.
    private var stateRequests = 0
    private var agentState: ServiceState.Agent
    private let started = Date()

    public init(context: AppContext) {
        self.context = context
        agentState = ServiceState.Agent(socket: context.locations.agentSocket, running: false, vault: "starting")
    }

    /// A line for the service's log (its stderr, which `service run` points at service.log). Never a secret.
    public static func log(_ line: String) {
        StandardStreams.write("sshelf service \(ISO8601.format(Date())): \(Display.safe(line))\n", fd: 2)
    }

    private func woke() {
        lock.lock()
        wakeups += 1
        lock.unlock()
    }

    private func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// Runs until SIGTERM or SIGINT. The caller holds the single-instance lock (ServiceFiles.lock).
    public func run() -> Int32 {
        let locations = context.locations
        // Before its threads start: the agent's, the forwards', the sync's — mostly idle, they need no arena each.
        ProcessMemory.limitArenas(2)
        let workspace = context.workspace.warning(to: { Self.log("warning: \($0)") })
        let store: Store
        do { store = try workspace.openStore() } catch {
            Self.log("cannot open the store: \(error)")
            return 1
        }
        // A terminal that closes must not end a service started from ~/.profile with `&`.
        signal(SIGHUP, SIG_IGN)
        // SIGTERM, SIGINT: stop; SIGUSR1: a sync run now (the TUI, `vault unlock`); SIGUSR2: write the state file
        // now — one loop iteration, nothing else (the idle test counts on that).
        guard let signals = SignalPipe([SIGTERM, SIGINT, SIGUSR1, SIGUSR2]) else {
            Self.log("cannot make the signal pipe: \(String(cString: strerror(errno)))")
            return 1
        }
        defer { signals.restore() }
        let log: @Sendable (String) -> Void = { Self.log($0) }
        let changed: @Sendable () -> Void = { [wake] in wake.signal() }
        let sync = ServiceSync(workspace: workspace, log: log, changed: changed, woke: { [self] in woke() })
        let forwards = ServiceForwards(context: context, log: log, changed: changed)
        let watch = ServiceWatch(store: locations.store)
        if watch.fd < 0 { Self.log("inotify is not available: local changes sync on the timer only") }

        var version = try? store.dataVersion()
        var settings = (try? SyncSettings.load(from: store)) ?? nil
        watch.watchRemote(Self.folder(settings))
        let agent = startAgent()
        forwards.reload(store)
        sync.start()
        Self.log(
            "running (pid \(getpid())): agent \(agentSnapshot().running ? "on" : "off"), sync "
                + (settings == nil ? "off" : "on (\(settings?.transport.rawValue ?? ""))"))
        publish(sync, forwards)
        while !isStopping {
            var fds = [
                pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watch.fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            let count = poll(&fds, 3, -1)
            // A signal taken by this thread interrupts the wait; its byte is on the pipe for the next turn.
            if count < 0 && errno == EINTR { continue }
            if count < 0 { break }
            woke()
            if fds[0].revents != 0 { wake.drain() }
            for number in fds[2].revents != 0 ? signals.received() : [] {
                switch number {
                case SIGTERM, SIGINT: stop()
                case SIGUSR1: sync.request(.now("asked by another sshelf"))
                case SIGUSR2: stateRequests += 1
                default: break
                }
            }
            if isStopping { break }
            let events = fds[1].revents != 0 ? watch.read() : ServiceWatch.Events()
            if events.store, let now = try? store.dataVersion(), now != version {
                version = now
                let fresh = (try? SyncSettings.load(from: store)) ?? nil
                if fresh != settings {
                    settings = fresh
                    watch.watchRemote(Self.folder(settings))
                    if fresh != nil { sync.request(.now("sync was turned on or moved")) }
                } else if settings != nil, !sync.isRunning, ((try? SyncSettings.pendingUp(store)) ?? 0) > 0 {
                    sync.request(.localChange)
                }
                forwards.reload(store)
            }
            if events.remote { sync.remoteChanged() }
            if let folder = Self.folder(settings), events.rewatch || !watch.watchingRemote {
                watch.watchRemote(folder)
            }
            publish(sync, forwards)
            // Each turn follows a burst (a sync run, a forward's login, the start-up): what it mapped and freed is
            // given back, so the idle service holds only what its waits use (docs/SERVICE.md, "Memory").
            store.releaseCache()
            ProcessMemory.settle()
        }
        Self.log("stopping")
        sync.stop()
        forwards.stop()
        agent?.stop()
        try? FileManager.default.removeItem(atPath: ServiceFiles.statePath(locations))
        Self.log("stopped")
        return 0
    }

    private func agentSnapshot() -> ServiceState.Agent {
        lock.lock()
        defer { lock.unlock() }
        return agentState
    }

    private func publish(_ sync: ServiceSync, _ forwards: ServiceForwards) {
        forwards.publish()
        lock.lock()
        let count = wakeups
        lock.unlock()
        let state = ServiceState(
            pid: getpid(), started: started, updated: Date(), agent: agentSnapshot(), forwards: forwards.snapshot(),
            sync: sync.snapshot(), wakeups: count, stateRequests: stateRequests)
        do { try ServiceFiles.write(state, context.locations) } catch {
            Self.log("could not write the state file: \(error)")
        }
    }

    /// The folder to watch for a sync setting: a folder remote (a git remote says nothing; it is polled).
    static func folder(_ settings: SyncSettings?) -> String? {
        guard let settings, settings.transport == .folder else { return nil }
        return settings.location
    }

    // MARK: the agent

    /// The agent on its own thread, its socket in the runtime folder as `sshelf agent` has it; nil when it could not
    /// start (another agent runs: its state says so).
    private func startAgent() -> HostedAgent? {
        let hosted = HostedAgent(context: context)
        let outcome = hosted.start()
        lock.lock()
        switch outcome {
        case .success:
            agentState.running = true
            agentState.vault = "serving"
        case .failure(let reason):
            agentState.running = false
            agentState.vault = reason
        }
        lock.unlock()
        if case .failure(let reason) = outcome { Self.log("agent not started: \(reason)") }
        return outcome.isSuccess ? hosted : nil
    }
}

/// The sshelf agent (AgentServer and AgentService, unchanged) run on a thread of the service, stopped through a
/// pipe rather than by its own signal handlers, which belong to the service.
final class HostedAgent: @unchecked Sendable {
    enum Outcome {
        case success
        case failure(String)
        var isSuccess: Bool { if case .success = self { true } else { false } }
    }

    private let context: AppContext
    private let stopPipe = WakePipe()
    private var thread: JoinableThread?

    init(context: AppContext) { self.context = context }

    func start() -> Outcome {
        var channel: [Int32] = [-1, -1]
        guard CloseOnExec.pipe(&channel) == 0 else { return .failure("pipe: \(String(cString: strerror(errno)))") }
        let confirmation = AgentConfirmation(
            locations: context.locations, timeoutSeconds: AgentConfirmation.defaultTimeout, useTerminal: false)
        let service = AgentService(
            context: context, confirmation: confirmation, askPassphrase: nil,
            report: { ServiceHost.log("agent: \($0)") })
        let server = AgentServer(context: context, service: service)
        let ready = channel[1]
        let stop = stopPipe.readEnd
        let thread = JoinableThread(runInlineIfNoThread: false) {
            _ = server.run(ready: ready, foreground: false, hostedStop: stop)
        }
        self.thread = thread
        defer { close(channel[0]) }
        guard thread.isStarted else {
            close(channel[1])
            return .failure("no thread could be started for it")
        }
        let answer = Self.readLine(channel[0])
        guard answer == "ready" else {
            thread.join()
            self.thread = nil
            let reason = answer.map { $0.hasPrefix("error: ") ? String($0.dropFirst(7)) : $0 } ?? "no answer"
            return .failure(reason)
        }
        return .success
    }

    func stop() {
        stopPipe.signal()
        thread?.join()
        thread = nil
    }

    /// The first line written to `fd` (the agent closes it after its one line).
    private static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 4096 {
            let got = read(fd, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got == 1, byte != 0x0a else { break }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}

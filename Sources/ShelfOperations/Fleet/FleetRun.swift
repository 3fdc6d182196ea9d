// FleetRun: runs one job per host on a pool of worker threads (at most `parallel` at once; a slow host holds only its
// own thread, never a queue), canary hosts first, with a command timeout watched from the calling thread. The
// caller's thread waits in poll() for a host to finish, a deadline, a redraw tick or an interrupt: the first
// interrupt stops starting hosts and lets running ones end, the second stops those too — or, for jobs that clean up
// after themselves (a copy), the first asks the running ones to stop and cuts those that do not within a grace.
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSystem

public final class FleetRun: @unchecked Sendable {
    /// One host's job: connect, run, report. Calls `connected` once logged in (its command timeout starts then).
    public typealias Job = (_ index: Int, _ abort: FleetAbort, _ connected: @escaping @Sendable () -> Void)
        -> FleetHostResult

    public struct Settings: Sendable {
        public var parallel: Int
        /// Hosts run first, alone; the rest start only when every one of them succeeded (0: no canary).
        public var canary: Int
        /// Seconds a command may run once logged in (nil: no limit).
        public var commandTimeout: Double?
        /// Set for jobs that stop by themselves when asked (a copy, which removes its temporary file first): the first
        /// interrupt asks every running host to stop (FleetAbort.request) and a host still running `stopGrace`
        /// seconds later is cut (FleetAbort.abort). Nil: the first interrupt lets running hosts end, the second cuts
        /// them at once (`run`).
        public var stopGrace: Double?

        public init(parallel: Int, canary: Int = 0, commandTimeout: Double? = nil, stopGrace: Double? = nil) {
            self.parallel = parallel
            self.canary = canary
            self.commandTimeout = commandTimeout
            self.stopGrace = stopGrace
        }

        /// What `sshelf run` and the TUI's run pane use unless told otherwise.
        public static let defaultParallel = 32
        public static let defaultCommandTimeout = 600.0
    }

    /// What the live progress line shows.
    public struct Progress: Sendable {
        public var total = 0
        public var succeeded = 0
        public var failed = 0
        public var running = 0
        /// The hosts running longest, with their seconds so far, longest first.
        public var slowest: [(name: String, seconds: Double)] = []
        public var stopping = false
        /// Every host's state, in run order (what the TUI's run pane shows line by line).
        public var hosts: [HostState] = []
    }

    /// Where one host is: waiting its turn, connecting (up to its login), running its command, or ended.
    public enum HostState: Sendable {
        case queued
        case connecting
        case running
        case finished(FleetHostResult)
    }

    /// How the run ended, besides each host's result.
    public struct Summary: Sendable {
        public var results: [FleetHostResult]
        /// Hosts did not start because a canary host failed.
        public var canaryStopped = false
        /// Ctrl-C was pressed (once: no new hosts; twice: running ones stopped too).
        public var interrupts = 0
        /// The first Ctrl-C stopped the running hosts too (Settings.stopGrace: a copy).
        public var stopsAtFirst = false
    }

    private struct Active {
        var abort: FleetAbort
        var started: Date
        var loggedIn: Date?
        /// When a host asked to stop is cut if it has not ended (Settings.stopGrace).
        var cutAt: Date?
    }

    private let names: [String]
    private let settings: Settings
    private let job: Job
    private let lock = Lock()
    private var results: [FleetHostResult?]
    private var active: [Int: Active] = [:]
    private var next = 0
    private var limit = 0
    private var stopping = false
    private let finished = WakePipe()
    private var workers: [JoinableThread] = []
    private let now: () -> Date

    /// `names` and `ids` are the hosts in run order; `job(i, …)` runs host i.
    public init(
        names: [String], ids: [UUID], settings: Settings, now: @escaping () -> Date = Date.init, job: @escaping Job
    ) {
        self.names = names
        self.ids = ids
        self.settings = settings
        self.job = job
        self.now = now
        results = Array(repeating: nil, count: names.count)
    }
    private let ids: [UUID]

    /// Runs every host and returns when all started ones ended. `interrupts` is polled: each byte read is one
    /// Ctrl-C. `progress` (nil: none) is called about every `tick` seconds while hosts run.
    public func run(interrupts: Int32 = -1, tick: Double = 0.2, progress: ((Progress) -> Void)? = nil) -> Summary {
        var summary = Summary(results: [])
        summary.stopsAtFirst = settings.stopGrace != nil
        let canary = min(max(settings.canary, 0), names.count)
        startPhase(upTo: canary > 0 ? canary : names.count)
        var canaryPhase = canary > 0
        var lastDraw = Date.distantPast
        while true {
            if phaseOver() {
                if canaryPhase && !stoppingNow {
                    canaryPhase = false
                    let canaryResults = lockedResults().prefix(canary)
                    if canaryResults.contains(where: { $0?.outcome != .succeeded }) {
                        summary.canaryStopped = true
                    } else if canary < names.count {
                        startPhase(upTo: names.count)
                        continue
                    }
                }
                break
            }
            var wait = progress == nil ? 1.0 : max(0, tick - Date().timeIntervalSince(lastDraw))
            if let deadline = enforceTimeouts() { wait = min(wait, max(0, deadline.timeIntervalSince(now()))) }
            var fds = [
                pollfd(fd: finished.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupts, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&fds, interrupts >= 0 ? 2 : 1, Int32(wait * 1000) + 1)
            finished.drain()
            if interrupts >= 0 && fds[1].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                while read(interrupts, &byte, 1) == 1 {
                    summary.interrupts += 1
                    interrupt(second: summary.interrupts >= 2)
                }
            }
            if let progress, Date().timeIntervalSince(lastDraw) >= tick {
                lastDraw = Date()
                progress(snapshot())
            }
        }
        for worker in workers { worker.join() }
        workers.removeAll()
        summary.results = lockedResults().enumerated().map { index, result in
            result ?? FleetHostResult(name: names[index], hostID: ids[index], outcome: .notStarted)
        }
        return summary
    }

    // MARK: workers

    private func startPhase(upTo newLimit: Int) {
        lock.lock()
        limit = newLimit
        let wanted = min(max(settings.parallel, 1), limit - next)
        lock.unlock()
        for _ in 0..<max(0, wanted) { workers.append(JoinableThread { [self] in work() }) }
    }

    private func work() {
        while true {
            lock.lock()
            guard !stopping, next < limit else {
                lock.unlock()
                return
            }
            let index = next
            next += 1
            let abort = FleetAbort()
            active[index] = Active(abort: abort, started: now())
            lock.unlock()
            let result = job(
                index, abort,
                { [self] in
                    lock.lock()
                    active[index]?.loggedIn = now()
                    lock.unlock()
                })
            lock.lock()
            results[index] = result
            active[index] = nil
            lock.unlock()
            finished.signal()
        }
    }

    /// Every host of the phase that will start has ended.
    private func phaseOver() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return active.isEmpty && (stopping || next >= limit)
    }

    private var stoppingNow: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    private func lockedResults() -> [FleetHostResult?] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }

    private func interrupt(second: Bool) {
        lock.lock()
        stopping = true
        if let grace = settings.stopGrace {
            let cutAt = now().addingTimeInterval(grace)
            for index in active.keys where active[index]?.cutAt == nil {
                active[index]?.cutAt = cutAt
                active[index]?.abort.request(.interrupted)
            }
            lock.unlock()
            return
        }
        let running = active.values.map(\.abort)
        lock.unlock()
        if second { for abort in running { abort.abort(.killed) } }
    }

    /// Cuts commands past their timeout, and hosts asked to stop that did not within the grace; returns the next
    /// deadline among the rest.
    private func enforceTimeouts() -> Date? {
        lock.lock()
        let running = active.values.compactMap { entry -> (Date, FleetAbort)? in
            let timeout = settings.commandTimeout.flatMap { timeout in entry.loggedIn?.addingTimeInterval(timeout) }
            guard let deadline = [timeout, entry.cutAt].compactMap({ $0 }).min() else { return nil }
            return (deadline, entry.abort)
        }
        lock.unlock()
        let current = now()
        var nextDeadline: Date? = nil
        for (deadline, abort) in running {
            if deadline <= current {
                abort.abort(.timedOut)
            } else {
                nextDeadline = min(nextDeadline ?? deadline, deadline)
            }
        }
        return nextDeadline
    }

    private func snapshot() -> Progress {
        lock.lock()
        defer { lock.unlock() }
        var progress = Progress()
        progress.total = names.count
        for result in results.compactMap({ $0 }) {
            if result.outcome == .succeeded { progress.succeeded += 1 } else { progress.failed += 1 }
        }
        progress.running = active.count
        let current = now()
        progress.slowest = active.sorted { $0.value.started < $1.value.started }.prefix(3)
            .map { (names[$0.key], current.timeIntervalSince($0.value.started)) }
        progress.stopping = stopping
        progress.hosts = results.indices.map { index in
            if let result = results[index] { return .finished(result) }
            guard let entry = active[index] else { return .queued }
            return entry.loggedIn == nil ? .connecting : .running
        }
        return progress
    }
}

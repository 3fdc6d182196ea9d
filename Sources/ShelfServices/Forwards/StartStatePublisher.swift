// StartStatePublisher: every `forward start` — from its first moment (its rules `starting` while it logs in), then
// twice a second with the running rules' live counts, writes its state to its own file in the runtime directory
// (`forward-start-PID.json`, the supervisor's format, so one reader serves both), where the TUI finds it: rules
// started from another terminal, and those a TUI started and handed over when it quit, show as running in every
// TUI (and a handed-over rule still logging in is not started twice). Removed when the forwards stop. The same look
// notes each connection that could not be carried, with why, on the process's stderr.
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfSSH
import ShelfSystem

public final class StartStatePublisher: @unchecked Sendable {
    private let path: String
    private let timer: DispatchSourceTimer
    /// Serial: `stop()` waits out a write in progress, so no file is left behind after it; `pool` is set on it.
    private let queue = DispatchQueue(label: "sshelf.forward-state")
    private var pool: ForwardPool?

    /// `note` gets a line for each rule whose connections failed since the last look (ConnectionFailureNotes).
    public init(
        hostName: String, rules: [PortForwardRule], fromTUI: Bool, context: AppContext,
        note: @escaping @Sendable (String) -> Void
    ) {
        let notes = ConnectionFailureNotes()
        let path = SupervisorFiles.startStatePath(context.locations, pid: getpid())
        self.path = path
        let started = Date()
        let starting = rules.map { rule in
            RuleState(ruleID: rule.id, host: hostName, spec: "-\(rule.spec.flag) \(rule.spec)", state: .starting)
        }
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in
            let rules = pool.map { $0.status().map { RuleState(status: $0, host: hostName) } } ?? starting
            if pool != nil { for line in notes.lines(rules) { note(line) } }
            let state = SupervisorState(
                pid: getpid(), startedAt: started, updatedAt: Date(), rules: rules,
                fromTUI: fromTUI ? true : nil)
            do {
                try PrivateFiles.ensureDirectory(context.locations.runtimeDirectory)
                try SupervisorFiles.write(state, to: path)
            } catch {
                context.warn("could not write the forward state file: \(error)")
            }
        }
        timer.schedule(deadline: .now(), repeating: 0.5)
        timer.resume()
    }

    /// Logged in and listening: from now on the rules' live state (a rule left out is no longer published).
    public func running(_ pool: ForwardPool) {
        queue.sync { self.pool = pool }
        timer.schedule(deadline: .now(), repeating: 0.5)
    }

    /// Stops publishing and removes the file: a missing file means "not running".
    public func stop() {
        queue.sync { timer.cancel() }
        try? FileManager.default.removeItem(atPath: path)
    }
}

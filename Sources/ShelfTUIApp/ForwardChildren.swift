// ForwardChildren: the forward rules the TUI runs — each one a child `sshelf forward start HOST RULE --from-tui`
// in its own session (no terminal: it can never prompt over curses, and the terminal's Ctrl-C during a session
// does not reach it). They are handed over, not owned: they keep running when the TUI quits (or dies), and every
// TUI finds them again through their state files. Reads every runner's state off the input path — the
// `forward up` supervisor's and each `forward start`'s, whoever started it — and posts what runs.
import Dispatch
import FoundationEssentials
import Glibc
import ShelfCore
import ShelfOperations
import ShelfServices
import ShelfSystem
import ShelfUI

final class ForwardChildren: @unchecked Sendable {
    private struct Child {
        var pid: pid_t
        var logPath: String
        var stopping = false
    }

    private let locations: DataLocations
    private let mailbox: Mailbox
    private let selfPath: String
    private let lock = Lock()
    /// The children this TUI started (it reaps them and reads why one ended).
    private var children: [UUID: Child] = [:]
    /// Rules whose child ended on its own, with the reason (shown until started again).
    private var failures: [UUID: String] = [:]
    /// The `forward start` process (pid) serving each rule a TUI started, as last read: `t` stops it.
    private var handedOver: [UUID: pid_t] = [:]
    private let queue = DispatchQueue(label: "sshelf.tui-forwards")

    init(locations: DataLocations, mailbox: Mailbox, selfPath: String) {
        self.locations = locations
        self.mailbox = mailbox
        self.selfPath = selfPath
    }

    /// The child's command line: this binary's `forward start`, by ids (names are not unique).
    static func arguments(hostID: UUID, ruleID: UUID, allowPublicBind: Bool) -> [String] {
        ["forward", "start", hostID.uuidString.lowercased(), ruleID.uuidString.lowercased(), "--from-tui"]
            + (allowPublicBind ? ["--allow-public-bind"] : [])
    }

    /// Where a rule's child writes its errors: one file per rule, replaced by its next start.
    private func logPath(_ ruleID: UUID) -> String {
        "\(locations.runtimeDirectory)/tui-forward-\(ruleID.uuidString.lowercased()).log"
    }

    /// Starts the rule's child; a notice when it could not even be started.
    func start(ruleID: UUID, hostID: UUID, allowPublicBind: Bool) -> Notice? {
        lock.lock()
        let already = children[ruleID] != nil || handedOver[ruleID] != nil
        lock.unlock()
        guard !already else { return nil }
        do { try PrivateFiles.ensureDirectory(locations.runtimeDirectory) } catch {
            return Notice("cannot start the forward: \(error)", isError: true)
        }
        let logPath = logPath(ruleID)
        let argv = [selfPath] + Self.arguments(hostID: hostID, ruleID: ruleID, allowPublicBind: allowPublicBind)
        switch Self.spawn(argv, logPath: logPath) {
        case .success(let pid):
            lock.lock()
            failures[ruleID] = nil
            children[ruleID] = Child(pid: pid, logPath: logPath)
            lock.unlock()
            refresh()
            return nil
        case .failure(let message):
            return Notice("cannot start the forward: \(message)", isError: true)
        }
    }

    /// Stops the rule's `forward start`: this TUI's child, or one an earlier TUI handed over.
    func stop(ruleID: UUID) {
        lock.lock()
        if var child = children[ruleID] {
            child.stopping = true
            children[ruleID] = child
            kill(child.pid, SIGTERM)
        } else if let pid = handedOver[ruleID], Self.isForwardStart(pid, ruleID: ruleID) {
            kill(pid, SIGTERM)
        }
        lock.unlock()
        refresh()
    }

    /// Reaps ended children and posts every running rule's state, on the background queue.
    func refresh() {
        queue.async { [self] in mailbox.post(.forwardStates(collect())) }
    }

    /// When the TUI quits: the rules it runs keep running (handed over); what to say about them on the terminal.
    func handOver() -> String? {
        lock.lock()
        let running = children.filter { !$0.value.stopping }
        children = [:]
        lock.unlock()
        guard !running.isEmpty else { return nil }
        let pids = running.values.map { String($0.pid) }.sorted().joined(separator: ", ")
        return "sshelf: \(Counted.words(running.count, "forward rule")) started here "
            + "\(running.count == 1 ? "keeps" : "keep") "
            + "running (pid \(pids)); 't' in 'sshelf ui' stops \(running.count == 1 ? "it" : "them")\n"
    }

    private func collect() -> [UUID: ForwardLive] {
        var states: [UUID: ForwardLive] = [:]
        if let supervisor = try? SupervisorFiles.read(locations) {
            for rule in supervisor.rules { states[rule.ruleID] = ForwardLive(rule, runner: .supervisor) }
        }
        var tuiStarted: [UUID: pid_t] = [:]
        for process in SupervisorFiles.startStates(locations) {
            for rule in process.rules {
                // Only a process that runs this rule alone may be stopped for it (`t` stops no other rule).
                let ours = process.fromTUI == true && process.rules.count == 1
                if ours { tuiStarted[rule.ruleID] = process.pid }
                states[rule.ruleID] = ForwardLive(rule, runner: ours ? .tui : .command(pid: process.pid))
            }
        }
        lock.lock()
        defer { lock.unlock() }
        handedOver = tuiStarted
        for (ruleID, child) in children {
            var status: Int32 = 0
            if waitpid(child.pid, &status, WNOHANG) == child.pid {
                children[ruleID] = nil
                if !child.stopping { failures[ruleID] = Self.reason(child, status: status) }
                try? FileManager.default.removeItem(atPath: child.logPath)
                continue
            }
            // Logging in: it publishes once its forwards listen.
            if states[ruleID] == nil { states[ruleID] = ForwardLive(phase: .starting, runner: .tui) }
        }
        for (ruleID, reason) in failures where states[ruleID] == nil {
            states[ruleID] = ForwardLive(phase: .failed, runner: .tui, lastError: reason)
        }
        return states
    }

    /// A pid read from a state file is signalled only while it still is a `forward start` of this rule (a file left by
    /// a crash could name a pid reused by anything).
    private static func isForwardStart(_ pid: pid_t, ruleID: UUID) -> Bool {
        guard let bytes = try? RegularFile.read("/proc/\(pid)/cmdline") else { return false }
        let arguments = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.contains("forward") && arguments.contains("start")
            && arguments.contains(ruleID.uuidString.lowercased())
    }

    /// Why a child ended: its last error line (`sshelf: error: …`), or its exit status.
    private static func reason(_ child: Child, status: Int32) -> String {
        let log = (try? RegularFile.read(child.logPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let prefix = "sshelf: error: "
        if let line = log.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }) {
            return Display.safe(String(line.dropFirst(prefix.count)))
        }
        let signalled = status & 0x7f
        if signalled != 0 { return "ended by signal \(signalled)" }
        return (status >> 8) & 0xff == 0 ? "ended" : "ended with exit \((status >> 8) & 0xff)"
    }

    /// A detached child (new session, no terminal), stderr into a 0600 log the TUI reads the failure reason from.
    private static func spawn(_ argv: [String], logPath: String) -> Result<pid_t, SpawnFailure> {
        DetachedProcess.spawn(argv, stderrPath: logPath).mapError {
            SpawnFailure(message: String(cString: strerror($0.code)))
        }
    }
}

private struct SpawnFailure: Error {
    var message: String
}

extension ForwardLive {
    /// The TUI's view of one rule's published state.
    init(_ rule: RuleState, runner: Runner) {
        let phase: Phase =
            switch rule.state {
            case .starting: .starting
            case .active: .active
            case .retrying: .retrying
            case .failed: .failed
            }
        self.init(
            phase: phase, runner: runner, boundPort: rule.boundPort, activeConnections: rule.activeConnections,
            totalConnections: rule.totalConnections, bytesOut: rule.bytesOut, bytesIn: rule.bytesIn,
            lastError: rule.lastError(wordedBy: TUIErrorLine.words).map(Display.safe), nextAttempt: rule.nextAttempt)
    }
}

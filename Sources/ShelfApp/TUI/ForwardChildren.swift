// ForwardChildren: the forward rules the TUI runs — each one a child `sshelf forward start HOST RULE
// --tui-state FILE` in its own session (no terminal: it can never prompt over curses, and the terminal's
// Ctrl-C during a session does not reach it), stopped with SIGTERM on the second `t` or when the TUI quits.
// Reads their state files and the `forward up` supervisor's off the input path and posts what runs.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfSystem
import ShelfUI

final class ForwardChildren: @unchecked Sendable {
    private struct Child {
        var pid: pid_t
        var statePath: String
        var logPath: String
        var stopping = false
    }

    private let locations: DataLocations
    private let mailbox: Mailbox
    private let selfPath: String
    private let lock = NSLock()
    private var children: [UUID: Child] = [:]
    /// Rules whose child ended on its own, with the reason (shown until started again).
    private var failures: [UUID: String] = [:]
    private let queue = DispatchQueue(label: "sshelf.tui-forwards")

    init(locations: DataLocations, mailbox: Mailbox, selfPath: String) {
        self.locations = locations
        self.mailbox = mailbox
        self.selfPath = selfPath
        queue.async { [locations] in Self.removeLeftovers(locations) }
    }

    /// Files of children whose TUI died without quitting (the children stop by themselves; their logs stay).
    private static func removeLeftovers(_ locations: DataLocations) {
        let directory = locations.runtimeDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix("tui-") {
            let parts = name.split(separator: "-")
            guard parts.count > 2, let pid = Int32(parts[1]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        }
    }

    /// The child's command line: this binary's `forward start`, by ids (names are not unique).
    static func arguments(hostID: UUID, ruleID: UUID, statePath: String, allowPublicBind: Bool) -> [String] {
        ["forward", "start", hostID.uuidString.lowercased(), ruleID.uuidString.lowercased(), "--tui-state", statePath]
            + (allowPublicBind ? ["--allow-public-bind"] : [])
    }

    /// Starts the rule's child; a notice when it could not even be started.
    func start(ruleID: UUID, hostID: UUID, allowPublicBind: Bool) -> Notice? {
        lock.lock()
        let already = children[ruleID] != nil
        lock.unlock()
        guard !already else { return nil }
        do { try PrivateFiles.ensureDirectory(locations.runtimeDirectory) } catch {
            return Notice("cannot start the forward: \(error)", isError: true)
        }
        let base = "\(locations.runtimeDirectory)/tui-\(getpid())-\(ruleID.uuidString.lowercased())"
        let statePath = base + ".json"
        let logPath = base + ".log"
        try? FileManager.default.removeItem(atPath: statePath)
        let argv = [selfPath] + Self.arguments(hostID: hostID, ruleID: ruleID, statePath: statePath,
                                               allowPublicBind: allowPublicBind)
        switch Self.spawn(argv, logPath: logPath) {
        case .success(let pid):
            lock.lock()
            failures[ruleID] = nil
            children[ruleID] = Child(pid: pid, statePath: statePath, logPath: logPath)
            lock.unlock()
            refresh()
            return nil
        case .failure(let message):
            return Notice("cannot start the forward: \(message)", isError: true)
        }
    }

    func stop(ruleID: UUID) {
        lock.lock()
        if var child = children[ruleID] {
            child.stopping = true
            children[ruleID] = child
            kill(child.pid, SIGTERM)
        }
        lock.unlock()
        refresh()
    }

    /// Reaps ended children and posts every running rule's state, on the background queue.
    func refresh() {
        queue.async { [self] in mailbox.post(.forwardStates(collect())) }
    }

    /// When the TUI quits: SIGTERM to every child, wait for each (SIGKILL after 5 s), remove their files.
    func stopAll() {
        lock.lock()
        let all = children
        children = [:]
        lock.unlock()
        for child in all.values { kill(child.pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        for child in all.values {
            var status: Int32 = 0
            while waitpid(child.pid, &status, WNOHANG) == 0 {
                if Date() > deadline { kill(child.pid, SIGKILL) }
                usleep(20_000)
            }
            Self.remove(child)
        }
    }

    private func collect() -> [UUID: ForwardLive] {
        var states: [UUID: ForwardLive] = [:]
        if let supervisor = try? SupervisorFiles.read(locations) {
            for rule in supervisor.rules { states[rule.ruleID] = ForwardLive(rule, runner: .supervisor) }
        }
        lock.lock()
        defer { lock.unlock() }
        for (ruleID, child) in children {
            var status: Int32 = 0
            if waitpid(child.pid, &status, WNOHANG) == child.pid {
                children[ruleID] = nil
                if !child.stopping { failures[ruleID] = Self.reason(child, status: status) }
                Self.remove(child)
                continue
            }
            let published = (try? RegularFile.read(child.statePath)).flatMap { SupervisorFiles.decode(Data($0)) }
            if let rule = published?.rules.first(where: { $0.ruleID == ruleID }) {
                states[ruleID] = ForwardLive(rule, runner: .tui)
            } else {
                states[ruleID] = ForwardLive(phase: .starting, runner: .tui)
            }
        }
        for (ruleID, reason) in failures where states[ruleID] == nil {
            states[ruleID] = ForwardLive(phase: .failed, runner: .tui, lastError: reason)
        }
        return states
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

    private static func remove(_ child: Child) {
        try? FileManager.default.removeItem(atPath: child.statePath)
        try? FileManager.default.removeItem(atPath: child.logPath)
    }

    /// A detached child (new session, no terminal), stderr into a 0600 log the TUI reads the failure reason from.
    private static func spawn(_ argv: [String], logPath: String) -> Result<pid_t, SpawnFailure> {
        DetachedProcess.spawn(argv, stderrPath: logPath).mapError { SpawnFailure(message: String(cString: strerror($0.code))) }
    }
}

private struct SpawnFailure: Error {
    var message: String
}

extension ForwardLive {
    /// The TUI's view of one rule's published state.
    init(_ rule: RuleState, runner: Runner) {
        let phase: Phase = switch rule.state {
        case .starting: .starting
        case .active: .active
        case .retrying: .retrying
        case .failed: .failed
        }
        self.init(
            phase: phase, runner: runner, boundPort: rule.boundPort, activeConnections: rule.activeConnections,
            totalConnections: rule.totalConnections, bytesOut: rule.bytesOut, bytesIn: rule.bytesIn,
            lastError: rule.lastError.map(Display.safe), nextAttempt: rule.nextAttempt)
    }
}

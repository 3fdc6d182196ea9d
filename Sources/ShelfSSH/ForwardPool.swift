// ForwardPool: runs a host's forward rules over one or more logged-in sessions of that host — one ForwardEngine per
// session, each on its own thread (the first on the caller's) — so the connections of a rule with `sessions N`
// spread over N libssh2 sessions and as many cores. One session ending ends them all; the caller reconnects.
import FoundationEssentials
import ShelfCore
import ShelfSystem

public final class ForwardPool: @unchecked Sendable {
    private let engines: [ForwardEngine]
    private let rules: [PortForwardRule]
    private let lock = Lock()
    private var firstFailure: SSHError?

    /// The sessions these rules need: the largest `sessions` among the -L and -D rules (-R always uses one).
    public static func sessionsNeeded(for rules: [PortForwardRule]) -> Int {
        rules.filter { $0.kind != .remote }.map { min(max($0.sessions, 1), PortForwardRule.sessionLimit) }.max() ?? 1
    }

    /// One engine per connection; the first listens (and holds every -R listener), the others take the connections
    /// it hands them. Nothing is left listening when it throws. With `skipFailedRules`, a rule that cannot listen is
    /// left out (see `failedRules`) and the others run; it throws only when none can.
    public init(
        connections: [SSHConnection], rules: [PortForwardRule], hostName: String,
        skipFailedRules: Bool = false
    ) throws(SSHError) {
        guard !connections.isEmpty else {
            throw SSHError(.invalidConfiguration, "no session to run \(hostName)'s forwards on")
        }
        let balancer = connections.count > 1 ? ForwardBalancer(sessions: connections.count) : nil
        let first = try ForwardEngine(
            connection: connections[0], rules: rules, hostName: hostName, member: balancer.map { (0, $0) },
            skipFailedRules: skipFailedRules)
        failedRules = first.failedRules
        // The other sessions serve exactly the rules the first one listens for, in the same order.
        let left = Set(first.failedRules.map(\.rule.id))
        let running = rules.filter { !left.contains($0.id) }
        self.rules = running
        var made = [first]
        if let balancer {
            for (index, connection) in connections.enumerated().dropFirst() {
                made.append(
                    try ForwardEngine(
                        connection: connection, rules: running, hostName: hostName, member: (index, balancer)))
            }
            balancer.attach(made)
        }
        engines = made
    }

    /// The rules left out because their listening side could not be opened (only with `skipFailedRules`).
    public let failedRules: [ForwardEngine.RuleFailure]

    public var sessionCount: Int { engines.count }

    /// Each rule's status over all sessions: counts and bytes summed, the newest error, and for a rule spread over
    /// several sessions the connections each one carried (safe from any thread).
    public func status() -> [ForwardStatus] {
        let perSession = engines.map { $0.status() }
        guard perSession.count > 1 else { return perSession.first ?? [] }
        return perSession[0].indices.map { index in
            var merged = perSession[0][index]
            for statuses in perSession.dropFirst() where statuses.indices.contains(index) {
                let other = statuses[index]
                merged.activeConnections += other.activeConnections
                merged.totalConnections += other.totalConnections
                merged.failedConnections += other.failedConnections
                merged.bytesOut += other.bytesOut
                merged.bytesIn += other.bytesIn
                if let at = other.lastErrorAt, at > (merged.lastErrorAt ?? .distantPast) {
                    merged.lastError = other.lastError
                    merged.lastErrorAt = at
                }
            }
            let spread = rules.indices.contains(index) ? min(rules[index].sessions, engines.count) : 1
            if spread > 1 {
                merged.connectionsPerSession = perSession.prefix(spread).map {
                    $0.indices.contains(index) ? $0[index].totalConnections : 0
                }
            }
            return merged
        }
    }

    /// Ends `run()` on every session (safe from any thread and from a signal source).
    public func stop() {
        for engine in engines { engine.stop() }
    }

    /// Moves data until `stop()` or until any session is lost (thrown as that session's error).
    public func run() throws(SSHError) {
        var threads: [JoinableThread] = []
        for engine in engines.dropFirst() {
            let thread = JoinableThread(runInlineIfNoThread: false) { [self] in
                do throws(SSHError) { try engine.run() } catch { record(error) }
                stop()
            }
            threads.append(thread)
            if !thread.isStarted {
                record(SSHError(.network, "could not start a thread for another session of the forward"))
            }
        }
        if failure() == nil {
            do throws(SSHError) { try engines[0].run() } catch { record(error) }
        }
        stop()
        for thread in threads { thread.join() }
        if let failure = failure() { throw failure }
    }

    private func record(_ error: SSHError) {
        lock.lock()
        if firstFailure == nil { firstFailure = error }
        lock.unlock()
    }

    private func failure() -> SSHError? {
        lock.lock()
        defer { lock.unlock() }
        return firstFailure
    }
}

// ForwardBalancer: spreads a host's forwarded connections over its sessions — each new local connection goes to the
// session with the fewest open connections (ties in turn), and is handed to that session's engine if it is not
// the one that accepted it. Shared by the engines of one ForwardPool, each on its own thread.
import FoundationEssentials
import Glibc
import ShelfCore

final class ForwardBalancer: @unchecked Sendable {
    private let lock = Lock()
    /// Open connections per session, counted from the moment a session is chosen until the engine retires the link.
    private var load: [Int]
    private var next = 0
    private var engines: [Weak] = []

    private struct Weak {
        weak var engine: ForwardEngine?
    }

    init(sessions: Int) {
        load = Array(repeating: 0, count: max(1, sessions))
    }

    var sessions: Int { load.count }

    func attach(_ engines: [ForwardEngine]) {
        lock.lock()
        self.engines = engines.map { Weak(engine: $0) }
        lock.unlock()
    }

    /// The session for a new connection of a rule spread over its first `spread` sessions; counted there.
    func assign(spread: Int) -> Int {
        let count = max(1, min(spread, load.count))
        lock.lock()
        defer { lock.unlock() }
        guard count > 1 else {
            load[0] += 1
            return 0
        }
        var best = next % count
        for step in 1..<count {
            let index = (next + step) % count
            if load[index] < load[best] { best = index }
        }
        next = (best + 1) % count
        load[best] += 1
        return best
    }

    /// A connection that arrived on `session` itself (a -R channel the server sent there).
    func add(_ session: Int) {
        lock.lock()
        load[session] += 1
        lock.unlock()
    }

    func release(_ session: Int) {
        lock.lock()
        load[session] -= 1
        lock.unlock()
    }

    /// Gives an accepted socket to another session's engine (closed if that engine is already gone).
    func handOff(_ fd: Int32, forward: Int, to session: Int) {
        lock.lock()
        let engine = engines.indices.contains(session) ? engines[session].engine : nil
        lock.unlock()
        guard let engine, engine.adopt(fd, forward: forward) else {
            close(fd)
            release(session)
            return
        }
    }
}

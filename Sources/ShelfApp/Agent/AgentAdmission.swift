// AgentAdmission: which connections the agent keeps, so that one client cannot shut the others out — at most
// `perClient` open from one process (its pid from SO_PEERCRED: the uid is the same for every client admitted), none
// idle between messages for longer than `idle`, and when all `total` places are taken the connection idle longest
// makes way for a newcomer. A connection in the middle of a request (a confirmation or a passphrase back-off
// included) is never closed. Time is a monotonic clock that is injected, so a test moves it instead of waiting.
import FoundationEssentials

struct AgentAdmission {
    /// Connections one process may hold open; its next one closes its own idle-longest first.
    static let perClient = 16
    /// Connections served at once; a thread each.
    static let total = 64
    /// How long a connection may wait between messages before the agent closes it.
    static let idle: Duration = .seconds(300)

    /// What to do with a new connection.
    enum Decision: Equatable {
        /// Serve it, after closing `closing` (an idle connection making way), if any.
        case admit(closing: Int32?)
        /// Close it unanswered: every place it could take is busy with a request.
        case refuse(String)
    }

    private struct Entry {
        var pid: Int32
        var lastActive: ContinuousClock.Instant
        var busy: Bool
    }

    private let perClient: Int
    private let total: Int
    private let idle: Duration
    private let now: () -> ContinuousClock.Instant
    private var entries: [Int32: Entry] = [:]

    init(
        perClient: Int = Self.perClient, total: Int = Self.total, idle: Duration = Self.idle,
        now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.perClient = perClient
        self.total = total
        self.idle = idle
        self.now = now
    }

    var count: Int { entries.count }

    /// Decides on connection `fd` from process `pid`; an admitted one is counted (idle) until `removed`.
    mutating func admit(_ fd: Int32, pid: Int32) -> Decision {
        let own = entries.filter { $0.value.pid == pid }
        var closing: Int32? = nil
        if own.count >= perClient {
            guard let oldest = Self.idleLongest(own) else {
                return .refuse("its process has \(perClient) connections open, each in the middle of a request")
            }
            closing = oldest
        } else if entries.count >= total {
            guard let oldest = Self.idleLongest(entries) else {
                return .refuse("all \(total) connections are in the middle of a request")
            }
            closing = oldest
        }
        if let closing { entries[closing] = nil }
        entries[fd] = Entry(pid: pid, lastActive: now(), busy: false)
        return .admit(closing: closing)
    }

    /// A request began on `fd` (its first bytes arrived): the connection is not idle until it is answered.
    mutating func began(_ fd: Int32) {
        entries[fd]?.busy = true
    }

    /// The answer went out: the idle time starts again.
    mutating func answered(_ fd: Int32) {
        entries[fd]?.busy = false
        entries[fd]?.lastActive = now()
    }

    mutating func removed(_ fd: Int32) {
        entries[fd] = nil
    }

    /// Connections idle for `idle` or longer, now no longer counted: the caller closes them.
    mutating func expired() -> [Int32] {
        let limit = now() - idle
        let old = entries.filter { !$0.value.busy && $0.value.lastActive <= limit }.map(\.key).sorted()
        for fd in old { entries[fd] = nil }
        return old
    }

    /// The connection waiting longest since its last answer, among those not in a request.
    private static func idleLongest(_ entries: [Int32: Entry]) -> Int32? {
        entries.filter { !$0.value.busy }.min { ($0.value.lastActive, $0.key) < ($1.value.lastActive, $1.key) }?.key
    }
}

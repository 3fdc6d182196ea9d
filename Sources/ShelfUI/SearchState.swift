// SearchState: the TUI's search — the query, its ranked results (HostMatcher: the rule `sshelf list` uses),
// its scope (every host by default, or only the selected group's), and the matches of the shorter queries
// it grew from, so each key filters only what can still match. A change marks the search pending; the run
// loop runs it once no key is waiting (a burst of typing filters once), and the reducer runs it at once for
// small lists and before any key that acts on the results (Enter never acts on stale rows).
import ShelfCore

public struct SearchState: Sendable, Equatable {
    /// The query as typed.
    public var query = ""
    /// True while keys go into the query (after `/`, until Enter or Esc).
    public var typing = false
    /// Matching rows, best first (complete once `isRunning` is false; the order past the first screenfuls is worked
    /// out when a row there is first read).
    public var results: RankedRows = []
    /// Search every host (the default) or only the selected group's (Tab switches while typing).
    public var allHosts = true
    /// True between a change of query or scope and the run that brings its results.
    public private(set) var isRunning = false
    /// Matched rows, in list order, of queries the current one grew from (shortest first).
    var history: [(query: HostQuery, rows: [Int32])] = []

    /// Up to this many candidates a key filters at once (well under a millisecond); above, the run loop does.
    public static let immediateLimit = 20_000

    public init() {}

    public var isActive: Bool { query.contains { !$0.isWhitespace } }

    public static func == (a: SearchState, b: SearchState) -> Bool {
        a.query == b.query && a.typing == b.typing && a.results == b.results && a.allHosts == b.allHosts
            && a.isRunning == b.isRunning
    }

    /// Sets a new query; its results come from the next `run`.
    mutating func setQuery(_ newQuery: String) {
        query = newQuery
        guard isActive else {
            results = []
            history = []
            isRunning = false
            return
        }
        isRunning = true
    }

    /// The candidates changed (group, scope, sort, reload): the next run starts from them.
    mutating func restart() {
        history = []
        isRunning = isActive
    }

    /// Filters and ranks: over the matches of the longest shorter query this one grew from, else over all
    /// `candidates` (in list order, so ties keep it).
    mutating func run(matcher: HostMatcher, candidates: [Int32]) {
        let parsed = HostQuery(query)
        guard !parsed.isEmpty else {
            results = []
            history = []
            isRunning = false
            return
        }
        history.removeAll { !parsed.refines($0.query) }
        let base = history.last?.rows ?? candidates
        let matches = matcher.matches(parsed, in: base)
        if history.last?.query != parsed {
            history.append((parsed, matches.rows))
            // Keep the memory of old prefixes bounded: the newest entries are the useful ones.
            var total = history.reduce(0) { $0 + $1.rows.count }
            while history.count > 1, total > 4 * max(candidates.count, 1) {
                total -= history.removeFirst().rows.count
            }
        }
        results = matcher.rankedLazily(matches)
        isRunning = false
    }
}

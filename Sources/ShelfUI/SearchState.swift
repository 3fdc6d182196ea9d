// SearchState: the incremental filter. Each keystroke starts a job over the smallest candidate set that can
// still match (the previous results when the query only grew); the app runs it in chunks between input
// polls, so typing and drawing never wait for 100,000 hosts to be scanned.
public struct SearchState: Sendable, Equatable {
    /// The query as typed.
    public var query = ""
    /// True while keys go into the query (after `/`, until Enter or Esc).
    public var typing = false
    /// Matching entry indices, best first once the job is complete.
    public var results: [Int] = []
    public var job: FilterJob?
    /// Completed results of shorter queries, so Backspace is instant.
    var history: [(query: String, results: [Int])] = []

    public static let chunkSize = 4096

    public var isActive: Bool { !query.trimmingCharacters(in: .whitespaces).isEmpty }
    public var isRunning: Bool { job != nil }

    public static func == (a: SearchState, b: SearchState) -> Bool {
        a.query == b.query && a.typing == b.typing && a.results == b.results && a.job == b.job
    }

    /// Sets a new query and prepares the job that will produce its results.
    mutating func setQuery(_ newQuery: String, scoped: [Int]) {
        let old = query
        query = newQuery
        if !isActive {
            job = nil
            results = []
            history = []
            return
        }
        history.removeAll { !newQuery.hasPrefix($0.query) }
        if let cached = history.last(where: { $0.query == newQuery }) {
            job = nil
            results = cached.results
            return
        }
        let terms = Fuzzy.terms(newQuery)
        var candidates = scoped
        if !old.isEmpty, newQuery.hasPrefix(old), Fuzzy.terms(old).count <= terms.count {
            // Everything that matches the longer query matched the shorter one.
            if let running = job {
                candidates = running.found.map(\.entry) + running.candidates[running.next...]
            } else {
                candidates = results
            }
        } else if let base = history.last {
            candidates = base.results
        }
        job = FilterJob(query: newQuery, terms: terms, candidates: candidates)
        results = []
    }

    /// Re-runs the current query over a new scope (group change, reload, sort change).
    mutating func restart(scoped: [Int]) {
        history = []
        guard isActive else { return }
        job = FilterJob(query: query, terms: Fuzzy.terms(query), candidates: scoped)
        results = []
    }

    /// Runs one chunk; returns true when the job finished.
    @discardableResult
    mutating func step(entries: [HostEntry], chunk: Int = SearchState.chunkSize) -> Bool {
        guard var running = job else { return true }
        running.run(entries: entries, limit: chunk)
        if running.isDone {
            results = running.ranked()
            history.append((running.query, results))
            job = nil
            return true
        }
        results = running.found.map(\.entry)
        job = running
        return false
    }

    /// Runs the job to completion (tests, and small stores where chunking buys nothing).
    mutating func finish(entries: [HostEntry]) {
        while !step(entries: entries, chunk: Int.max) {}
    }
}

public struct FilterJob: Sendable, Equatable {
    public var query: String
    var terms: [[UInt32]]
    var candidates: [Int]
    var next = 0
    var found: [(entry: Int, score: Int)] = []

    init(query: String, terms: [[UInt32]], candidates: [Int]) {
        self.query = query
        self.terms = terms
        self.candidates = candidates
        found.reserveCapacity(min(candidates.count, 1024))
    }

    public static func == (a: FilterJob, b: FilterJob) -> Bool {
        a.query == b.query && a.next == b.next && a.candidates == b.candidates
    }

    public var isDone: Bool { next >= candidates.count }
    public var progress: Double { candidates.isEmpty ? 1 : Double(next) / Double(candidates.count) }

    mutating func run(entries: [HostEntry], limit: Int) {
        let end = limit >= candidates.count - next ? candidates.count : next + limit
        while next < end {
            let index = candidates[next]
            let entry = entries[index]
            if let match = Fuzzy.match(terms, in: entry.search, nameEnd: entry.destinationStart - 1) {
                found.append((index, match.score))
            }
            next += 1
        }
    }

    /// Best score first; ties keep the list's order.
    func ranked() -> [Int] {
        found.enumerated().sorted {
            $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset
        }.map(\.element.entry)
    }
}

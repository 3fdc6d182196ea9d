// HostMatcher: the one search rule, shared by `sshelf list FILTER` and the TUI. Every whitespace-separated
// term must match within ONE field of a host — its name, host name, user, one of its tags, one of its aliases, or
// its group path — fuzzily and scored (FuzzyScore), or, written `:2222`, the start of its port; a host's score is the
// sum of each term's best field (a name field scores 2 more, so the name wins a tie with the address). Results rank by
// score, ties by last connected (most recent first, never last), then by the order they were listed in. Large candidate
// sets are split across cores.
import Dispatch
import FoundationEssentials
import Glibc

/// A search as typed, folded once (lower case, no accents) into its terms.
public struct HostQuery: Sendable, Equatable {
    public let text: String
    public let terms: [[UInt8]]

    public init(_ text: String) {
        self.text = text
        terms = text.split(whereSeparator: { $0.isWhitespace }).map { Array(HostSearch.fold(String($0)).utf8) }
            .filter { !$0.isEmpty }
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// True when every host that matches `self` also matches `shorter`: the query only grew by typing, so
    /// the shorter query's results are enough candidates.
    public func refines(_ shorter: HostQuery) -> Bool { !shorter.isEmpty && text.hasPrefix(shorter.text) }
}

/// Matched rows in candidate order, with their scores.
public struct HostMatches: Sendable, Equatable {
    public var rows: [Int32] = []
    public var scores: [Int32] = []

    public init() {}

    public var count: Int { rows.count }
}

/// Where a host's terms matched, as character offsets into each displayed field.
public struct HostHighlights: Sendable, Equatable {
    public var name: [Int] = []
    public var hostname: [Int] = []
    public var user: [Int] = []
    public var tags: [Int: [Int]] = [:]
    public var group: [Int] = []

    public init() {}
}

public struct HostMatcher: Sendable {
    public let table: HostTable
    /// Folded group paths by the table's group index.
    let groupPaths: [[UInt8]]
    let groupDisplay: [String]

    /// Recency rank (0: most recent) of every host ever connected to; ties among them rank by it.
    private(set) var recentRank: RecentRanks

    public static let nameBonus: Int32 = 2
    /// Below this many candidates one core is quicker than waking a second.
    public static let parallelThreshold = 8192

    /// `groupPaths[i]` is the path (`prod/eu`) of `table.groupIDs[i]`, empty when that group is gone.
    public init(table: HostTable, groupPaths: [String]) {
        self.table = table
        groupDisplay = groupPaths
        self.groupPaths = groupPaths.map { Array(HostSearch.fold($0).utf8) }
        var bits = [UInt64](repeating: 0, count: (table.count + 63) / 64)
        for row in table.recentRows { bits[Int(row) / 64] |= 1 << UInt64(Int(row) % 64) }
        recentRank = RecentRanks(table.recentRows)
        recentBits = bits
    }

    /// One bit per row: ever connected. Ranking tests this for every match; the rank lookup only for hits.
    private(set) var recentBits: [UInt64]

    /// The same matcher with ties ranked by another recency order (`rows`, most recent first): the TUI keeps the
    /// order a search had while the user moves through it, though a connect since changed who was connected last.
    public func withRecency(_ rows: [Int32]) -> HostMatcher {
        var copy = self
        var bits = [UInt64](repeating: 0, count: (table.count + 63) / 64)
        for row in rows { bits[Int(row) / 64] |= 1 << UInt64(Int(row) % 64) }
        copy.recentRank = RecentRanks(rows)
        copy.recentBits = bits
        return copy
    }

    @inline(__always)
    func isRecent(_ row: Int32) -> Bool { recentBits[Int(row) / 64] & (1 << UInt64(Int(row) % 64)) != 0 }

    // MARK: matching

    /// The best score of every term in every group path (-1: no match), computed once per query (groups are
    /// few): `scores[term * groupCount + group]`.
    func groupScores(_ query: HostQuery) -> [Int32] {
        query.terms.flatMap { term in
            term.withUnsafeBufferPointer { term in
                groupPaths.map { path in
                    path.withUnsafeBufferPointer { FuzzyScore.score(term, in: $0) } ?? -1
                }
            }
        }
    }

    /// The score of row `row`, or nil when a term matches none of its fields.
    public func score(_ row: Int, _ query: HostQuery) -> Int32? {
        guard !query.isEmpty else { return 0 }
        let groups = groupScores(query)
        return withTerms(query) { terms in groups.withUnsafeBufferPointer { score(row, terms, $0) } }
    }

    func withTerms<R>(_ query: HostQuery, _ body: ([UnsafeBufferPointer<UInt8>]) -> R) -> R {
        // The terms live as long as the query; their buffers are stable for the call.
        let pointers = query.terms.map { term -> UnsafeMutableBufferPointer<UInt8> in
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: term.count)
            _ = buffer.initialize(from: term)
            return buffer
        }
        defer { pointers.forEach { $0.deallocate() } }
        return body(pointers.map { UnsafeBufferPointer($0) })
    }

    @inline(__always)
    func score(_ row: Int, _ terms: [UnsafeBufferPointer<UInt8>], _ groups: UnsafeBufferPointer<Int32>) -> Int32? {
        let text = table.searchText(row)
        let group = table.groupIndex(row)
        let groupCount = groupPaths.count
        let n = text.count
        var total: Int32 = 0
        for t in 0..<terms.count {
            let term = terms[t]
            if HostMatcher.isPortTerm(term) {
                guard let s = HostMatcher.portScore(term, port: table.port(row)) else { return nil }
                total += s
                continue
            }
            var best: Int32 = group >= 0 && group < groupCount ? groups[t * groupCount + group] : -1
            if term.count == 1 {
                // One character (the first key of most searches): one pass over the whole text.
                best = max(best, HostMatcher.scoreOne(term[0], in: text, oneByteField: table.hasOneByteField(row)))
                if best < 0 { return nil }
                total += best
                continue
            }
            // Cheap rejection: the term's bytes in order anywhere in the host's text (separators ignored).
            if best < 0 && !HostMatcher.isSubsequence(term, of: text) { return nil }
            var fieldStart = 0
            var fieldNumber = 0
            while fieldStart <= n {
                let fieldEnd = FuzzyScore.find(HostTable.separator, in: text, from: fieldStart) ?? n
                if fieldEnd - fieldStart >= term.count {
                    let field = UnsafeBufferPointer(rebasing: text[fieldStart..<fieldEnd])
                    if var s = FuzzyScore.score(term, in: field) {
                        if fieldNumber == 0 { s += HostMatcher.nameBonus }
                        if s > best { best = s }
                    }
                }
                fieldStart = fieldEnd + 1
                fieldNumber += 1
            }
            if best < 0 { return nil }
            total += best
        }
        return min(max(total, 0), Int32(UInt16.max))
    }

    /// The best score of a one-character term over every field of a host's text at once: the same score the
    /// per-field path gives (field and word starts, a whole one-character field, the name's bonus). It stops as soon
    /// as no later occurrence can score more: the whole-field bonus is possible only in a host with a one-byte field
    /// (`oneByteField`, from the catalog's flags), so for nearly every host a field start ends the search, and a name
    /// that starts with the character ends it at its first byte.
    @inline(__always)
    static func scoreOne(_ byte: UInt8, in text: UnsafeBufferPointer<UInt8>, oneByteField: Bool) -> Int32 {
        guard let base = text.baseAddress else { return -1 }
        let n = text.count
        let nameEnd = FuzzyScore.find(HostTable.separator, in: text, from: 0) ?? n
        let current = FuzzyScore.charClass(byte)
        // The most an occurrence can score after the name, and in it.
        let afterName =
            FuzzyScore.scoreMatch + FuzzyScore.bonusBoundaryWhite * FuzzyScore.bonusFirstCharMultiplier
            + (oneByteField ? FuzzyScore.bonusExact : 0)
        let inName = afterName + nameBonus
        var best: Int32 = -1
        var from = 0
        while from < n, let hit = memchr(base + from, Int32(byte), n - from) {
            let i = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            let fieldStart = i == 0 || text[i - 1] == HostTable.separator
            let previous = fieldStart ? FuzzyScore.CharClass.white : FuzzyScore.charClass(text[i - 1])
            var s = FuzzyScore.scoreMatch + FuzzyScore.bonus(previous, current) * FuzzyScore.bonusFirstCharMultiplier
            if fieldStart && (i + 1 == n || text[i + 1] == HostTable.separator) { s += FuzzyScore.bonusExact }
            if i < nameEnd { s += nameBonus }
            if s > best { best = s }
            if best >= (i + 1 < nameEnd ? inName : afterName) { break }
            from = i + 1
        }
        return best
    }

    /// `:2222` — a colon and digits — is a port, not text: it matches the hosts whose port starts with the digits
    /// (so typing on only narrows the results, as the TUI's incremental search needs; `:` alone matches every host).
    @inline(__always)
    static func isPortTerm(_ term: UnsafeBufferPointer<UInt8>) -> Bool {
        guard term.count >= 1, term[0] == 0x3A, term.count <= 6 else { return false }
        for byte in term.dropFirst() where byte &- 0x30 >= 10 { return false }
        return true
    }

    /// A port term's score on a host with `port`: nil when the digits do not begin the port; the whole port scores
    /// as a whole field does.
    static func portScore(_ term: UnsafeBufferPointer<UInt8>, port: Int) -> Int32? {
        let digits = Array(String(port).utf8)
        let wanted = term.count - 1
        guard wanted <= digits.count else { return nil }
        for i in 0..<wanted where digits[i] != term[i + 1] { return nil }
        return FuzzyScore.scoreMatch * Int32(max(wanted, 1)) + (wanted == digits.count ? FuzzyScore.bonusExact : 0)
    }

    @inline(__always)
    static func isSubsequence(_ term: UnsafeBufferPointer<UInt8>, of text: UnsafeBufferPointer<UInt8>) -> Bool {
        let m = term.count
        guard let base = text.baseAddress, m > 0 else { return m == 0 }
        if m == 1 { return memchr(base, Int32(term[0]), text.count) != nil }
        var at = 0
        for k in 0..<m {
            guard let found = FuzzyScore.find(term[k], in: text, from: at) else { return false }
            at = found + 1
        }
        return true
    }

    /// The rows of `candidates` that match `query`, in candidate order, with their scores. An empty query
    /// matches everything with score 0.
    public func matches(_ query: HostQuery, in candidates: [Int32]) -> HostMatches {
        var result = HostMatches()
        if query.isEmpty {
            result.rows = candidates
            result.scores = Array(repeating: 0, count: candidates.count)
            return result
        }
        let groups = groupScores(query)
        return withTerms(query) { terms in
            let parts = candidates.count >= HostMatcher.parallelThreshold ? 2 : 1
            if parts == 1 { return scan(candidates[...], terms, groups) }
            let chunk = (candidates.count + parts - 1) / parts
            let slices = (0..<parts).map { part in
                candidates[(part * chunk)..<min(candidates.count, (part + 1) * chunk)]
            }
            let results = PartResults(parts, empty: HostMatches())
            let shared = SharedTerms(buffers: terms)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                results.set(part, scan(slices[part], shared.buffers, groups))
            }
            var merged = HostMatches()
            let all = results.all
            merged.rows.reserveCapacity(all.reduce(0) { $0 + $1.count })
            merged.scores.reserveCapacity(merged.rows.capacity)
            for part in all {
                merged.rows += part.rows
                merged.scores += part.scores
            }
            return merged
        }
    }

    func scan(_ candidates: ArraySlice<Int32>, _ terms: [UnsafeBufferPointer<UInt8>], _ groups: [Int32]) -> HostMatches
    {
        var result = HostMatches()
        result.rows.reserveCapacity(min(candidates.count, 4096))
        result.scores.reserveCapacity(min(candidates.count, 4096))
        groups.withUnsafeBufferPointer { groups in
            candidates.withUnsafeBufferPointer { candidates in
                for row in candidates {
                    if let s = score(Int(row), terms, groups) {
                        result.rows.append(row)
                        result.scores.append(s)
                    }
                }
            }
        }
        return result
    }

    /// The terms' buffers, read (never written) by every core while the query's `withTerms` call lasts.
    struct SharedTerms: @unchecked Sendable {
        let buffers: [UnsafeBufferPointer<UInt8>]
    }

    // MARK: ranking

    /// Best first; equal scores: the most recently connected first (hosts never connected after those, in
    /// candidate order). A counting sort over the scores, so 100,000 matches rank in linear time.
    public func ranked(_ matches: HostMatches) -> [Int32] {
        let n = matches.count
        guard n > 1 else { return matches.rows }
        var recent: [(row: Int32, score: Int32, rank: Int32, order: Int)] = []
        let top = Int(matches.scores.max() ?? 0)
        let bottom = Int(matches.scores.min() ?? 0)
        var counts = [Int](repeating: 0, count: top - bottom + 1)
        let anyRecent = !recentRank.isEmpty
        for i in 0..<n {
            if anyRecent, isRecent(matches.rows[i]), let rank = recentRank.rank(of: matches.rows[i]) {
                recent.append((matches.rows[i], matches.scores[i], rank, i))
            } else {
                counts[top - Int(matches.scores[i])] += 1
            }
        }
        var start = [Int](repeating: 0, count: counts.count)
        var sum = 0
        for bucket in 0..<counts.count {
            start[bucket] = sum
            sum += counts[bucket]
        }
        var plain = [Int32](repeating: 0, count: sum)
        var plainScores = [Int32](repeating: 0, count: sum)
        for i in 0..<n where !anyRecent || !isRecent(matches.rows[i]) {
            let bucket = top - Int(matches.scores[i])
            plain[start[bucket]] = matches.rows[i]
            plainScores[start[bucket]] = matches.scores[i]
            start[bucket] += 1
        }
        guard !recent.isEmpty else { return plain }
        recent.sort {
            if $0.score != $1.score { return $0.score > $1.score }
            return $0.rank < $1.rank
        }
        var result: [Int32] = []
        result.reserveCapacity(n)
        var p = 0
        for entry in recent {
            while p < plain.count && plainScores[p] > entry.score {
                result.append(plain[p])
                p += 1
            }
            result.append(entry.row)
        }
        result += plain[p...]
        return result
    }

    /// The same order as `ranked`, worked out only for the best `first` rows (and any tied with the last of them that
    /// rank before it) now, the rest when a later row is read: for the first key of a search, most of the fleet
    /// matches and a screen shows 40. The best rows are found from the scores' counts — the lowest score that still
    /// reaches `first` — and ranked by the same rule over just them, which gives the whole order's beginning.
    public func rankedLazily(_ matches: HostMatches, first wanted: Int = 512) -> RankedRows {
        let n = matches.count
        guard n > 4 * wanted else { return RankedRows(ranked(matches)) }
        var top = Int32.min
        var bottom = Int32.max
        for score in matches.scores {
            top = max(top, score)
            bottom = min(bottom, score)
        }
        var counts = [Int](repeating: 0, count: Int(top - bottom) + 1)
        for score in matches.scores { counts[Int(top - score)] += 1 }
        var above = 0
        var bucket = 0
        while above + counts[bucket] < wanted {
            above += counts[bucket]
            bucket += 1
        }
        let threshold = top - Int32(bucket)
        // Every row above the threshold score; at it, every recently connected one (they rank first among equals) and
        // the first plain ones in candidate order, as many as are still wanted.
        var head = HostMatches()
        head.rows.reserveCapacity(wanted * 2)
        head.scores.reserveCapacity(wanted * 2)
        var plainAtThreshold = wanted - above
        let anyRecent = !recentRank.isEmpty
        for i in 0..<n {
            let score = matches.scores[i]
            guard score >= threshold else { continue }
            let row = matches.rows[i]
            if score == threshold && !(anyRecent && isRecent(row) && recentRank.rank(of: row) != nil) {
                guard plainAtThreshold > 0 else { continue }
                plainAtThreshold -= 1
            }
            head.rows.append(row)
            head.scores.append(score)
        }
        let matcher = self
        return RankedRows(head: ranked(head), count: n, rest: { matcher.ranked(matches) })
    }

    /// Matches and ranks in one call (the CLI's `list FILTER`).
    public func search(_ query: HostQuery, in candidates: [Int32]) -> [Int32] {
        query.isEmpty ? candidates : ranked(matches(query, in: candidates))
    }

    // MARK: highlights

    /// Which characters of row `row`'s displayed fields each term matched, in the field where it scored best.
    public func highlights(_ row: Int, _ query: HostQuery) -> HostHighlights {
        var result = HostHighlights()
        guard !query.isEmpty, row >= 0, row < table.count else { return result }
        let searchFields = HostTable.split(table.searchText(row))
        let displayFields = table.fields(row)
        let group = table.groupIndex(row)
        for term in query.terms {
            term.withUnsafeBufferPointer { term in
                // A port term matched the port, which the address shows whole.
                if HostMatcher.isPortTerm(term) { return }
                var best: Int32 = -1
                var bestField = -1
                var positions = [Int32](repeating: 0, count: term.count)
                var bestPositions: [Int32] = []
                for (number, field) in searchFields.enumerated() {
                    guard var s = FuzzyScore.score(term, in: field, positions: &positions) else { continue }
                    if number == 0 { s += HostMatcher.nameBonus }
                    if s > best {
                        best = s
                        bestField = number
                        bestPositions = positions
                    }
                }
                if group >= 0 {
                    let path = groupPaths[group]
                    if let s = path.withUnsafeBufferPointer({ FuzzyScore.score(term, in: $0, positions: &positions) }),
                        s > best
                    {
                        result.group += HostMatcher.characterOffsets(
                            bestPositions: positions, display: groupDisplay[group],
                            mapped: true)
                        return
                    }
                }
                guard bestField >= 0, bestField < displayFields.count else { return }
                let offsets = HostMatcher.characterOffsets(
                    bestPositions: bestPositions, display: displayFields[bestField],
                    mapped: table.needsMapping(row))
                switch bestField {
                case 0: result.name += offsets
                case 1: result.hostname += offsets
                case 2: result.user += offsets
                default: result.tags[bestField - 3, default: []] += offsets
                }
            }
        }
        result.name = Array(Set(result.name)).sorted()
        result.hostname = Array(Set(result.hostname)).sorted()
        result.user = Array(Set(result.user)).sorted()
        result.group = Array(Set(result.group)).sorted()
        for (tag, offsets) in result.tags { result.tags[tag] = Array(Set(offsets)).sorted() }
        return result
    }

    /// Turns byte offsets in a folded field into character offsets of its display text: one to one for ASCII,
    /// else by folding each displayed character and counting its bytes.
    static func characterOffsets(bestPositions: [Int32], display: String, mapped: Bool) -> [Int] {
        guard mapped || display.utf8.contains(where: { $0 >= 0x80 }) else { return bestPositions.map(Int.init) }
        let wanted = Set(bestPositions.map(Int.init))
        var offsets: [Int] = []
        var byte = 0
        for (index, character) in display.enumerated() {
            let shown = character.unicodeScalars.contains(where: Validation.isForbidden) ? "?" : character
            let length = HostSearch.fold(shown).utf8.count
            if (byte..<(byte + length)).contains(where: wanted.contains) { offsets.append(index) }
            byte += length
        }
        return offsets
    }
}

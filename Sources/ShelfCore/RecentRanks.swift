// RecentRanks: the recency rank of each host ever connected to, looked up by catalog row — sorted arrays and a
// binary search, not a Dictionary: a dictionary keyed by a type no earlier code hashed makes the Swift runtime scan
// every protocol conformance record of the binary once (about 270,000 instructions at every `sshelf list`).
public struct RecentRanks: Sendable {
    private let rows: [Int32]
    private let ranks: [Int32]

    /// `recentRows` most recent first; a row listed twice keeps its first (best) rank.
    public init(_ recentRows: [Int32]) {
        let order = recentRows.indices.sorted {
            recentRows[$0] != recentRows[$1] ? recentRows[$0] < recentRows[$1] : $0 < $1
        }
        var rows: [Int32] = []
        var ranks: [Int32] = []
        rows.reserveCapacity(order.count)
        ranks.reserveCapacity(order.count)
        for index in order where rows.last != recentRows[index] {
            rows.append(recentRows[index])
            ranks.append(Int32(index))
        }
        self.rows = rows
        self.ranks = ranks
    }

    public var isEmpty: Bool { rows.isEmpty }

    public func rank(of row: Int32) -> Int32? {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle] < row { low = middle + 1 } else { high = middle }
        }
        return low < rows.count && rows[low] == row ? ranks[low] : nil
    }
}

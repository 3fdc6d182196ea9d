// RecentRanksTests: the recency rank of a row is its first (most recent) place in the list; rows never connected
// to have none.
import ShelfCore
import XCTest

final class RecentRanksTests: XCTestCase {
    func testARowRanksByItsFirstPlaceAndOthersHaveNoRank() {
        let ranks = RecentRanks([42, 7, 42, 1000, 0, 7])
        XCTAssertEqual(ranks.rank(of: 42), 0)
        XCTAssertEqual(ranks.rank(of: 7), 1)
        XCTAssertEqual(ranks.rank(of: 1000), 3)
        XCTAssertEqual(ranks.rank(of: 0), 4)
        for row: Int32 in [-1, 1, 6, 8, 41, 43, 999, 1001] { XCTAssertNil(ranks.rank(of: row), "row \(row)") }
        XCTAssertFalse(ranks.isEmpty)
        XCTAssertTrue(RecentRanks([]).isEmpty)
        XCTAssertNil(RecentRanks([]).rank(of: 0))
    }

    func testAgreesWithTheDictionaryItReplacedOnRandomLists() {
        var random = SplitMix64(state: 14)
        for _ in 0..<200 {
            let rows = (0..<Int(random.next() % 60)).map { _ in Int32(random.next() % 80) }
            var expected: [Int32: Int32] = [:]
            for (rank, row) in rows.enumerated() where expected[row] == nil { expected[row] = Int32(rank) }
            let ranks = RecentRanks(rows)
            for row: Int32 in 0..<80 { XCTAssertEqual(ranks.rank(of: row), expected[row], "\(rows) row \(row)") }
        }
    }
}

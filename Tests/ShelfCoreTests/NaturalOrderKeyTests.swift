// NaturalOrderKeyTests: a name's prepared order key (what the file pane sorts 10,000 names with) orders every pair
// of names exactly as NaturalOrder.precedes does — digit runs, leading zeros, case, accents, folded scalars.
import ShelfCore
import XCTest

final class NaturalOrderKeyTests: XCTestCase {
    static let names = [
        "web10", "web2", "Web1", "web-3", "db", "web02", "Zürich", "zug", "app 9", "app 10", "Alpha", "alpha",
        "ALPHA", "e\u{301}cole", "école", "Ecole", "ecole", "file7", "file07", "file007", "file07b", "file7b", "7",
        "07", "", " ", "½", "1/2", "ß", "ss", "Ünits", "under", "Łódź", "lodz", "x\\n", "x\u{1b}", "日本2", "日本10",
        "a0b0", "a00b0", "a0b00", "18446744073709551616", "18446744073709551615", "0", "00", "-", "a-1", "a-01",
    ]

    func testTheKeyOrdersEveryPairAsPrecedesDoes() {
        let keys = Self.names.map(NaturalOrder.Key.init)
        for (a, keyA) in zip(Self.names, keys) {
            for (b, keyB) in zip(Self.names, keys) {
                XCTAssertEqual(
                    NaturalOrder.Key.precedes(keyA, keyB), NaturalOrder.precedes(a, b),
                    "\(a.debugDescription) before \(b.debugDescription)")
            }
        }
    }

    func testSortingByKeysGivesTheSameOrder() {
        let keyed = Self.names.map { (name: $0, key: NaturalOrder.Key($0)) }
        XCTAssertEqual(
            keyed.sorted { NaturalOrder.Key.precedes($0.key, $1.key) }.map(\.name),
            Self.names.sorted(by: NaturalOrder.precedes))
    }
}

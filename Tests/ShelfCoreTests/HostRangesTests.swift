// HostRangesTests: host lists folded as clush and dshbak print them — ranges of consecutive numbers of one width,
// groups by what surrounds the last number, names without digits as they are.
import ShelfCore
import XCTest

final class HostRangesTests: XCTestCase {
    func testConsecutiveNumbersBecomeRanges() {
        let names = (0..<200).map { "c-" + String(1000 + $0).dropFirst() }
        XCTAssertEqual(HostRanges.fold(names), "c-[000-199]")
        XCTAssertEqual(
            HostRanges.fold(["w-000", "w-001", "w-002", "w-010", "w-020", "w-021", "w-100"]),
            "w-[000-002,010,020-021,100]")
        XCTAssertEqual(HostRanges.fold(["web-3", "web-1", "web-2"]), "web-[1-3]", "in number order, not run order")
    }

    func testWidthsAreKept() {
        XCTAssertEqual(HostRanges.fold(["n9", "n10", "n11"]), "n[9-11]", "unpadded numbers run across widths")
        XCTAssertEqual(HostRanges.fold(["n09", "n10"]), "n[09-10]", "two of one width")
        XCTAssertEqual(HostRanges.fold(["n009", "n10"]), "n[009,10]", "a padded number runs only within its width")
        XCTAssertEqual(HostRanges.fold(["n7", "n07"]), "n[7,07]", "different names with one value both stay")
    }

    func testGroupsByWhatSurroundsTheLastNumber() {
        XCTAssertEqual(
            HostRanges.fold(["db1.fra", "web-01.eu", "db2.fra", "web-02.eu", "mail", "web-03.us"]),
            "db[1-2].fra,web-[01-02].eu,mail,web-03.us")
        XCTAssertEqual(HostRanges.fold(["rack2-node1", "rack2-node2"]), "rack2-node[1-2]", "the last number folds")
    }

    func testNamesThatCannotFoldStayAsTheyAre() {
        XCTAssertEqual(HostRanges.fold(["alpha", "beta", "alpha"]), "alpha,beta", "each name once")
        XCTAssertEqual(HostRanges.fold(["odd[1]", "odd[2]"]), "odd[1],odd[2]", "the notation's own characters")
        XCTAssertEqual(HostRanges.fold(["big99999999999999999999999", "big1"]), "big99999999999999999999999,big1")
        XCTAssertEqual(HostRanges.fold(["one-1"]), "one-1")
        XCTAssertEqual(HostRanges.fold([]), "")
    }
}

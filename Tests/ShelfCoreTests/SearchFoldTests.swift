// SearchFoldTests: search folding and the group order without ICU give what Foundation's ICU-backed calls gave —
// every scalar folded as Foundation folds it, accented names found, numbered names in number order.
import Foundation
import XCTest
@testable import ShelfCore

final class SearchFoldTests: XCTestCase {
    private func foundationFold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    func testEveryAssignedScalarFoldsAsFoundationFoldsIt() {
        var differing: [String] = []
        for value in 0x80...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .unassigned,
                scalar.properties.generalCategory != .privateUse
            else { continue }
            // A combining mark comes after a letter in a name (alone, Foundation keeps it).
            let text = (scalar.properties.canonicalCombiningClass.rawValue == 0 ? "" : "x") + String(scalar)
            if HostSearch.fold(text) != foundationFold(text) { differing.append(String(value, radix: 16)) }
        }
        XCTAssertEqual(differing, [], "run scripts/fold-table: this toolchain's Foundation folds these differently")
    }

    func testNamesFoldAsFoundationFoldsThem() {
        let names = [
            "Zürich-lab", "ZÜRICH LAB", "São Paulo", "Ærøskøbing", "Łódź-db", "İstanbul-1", "straße",
            "ΣΟΦΙΑ-σοφία", "Ångström", "e\u{301}cole", "A\u{30A}rhus", "café-02", "Москва-web", "ﬁle-srv",
            "Ｗｅｂ１", "한국-서버", "日本-web",
            "Crème Brûlée", "ǅemal", "naïve.example.com", "web-01.prod",
        ]
        for name in names { XCTAssertEqual(HostSearch.fold(name), foundationFold(name), name) }
    }

    func testAccentedNamesAreFoundWithoutAccents() {
        XCTAssertEqual(HostSearch.fold("Zürich-Lab"), "zurich-lab")
        XCTAssertEqual(HostSearch.fold("São-Paulo"), "sao-paulo")
        XCTAssertEqual(HostSearch.fold("e\u{301}cole"), "ecole", "a decomposed accent is dropped too")
        XCTAssertEqual(HostSearch.fold("Łódź"), "łodz", "Foundation keeps the stroke of Ł: a letter, no accent")
    }

    func testNumberedNamesSortByTheirNumbers() {
        let names = [
            "web10", "web2", "Web1", "web-3", "db", "web02", "Zürich", "zug", "app 9", "app 10", "Alpha",
            "alpha",
        ]
        let sorted = names.sorted(by: NaturalOrder.precedes)
        let index = { (name: String) in sorted.firstIndex(of: name)! }
        XCTAssertLessThan(index("Web1"), index("web2"))
        XCTAssertLessThan(index("web2"), index("web10"))
        XCTAssertLessThan(index("web2"), index("web02"), "equal numbers: fewer leading zeros first")
        XCTAssertLessThan(index("app 9"), index("app 10"))
        XCTAssertLessThan(index("alpha"), index("Alpha"), "equal but for case: lower case first")
        XCTAssertLessThan(index("zug"), index("Zürich"), "accents are ignored: g before r")
        XCTAssertEqual(
            names.reversed().sorted(by: NaturalOrder.precedes), sorted,
            "a total order: input order does not matter")
    }

    func testPlainNamesOrderAsLocalizedStandardCompare() {
        let names = [
            "prod", "staging", "dev", "Lab 2", "lab 10", "eu-west", "eu-central", "db1", "db12", "db3", "Ops",
            "zone9", "zone10", "Ünits", "under",
        ]
        let foundation = names.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        XCTAssertEqual(names.sorted(by: NaturalOrder.precedes), foundation)
    }
}

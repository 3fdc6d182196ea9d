// FilesFilterTests: the file pane's filter matches each typed word in the name as shown, case and accents folded
// (the names are folded once, when listed, and matched as bytes at each key): every word must be there.
import FoundationEssentials
import XCTest

@testable import ShelfUI

final class FilesFilterTests: XCTestCase {
    func shown(_ filter: String, in names: [String]) -> [String] {
        var pane = FilesPane(hostID: UUID(), hostName: "h")
        pane[.remote].entries = names.map { FileEntry(name: Array($0.utf8), kind: .file) }
        pane[.remote].filter = filter
        pane.refilter(.remote)
        return pane[.remote].visible.map { pane[.remote].entries[$0].shown }
    }

    func testEveryWordFoldedMustBeInTheName() {
        let names = ["Zürich-Report.TXT", "report-2026.txt", "notes.md", "ÉCOLE.pdf", "a\u{1b}b"]
        XCTAssertEqual(shown("REPORT", in: names), ["Zürich-Report.TXT", "report-2026.txt"])
        XCTAssertEqual(shown("zur rep", in: names), ["Zürich-Report.TXT"])
        XCTAssertEqual(shown("ecole", in: names), ["ÉCOLE.pdf"])
        XCTAssertEqual(shown("txt 2026", in: names), ["report-2026.txt"])
        XCTAssertEqual(shown("x1b", in: names), ["a\\x1bb"], "an escaped name is matched as shown")
        XCTAssertEqual(shown("zzz", in: names), [])
        XCTAssertEqual(shown("", in: names).count, names.count)
    }

    func testAWordLongerThanEveryNameMatchesNothing() {
        XCTAssertEqual(shown("a-much-longer-word", in: ["a", "ab", ""]), [])
        XCTAssertTrue(FilesPane.contains(Array("abcabd".utf8), Array("abd".utf8)))
        XCTAssertFalse(FilesPane.contains(Array("abcab".utf8), Array("abd".utf8)))
    }
}

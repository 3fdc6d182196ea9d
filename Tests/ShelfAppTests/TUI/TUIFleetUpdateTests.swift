// TUIFleetUpdateTests: remote output as the run pane shows it — escape sequences shown harmless (HostOutputText, the
// one sanitiser `sshelf run` uses too), tabs as spaces, a long
// output cut with a note that `sshelf run` prints it all. (The hosts' states and grouped outputs are TUIFleetTests'.)
import Foundation
import ShelfCore
@testable import ShelfTUIApp
import XCTest

final class TUIFleetUpdateTests: XCTestCase {
    func testRemoteTextShowsEscapeSequencesHarmlessAndTabsAsSpaces() {
        XCTAssertEqual(
            TUIFleet.lines(Array("\u{1B}[31mred\u{1B}[0m\tcell\n\u{1B}]0;title\u{07}next\u{9B}\n".utf8)),
            ["^[[31mred^[[0m    cell", "^[]0;title^Gnext<U+009B>"])
        XCTAssertEqual(
            TUIFleet.lines(Array("\u{1B}[31mred\n".utf8)), [HostOutputText.clean(Array("\u{1B}[31mred".utf8))])
        XCTAssertEqual(TUIFleet.lines([]), [])
        XCTAssertEqual(TUIFleet.lines(Array("no newline".utf8)), ["no newline"])
    }

    func testALongOutputIsCutWithANote() {
        let text = (1...1005).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let lines = TUIFleet.lines(Array(text.utf8))
        XCTAssertEqual(lines.count, 1001)
        XCTAssertEqual(lines[999], "line 1000")
        XCTAssertEqual(lines.last, "… 5 more lines (sshelf run prints them all)")
    }
}

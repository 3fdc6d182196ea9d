// Double-width characters in a real terminal (tmux): a CJK or emoji host name is drawn as itself, taking two
// cells per character, and the columns after it stay in line; a non-UTF-8 locale draws '?' per cell instead.
import Foundation
import ShelfUI
import TestSupport
import XCTest

final class TUIWideCharacterTests: XCTestCase {
    /// The terminal column where `needle` starts on the line that contains it.
    func column(of needle: String, in screen: String) -> Int? {
        for line in screen.split(separator: "\n", omittingEmptySubsequences: false) {
            if let range = line.range(of: needle) { return CharWidth.of(String(line[..<range.lowerBound])) }
        }
        return nil
    }

    func seededHome() throws -> TempHome {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "東京-web", "--host", "tokyo.example.jp"), 0)
        XCTAssertExit(try home.run("add", "🚀-launch", "--host", "rocket.example.com"), 0)
        XCTAssertExit(try home.run("add", "plain", "--host", "plain.example.com"), 0)
        return home
    }

    func testWideNamesAreDrawnInTwoCellsAndColumnsLineUp() throws {
        let home = try seededHome()
        let tui = try Tmux(home: home)
        let screen = try tui.waitFor(text: "東京-web")
        XCTAssertTrue(screen.contains("🚀-launch"), screen)
        let tokyo = try XCTUnwrap(column(of: "tokyo.example.jp", in: screen), screen)
        XCTAssertEqual(column(of: "plain.example.com", in: screen), tokyo, screen)
        XCTAssertEqual(column(of: "rocket.example.com", in: screen), tokyo, screen)
        // The search highlight lands on the matched characters after the wide ones.
        try tui.send("/")
        try tui.type("京web")
        let found = try tui.waitFor(text: "Hosts 1")
        XCTAssertEqual(column(of: "tokyo.example.jp", in: found), tokyo, found)
        try tui.send("Escape", "q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testNonUTF8LocaleDrawsQuestionMarksInTheSameCells() throws {
        let home = try seededHome()
        let tui = try Tmux(home: home, environment: ["LANG": "C", "LC_ALL": "C"])
        let screen = try tui.waitFor(text: "????-web")
        let tokyo = try XCTUnwrap(column(of: "tokyo.example.jp", in: screen), screen)
        XCTAssertEqual(column(of: "plain.example.com", in: screen), tokyo, screen)
        try tui.send("q")
    }
}

// WideCharacterTests: double-width characters (CJK, emoji) take two cells — the width table agrees with the C
// library's wcwidth, a wide character is never split by clipping, ellipsis or overwriting, and search
// highlights still land on the matched characters.
import Foundation
import Glibc
import ShelfCore
import TestSupport
import XCTest
@testable import ShelfUI

final class WideCharacterTests: XCTestCase {
    func testWidths() {
        XCTAssertEqual(CharWidth.of("a" as Character), 1)
        XCTAssertEqual(CharWidth.of("東" as Character), 2)
        XCTAssertEqual(CharWidth.of("한" as Character), 2)
        XCTAssertEqual(CharWidth.of("Ａ" as Character), 2, "fullwidth Latin")
        XCTAssertEqual(CharWidth.of("😀" as Character), 2)
        XCTAssertEqual(CharWidth.of("e\u{301}" as Character), 1, "a combining accent rides on its base")
        XCTAssertEqual(CharWidth.of("ü" as Character), 1)
        XCTAssertEqual(CharWidth.of("東京-web"), 8)
    }

    /// The table in ShelfUI is what the terminal side checks again with wcwidth; they must agree everywhere,
    /// or wide characters would be drawn as '?' (never misplaced, but unreadable).
    func testTableAgreesWithTheCLibraryForEveryScalar() throws {
        // Glibc's Swift module hides wcwidth (it needs _XOPEN_SOURCE); the test looks it up in the C library.
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "wcwidth") else {
            return XCTFail("no wcwidth in the C library")
        }
        typealias WCWidth = @convention(c) (wchar_t) -> Int32
        let wcwidth = unsafeBitCast(symbol, to: WCWidth.self)
        guard let locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil) else { throw skipped("no C.UTF-8 locale") }
        let previous = uselocale(locale)
        defer {
            uselocale(previous)
            freelocale(locale)
        }
        var disagreements: [String] = []
        for value in UInt32(0x20)..<0x110000 where !(0xD800...0xDFFF).contains(value) {
            let wide = wcwidth(wchar_t(value)) == 2
            if wide != CharWidth.isWide(value), disagreements.count < 10 {
                disagreements.append(String(value, radix: 16))
            }
        }
        XCTAssertEqual(disagreements, [])
    }

    func testAWideCharacterTakesTwoCells() {
        var canvas = Canvas(rows: 1, columns: 10)
        XCTAssertEqual(canvas.write("東京x", row: 0, column: 0), 5)
        XCTAssertEqual(canvas[0, 0].character, "東")
        XCTAssertTrue(canvas[0, 1].isContinuation)
        XCTAssertEqual(canvas[0, 2].character, "京")
        XCTAssertTrue(canvas[0, 3].isContinuation)
        XCTAssertEqual(canvas[0, 4].character, "x")
        XCTAssertEqual(canvas.line(0), "東京x", "the text skips continuation cells")
    }

    func testClippingNeverSplitsAWideCharacter() {
        var canvas = Canvas(rows: 1, columns: 5)
        XCTAssertEqual(canvas.write("ab東京", row: 0, column: 0), 4, "京 does not fit in the last cell")
        XCTAssertEqual(canvas.line(0), "ab東")
        XCTAssertFalse(canvas[0, 4].isContinuation)
        var left = Canvas(rows: 1, columns: 5)
        left.write("東x", row: 0, column: -1)
        XCTAssertEqual(left[0, 0].character, " ", "the visible half of a wide character cut at the left is a blank")
        XCTAssertFalse(left[0, 0].isContinuation)
        XCTAssertEqual(left[0, 1].character, "x")
    }

    func testEllipsisNeverSplitsAWideCharacter() {
        var canvas = Canvas(rows: 1, columns: 20)
        canvas.write("東京大学", row: 0, column: 0, width: 6)
        XCTAssertEqual(canvas.line(0), "東京…", "大 would need cells 4-5, the ellipsis cell 5")
        var odd = Canvas(rows: 1, columns: 20)
        odd.write("東京大学", row: 0, column: 0, width: 5)
        XCTAssertEqual(odd.line(0), "東京…")
        var fits = Canvas(rows: 1, columns: 20)
        fits.write("東京大学", row: 0, column: 0, width: 8)
        XCTAssertEqual(fits.line(0), "東京大学")
    }

    func testOverwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var canvas = Canvas(rows: 1, columns: 6)
        canvas.write("東京", row: 0, column: 0)
        canvas.write("x", row: 0, column: 1)
        XCTAssertEqual(canvas[0, 0].character, " ")
        XCTAssertEqual(canvas[0, 1].character, "x")
        XCTAssertEqual(canvas.line(0), " x京")
        canvas.write("y", row: 0, column: 2)
        XCTAssertEqual(canvas[0, 2].character, "y")
        XCTAssertFalse(canvas[0, 3].isContinuation, "the continuation of the overwritten 京 is blank")
        XCTAssertEqual(canvas.line(0), " xy")
        canvas.fill(row: 0, column: 0, height: 1, width: 6)
        canvas.write("😀😀", row: 0, column: 0)
        canvas.fill(row: 0, column: 1, height: 1, width: 2, character: "-")
        XCTAssertEqual(canvas.line(0), " --", "fill breaks both emoji cleanly")
        XCTAssertFalse((0..<6).contains { canvas[0, $0].isContinuation })
    }

    static func wideCatalog() -> Catalog {
        let asia = HostGroup(id: Fixtures.id(1), name: "アジア")
        let hosts = [
            ShelfCore.Host(
                id: Fixtures.id(100), name: "東京-web-1", hostname: "tokyo.example.jp", user: "デプロイ",
                groupID: asia.id, tags: ["本番", "web"]),
            ShelfCore.Host(
                id: Fixtures.id(101), name: "서울-db", hostname: "seoul.example.kr", groupID: asia.id, tags: ["db"]),
            ShelfCore.Host(id: Fixtures.id(102), name: "🚀-launch", hostname: "rocket.example.com", user: "ops"),
            ShelfCore.Host(id: Fixtures.id(103), name: "北京上海广州深圳成都重庆天津南京杭州-edge", hostname: "cn.example.com"),
            ShelfCore.Host(id: Fixtures.id(104), name: "plain", hostname: "plain.example.com"),
        ]
        return Catalog(hosts: hosts, groups: [asia])
    }

    func testSearchHighlightsLineUpAfterWideCharacters() {
        var state = Fixtures.state(Self.wideCatalog())
        Fixtures.press(&state, .char("/"))
        // "web-1" is only in the name ("web" alone would score best as the whole tag "web").
        Fixtures.type(&state, "web-1")
        Fixtures.settle(&state)
        let canvas = Screen.render(state)
        let layout = Layout(rows: 24, columns: 80)
        let row = layout.hosts.row + 1
        let x = layout.hosts.column + 1
        let cells = (0..<12).filter { !canvas[row, x + $0].isContinuation }.map { canvas[row, x + $0].character }
        XCTAssertEqual(String(cells).prefix(8), "東京-web-1".prefix(8))
        // 東 and 京 take cells 0-3, '-' is cell 4: w, e, b, -, 1 are cells 5 to 9.
        let underlined = (0..<12).filter { canvas[row, x + $0].style.underline }
        XCTAssertEqual(underlined, [5, 6, 7, 8, 9])
        XCTAssertEqual(underlined.map { canvas[row, x + $0].character }, ["w", "e", "b", "-", "1"])
    }

    func testHighlightOnAWideCharacterCoversBothCells() {
        var state = Fixtures.state(Self.wideCatalog())
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "京")
        Fixtures.settle(&state)
        let canvas = Screen.render(state)
        let layout = Layout(rows: 24, columns: 80)
        let row = layout.hosts.row + 1
        let x = layout.hosts.column + 1
        XCTAssertEqual(canvas[row, x + 2].character, "京")
        XCTAssertTrue(canvas[row, x + 2].style.underline)
        XCTAssertTrue(canvas[row, x + 3].isContinuation)
        XCTAssertTrue(canvas[row, x + 3].style.underline, "the continuation cell carries the style")
        XCTAssertFalse(canvas[row, x].style.underline)
    }
}

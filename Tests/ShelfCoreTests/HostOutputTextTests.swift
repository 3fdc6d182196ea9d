// HostOutputTextTests: the one sanitiser for host output — text and line structure kept, every control and escape
// sequence shown harmless (C0 as ^X, DEL as ^?, C1 in both forms, bidi controls), invalid UTF-8 as U+FFFD, the same
// result however the bytes are split into chunks, and long inputs whole.
import ShelfCore
import XCTest

final class HostOutputTextTests: XCTestCase {
    private func clean(_ bytes: [UInt8]) -> String { HostOutputText.clean(bytes) }
    private func clean(_ text: String) -> String { HostOutputText.clean(Array(text.utf8)) }

    /// No byte a terminal acts on survives: no ESC, no C0 but tab and newline, no DEL, no C1 (8-bit or UTF-8).
    private func assertInert(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        for byte in text.utf8 {
            XCTAssertFalse(
                (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte == 0x7F,
                "byte \(byte) in \(text.debugDescription)",
                file: file, line: line)
        }
        for scalar in text.unicodeScalars {
            XCTAssertFalse((0x80...0x9F).contains(scalar.value), "C1 \(scalar.value)", file: file, line: line)
            XCTAssertFalse((0x202A...0x202E).contains(scalar.value), "bidi \(scalar.value)", file: file, line: line)
        }
    }

    func testTextAndLinesAreKept() {
        XCTAssertEqual(
            clean("uptime 41 days\n\tload 0.00\nnaïve café — 日本 👍🏽\n"),
            "uptime 41 days\n\tload 0.00\nnaïve café — 日本 👍🏽\n")
        XCTAssertEqual(clean("windows\r\nline\r\n"), "windows\nline\n")
        XCTAssertEqual(clean(""), "")
    }

    func testEveryClassOfEscapeSequenceIsShownHarmless() {
        let cases: [(String, String)] = [
            ("\u{1B}]52;c;UFdORUQ=\u{07}", "^[]52;c;UFdORUQ=^G"),  // OSC 52: the clipboard
            ("\u{1B}]2;PWNTITLE\u{1B}\\", "^[]2;PWNTITLE^[\\"),  // OSC 2: the title, ST-terminated
            ("\u{1B}[8mhidden\u{1B}[0m", "^[[8mhidden^[[0m"),  // SGR 8: conceal
            ("\u{1B}[1A\u{1B}[2K", "^[[1A^[[2K"),  // cursor up, erase the line
            ("\u{1B}P1$r\u{1B}\\", "^[P1$r^[\\"),  // DCS
            ("\u{1B}_apc\u{1B}\\\u{1B}^pm\u{1B}\\\u{1B}Xsos\u{1B}\\", "^[_apc^[\\^[^pm^[\\^[Xsos^[\\"),  // APC, PM, SOS
            ("\u{1B}c", "^[c"),  // RIS: reset the terminal
            ("a\rb\u{08}c\u{7F}\u{00}", "a^Mb^Hc^?^@"),  // CR alone, backspace, DEL, NUL
            ("\u{9B}31m\u{9D}0;t\u{9C}\u{90}\u{85}", "<U+009B>31m<U+009D>0;t<U+009C><U+0090><U+0085>"),  // C1 in UTF-8
            ("\u{202E}evil\u{2066}\u{2028}", "<U+202E>evil<U+2066><U+2028>"),  // bidi, line separator
        ]
        for (input, shown) in cases {
            XCTAssertEqual(clean(input), shown, input.debugDescription)
            assertInert(clean(input))
        }
    }

    func testEightBitC1AndInvalidUTF8AreReplacement() {
        // The 8-bit CSI, OSC and ST bytes alone are not UTF-8: shown as U+FFFD, never passed on.
        XCTAssertEqual(clean([0x9B, 0x33, 0x31, 0x6D, 0x9D, 0x9C]), "\u{FFFD}31m\u{FFFD}\u{FFFD}")
        XCTAssertEqual(clean([0xC0, 0x80]), "\u{FFFD}\u{FFFD}")  // overlong NUL
        XCTAssertEqual(clean([0xED, 0xA0, 0x80]), "\u{FFFD}\u{FFFD}\u{FFFD}")  // a surrogate
        XCTAssertEqual(clean([0xF4, 0x90, 0x80, 0x80]), "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}")  // above U+10FFFF
        XCTAssertEqual(clean([0xE2, 0x82, 0x41]), "\u{FFFD}A")  // a character cut short
        XCTAssertEqual(clean([0xE2, 0x82]), "\u{FFFD}")  // cut at the end
        assertInert(clean([0x9B, 0xC2, 0x9B, 0xFF, 0xFE, 0x1B]))
    }

    func testAStreamSplitAnywhereGivesTheSameText() {
        let whole = Array("é 日本 👍 \u{9B}x\r\ny\r\u{1B}[1A".utf8) + [0xE2, 0x82, 0x41, 0x9B]
        let expected = clean(whole)
        for cut in 0...whole.count {
            var stream = HostOutputText()
            let text = stream.feed(Array(whole[..<cut])) + stream.feed(Array(whole[cut...])) + stream.finish()
            XCTAssertEqual(text, expected, "cut at \(cut)")
        }
        var bytewise = HostOutputText()
        XCTAssertEqual(whole.map { bytewise.feed([$0]) }.joined() + bytewise.finish(), expected)
        // A character held back is shown once it is whole, not before.
        var stream = HostOutputText()
        XCTAssertEqual(stream.feed([0x61, 0xF0, 0x9F]), "a")
        XCTAssertEqual(stream.feed([0x91, 0x8D, 0x0A]), "👍\n")
    }

    func testALongHostileOutputIsShownWhole() {
        let unit = Array("line \u{1B}]52;c;UFdORUQ=\u{07}\u{1B}[8m\u{9B}2J é\r\n".utf8) + [0x9B, 0xFF]
        var input: [UInt8] = []
        for _ in 0..<40_000 { input += unit }  // about 1.3 MB
        let text = clean(input)
        assertInert(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 40_001)
        XCTAssertEqual(String(lines[1]), "\u{FFFD}\u{FFFD}line ^[]52;c;UFdORUQ=^G^[[8m<U+009B>2J é")
    }
}

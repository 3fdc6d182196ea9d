// Status line: each sync state carries its symbol, words and colour; ASCII symbols replace Unicode ones;
// the fallback reason is shown in full even when the key hints have to go.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class StatusLineTests: XCTestCase {
    func render(_ sync: SyncIndicator, symbols: Symbols = .unicode, columns: Int = 80) -> Canvas {
        var state = Fixtures.state(Fixtures.threeLevels(), columns: columns, status: StatusModel(sync: sync))
        state.symbols = symbols
        return Screen.render(state)
    }

    func testEachSyncStateHasItsSymbolWordsAndColour() {
        let cases: [(SyncIndicator, String, CellStyle.Color)] = [
            (.synced(at: Fixtures.now.addingTimeInterval(-120)), "✓ synced 2 min ago", .green),
            (
                .localFallback(reason: "sync folder /mnt/nas/sshelf not found"),
                "▲ local fallback: sync folder /mnt/nas/sshelf not found", .orange
            ),
            (.off, "○ sync off", .dim),
            (.syncing, "↻ syncing", .blue),
        ]
        for (sync, words, color) in cases {
            let canvas = render(sync)
            XCTAssertTrue(canvas.line(23).hasPrefix(words), canvas.line(23))
            XCTAssertEqual(canvas[23, 0].style.color, color, words)
            XCTAssertEqual(canvas[23, words.count - 1].style.color, color, words)
        }
    }

    func testAsciiSymbolsWithoutUTF8() {
        XCTAssertTrue(render(.synced(at: Fixtures.now), symbols: .ascii).line(23).hasPrefix("+ synced just now"))
        XCTAssertTrue(render(.localFallback(reason: "x"), symbols: .ascii).line(23).hasPrefix("! local fallback: x"))
        // Everything sshelf itself draws is ASCII then (record data such as "Zürich-lab" is the terminal's job).
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 40, columns: 140)
        state.symbols = .ascii
        for keys in [[], [Key.char("a")], [.char("?")], [.char("d")], [.char("f"), .enter]] {
            var copy = state
            for key in keys { _ = Reducer.reduce(&copy, .key(key)) }
            let text = Screen.render(copy).text.replacingOccurrences(of: "Zürich", with: "Zurich")
            XCTAssertTrue(text.unicodeScalars.allSatisfy { $0.isASCII }, text)
        }
    }

    func testLongFallbackReasonIsNotDroppedForKeyHints() {
        let reason = "sync folder /mnt/nas/team/shared/sshelf not found"
        let line = render(.localFallback(reason: reason)).line(23)
        XCTAssertTrue(line.contains(reason), line)
    }

    func testSearchHighlightsMatchedCharacters() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "wb2")
        Fixtures.settle(&state)
        let canvas = Screen.render(state)
        let layout = Layout(rows: 24, columns: 80)
        let row = layout.hosts.row + 1
        let x = layout.hosts.column + 1
        XCTAssertEqual(canvas.line(row).dropFirst(x).prefix(8), "web-eu-2")
        let underlined = (0..<8).filter { canvas[row, x + $0].style.underline }
        XCTAssertEqual(underlined, [0, 2, 7], "w, b and 2 of web-eu-2")
        XCTAssertEqual(canvas[row, x].style.color, .orange)
    }

    func testControlCharactersFromRecordsNeverReachTheCanvas() {
        let evil = ShelfCore.Host(name: "evil\u{1B}[2Jhost", hostname: "x")
        let state = Fixtures.state(Catalog(hosts: [evil]))
        let text = Screen.render(state).text
        XCTAssertFalse(text.contains("\u{1B}"))
        XCTAssertTrue(text.contains("evil?[2Jhost"), text)
    }

    func testFingerprintMatchesOpenSSH() {
        // ssh-keygen -lf on this key prints SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU
        let key = PinnedHostKey(
            type: "ssh-ed25519", key: "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl")
        XCTAssertEqual(Fingerprint.of(key), "SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU")
    }
}

// EditorRoundTripTests: the editor's words (`$EDITOR` before `$VISUAL`, an empty one skipped, neither set said with
// what to do), split as a shell splits them without expanding anything, and the local copy's name made from a hostile
// server name.
import ShelfCore
import XCTest

final class EditorRoundTripTests: XCTestCase {
    func testEditorThenVisualThenAClearError() throws {
        XCTAssertEqual(try EditorRoundTrip.editor(["EDITOR": "vim", "VISUAL": "code"]).get(), ["vim"])
        XCTAssertEqual(
            try EditorRoundTrip.editor(["EDITOR": "  ", "VISUAL": "code --wait"]).get(), ["code", "--wait"])
        guard case .failure(let problem) = EditorRoundTrip.editor([:]) else { return XCTFail("an editor from nothing") }
        XCTAssertEqual(
            problem.message,
            "neither $EDITOR nor $VISUAL is set: set one to your editor (e.g. export EDITOR=nano) and open sshelf again"
        )
        guard case .failure(let unclosed) = EditorRoundTrip.editor(["EDITOR": "vim 'x"]) else {
            return XCTFail("an unclosed quote taken")
        }
        XCTAssertTrue(unclosed.message.hasPrefix("$EDITOR has a quote that is not closed"), unclosed.message)
    }

    func testSplitAsAShellSplitsWithoutExpanding() {
        XCTAssertEqual(EditorRoundTrip.split("emacs -nw"), ["emacs", "-nw"])
        XCTAssertEqual(
            EditorRoundTrip.split("  '/opt/My Editor/bin/ed'  --flag "), ["/opt/My Editor/bin/ed", "--flag"])
        XCTAssertEqual(EditorRoundTrip.split(#""a \"b\" \$HOME" c\ d"#), [#"a "b" $HOME"#, "c d"])
        XCTAssertEqual(EditorRoundTrip.split("vim $(rm -rf ~) `id`; x"), ["vim", "$(rm", "-rf", "~)", "`id`;", "x"])
        XCTAssertEqual(EditorRoundTrip.split("''"), [""])
        XCTAssertNil(EditorRoundTrip.split("a \"b"))
        XCTAssertNil(EditorRoundTrip.split("a\\"))
    }

    func testTheCopysNameKeepsOnlyPlainCharacters() {
        XCTAssertEqual(EditorRoundTrip.localName(Array("nginx.conf".utf8)), "nginx.conf")
        XCTAssertEqual(EditorRoundTrip.localName(Array("\u{1b}[31mred\nline.txt".utf8)), "__31mred_line.txt")
        XCTAssertEqual(EditorRoundTrip.localName(Array("..".utf8)), "file")
        XCTAssertEqual(EditorRoundTrip.localName(Array(".bashrc".utf8)), "bashrc")
        XCTAssertEqual(EditorRoundTrip.localName(Array("-rf".utf8)), "rf")
        XCTAssertEqual(EditorRoundTrip.localName([0xFF, 0xFE, 0x2E, 0x73, 0x68]), "__.sh")
        let long = EditorRoundTrip.localName(Array((String(repeating: "é", count: 300) + ".yaml").utf8))
        XCTAssertEqual(long.utf8.count, 80)
        XCTAssertTrue(long.hasSuffix(".yaml"), long)
        XCTAssertTrue(long.allSatisfy { $0 == "_" || $0 == "." || $0.isLetter }, long)
    }
}

// Keymap: no key is bound twice in one context, every command is reachable, help lists every binding, and
// the keymap sections of the README and docs/TUI.md are exactly what the table generates.
import Foundation
@testable import ShelfUI
import XCTest

final class KeymapTests: XCTestCase {
    func testNoKeyIsBoundTwiceInAContext() {
        for context in KeyContext.allCases {
            var seen: [Key: Command] = [:]
            for binding in Keymap.bindings(in: context) {
                for key in binding.keys {
                    XCTAssertNil(seen[key], "\(key.label) bound twice in \(context.rawValue)")
                    seen[key] = binding.command
                }
            }
        }
    }

    func testEveryCommandHasAKey() {
        let bound = Set(Keymap.table.map(\.command))
        for command in Command.allCases { XCTAssertTrue(bound.contains(command), "\(command) has no key") }
    }

    func testHelpShowsEveryBindingAndWhyItIsDisabled() {
        var state = Fixtures.state(ShelfUI.Catalog(), rows: 60, columns: 140)
        _ = Reducer.reduce(&state, .key(.char("?")))
        let text = HelpView.lines(state).map(\.0).joined(separator: "\n")
        for binding in Keymap.table { XCTAssertTrue(text.contains(binding.description), binding.description) }
        XCTAssertTrue(text.contains("add a forward rule to the selected host (now: no host selected)"), text)
        _ = Reducer.reduce(&state, .key(.escape))
        XCTAssertEqual(state.mode, .browse)
    }

    /// A description longer than the help box goes on under itself: nothing is cut with an ellipsis.
    func testALongDescriptionWrapsInsteadOfBeingCut() {
        var state = Fixtures.state(ShelfUI.Catalog(), rows: 200, columns: 120)
        _ = Reducer.reduce(&state, .key(.char("?")))
        let screen = Screen.render(state)
        XCTAssertFalse(screen.text.contains("…"), screen.text)
        let space = Keymap.table.first { $0.command == .toggleGroup }!.description
        XCTAssertGreaterThan(space.count, 80, "the test needs a description longer than the box")
        let shown = screen.text.split(separator: "\n").map { line in
            line.replacingOccurrences(of: "│", with: "").trimmingCharacters(in: .whitespaces)
        }
        let start = shown.firstIndex { $0.hasPrefix("Space") && $0.contains("mark or unmark") }!
        let words = shown[start...].prefix(3).joined(separator: " ").split(separator: " ").joined(separator: " ")
        XCTAssertTrue(words.contains(space.split(separator: " ").joined(separator: " ")), words)
    }

    /// The README's keymap section and docs/TUI.md's are exactly what the table generates.
    func testReadmeAndTUIDocKeymapSectionsMatchTheTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for file in ["README.md", "docs/TUI.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            guard let start = text.range(of: "<!-- keymap:start -->\n"), let end = text.range(of: "<!-- keymap:end -->")
            else {
                XCTFail("\(file) has no keymap markers")
                continue
            }
            XCTAssertEqual(
                String(text[start.upperBound..<end.lowerBound]), Keymap.markdown(),
                "\(file)'s keymap is stale: regenerate it from `sshelf ui --print-keymap`")
        }
    }
}

// SnippetOperationsTests: snippets as every face saves and uses them (SnippetOperations) on a scratch store — a name
// in use refused ignoring case, a snippet found by name or id prefix, `--param` words read, and a snippet that breaks
// the rules (as one another device wrote could: the store keeps whatever sync brought) refused before it is used.
import Foundation
import ShelfCore
import ShelfOperations
import ShelfStore
import XCTest

final class SnippetOperationsTests: XCTestCase {
    func testSaveFindAndFill() throws {
        let scratch = try ScratchStore()
        try SnippetOperations.save(
            Snippet(name: "restart", command: "systemctl restart {{unit:nginx}}"), in: scratch.store)
        XCTAssertThrowsError(try SnippetOperations.save(Snippet(name: "RESTART", command: "true"), in: scratch.store)) {
            XCTAssertEqual(($0 as? ShelfError)?.message, "a snippet named 'restart' exists already")
        }
        let found = try SnippetOperations.find("Restart", in: scratch.store)
        XCTAssertEqual(try SnippetOperations.find(String(found.id.uuidString.prefix(6)), in: scratch.store), found)
        XCTAssertEqual(
            try SnippetOperations.command(found, values: try SnippetOperations.values(["unit=ssh"])),
            "systemctl restart ssh")
        XCTAssertEqual(try SnippetOperations.command(found, values: [:]), "systemctl restart nginx")
        XCTAssertThrowsError(try SnippetOperations.values(["unit=a", "unit=b"])) {
            XCTAssertEqual(($0 as? ShelfError)?.message, "--param unit is given twice")
        }
    }

    func testASnippetBreakingTheRulesIsNotUsed() throws {
        let scratch = try ScratchStore()
        // Written as sync writes a received record: no operation's rules.
        let bad = Snippet(name: "clear", command: "printf '\u{1B}]52;c;SGVsbG8=\u{07}'")
        try scratch.store.write { store in try store.save(bad) }
        XCTAssertEqual(bad.unusable, "the command contains a control character (U+001B)")
        XCTAssertThrowsError(try SnippetOperations.command(bad, values: [:])) {
            XCTAssertEqual(
                ($0 as? ShelfError)?.message,
                "snippet 'clear' cannot be used: the command contains a control character (U+001B)")
        }
    }
}

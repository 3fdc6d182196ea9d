// OptionNoteTests: the note about options sshelf's own client does not apply is said once per host, again when the
// host or those options change, and every time with --verbose; what was said is kept as digests in a 0600 file that
// names neither the host nor the option.
import Foundation
import TestSupport
import XCTest

final class OptionNoteTests: XCTestCase {
    func testTheNoteIsSaidOnceUntilTheHostOrTheOptionChanges() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--option", "AddKeysToAgent yes"), 0)
        let note = "sshelf: note: t sets AddKeysToAgent"
        func notes(_ arguments: [String]) throws -> Int {
            let result = try world.home.run(["connect", "t", "--accept-new"] + arguments, stdin: "exit\n")
            XCTAssertExit(result, 0)
            return result.stderr.components(separatedBy: note).count - 1
        }
        XCTAssertEqual(try notes([]), 1, "said the first time")
        XCTAssertEqual(try notes([]), 0, "not again for the same host and option")
        XCTAssertEqual(try notes(["--verbose"]), 1, "--verbose says it every time")
        XCTAssertEqual(try notes([]), 0)
        XCTAssertExit(
            try world.home.run(
                "edit", "t", "--remove-option", "AddKeysToAgent",
                "--option", "AddKeysToAgent confirm"), 0)
        XCTAssertEqual(try notes([]), 1, "the option changed")
        XCTAssertEqual(try notes([]), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--host", "localhost"), 0)
        XCTAssertEqual(try notes([]), 1, "the host changed")

        let state = world.home.sshelfHome + "/state/option-notes"
        var info = stat()
        XCTAssertEqual(stat(state, &info), 0, "kept at \(state)")
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let text = try String(contentsOfFile: state, encoding: .utf8)
        XCTAssertFalse(text.contains("AddKeysToAgent") || text.contains("127.0.0.1"), text)
    }
}

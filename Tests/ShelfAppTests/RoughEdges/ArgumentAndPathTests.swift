// ArgumentAndPathTests: text that would be stored wrong is refused with where it is wrong — arguments that
// are not UTF-8 (an address `10.0.\xff.1` must not become a host with U+FFFD in it), and group paths with
// '.', '..', empty parts or absurd depth (which `--group ../..` and a 1,000-level path used to accept).
import Foundation
import TestSupport
import XCTest

final class ArgumentAndPathTests: XCTestCase {
    /// Runs sshelf through sh, so `printf` can put raw bytes into an argument.
    func runRaw(_ home: TempHome, _ script: String) throws -> CLIResult {
        try CLI.run(["-c", script, CLI.binary], environment: home.environment, shell: true)
    }

    func jsonCount(_ home: TempHome, _ arguments: [String]) throws -> Int {
        let output = try home.run(arguments).stdout
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [Any], output).count
    }

    func testArgumentsThatAreNotUTF8AreRefusedWithTheByteOffset() throws {
        let home = TempHome()
        let address = try runRaw(home, #"exec "$0" add web --host "$(printf '10.0.\377.1')""#)
        XCTAssertExit(address, 2)
        XCTAssertTrue(address.stderr.contains("argument 4 is not valid UTF-8: byte 6 (0xff)"), address.stderr)
        XCTAssertTrue(address.stderr.contains("sshelf: hint: "), address.stderr)
        // A truncated sequence: the first byte of a two-byte character, then ASCII.
        let name = try runRaw(home, #"exec "$0" add "$(printf 'caf\303')x" --host h"#)
        XCTAssertExit(name, 2)
        XCTAssertTrue(name.stderr.contains("argument 2 is not valid UTF-8: byte 4 (0xc3)"), name.stderr)
        XCTAssertEqual(try jsonCount(home, ["list", "--json"]), 0)
        // Valid UTF-8 beyond ASCII is text like any other.
        XCTAssertExit(try runRaw(home, #"exec "$0" add "$(printf 'caf\303\251')" --host h"#), 0)
        XCTAssertTrue(try home.run("list").stdout.contains("café"))
    }

    func testRelativeAndEmptyGroupPathPartsAreRefused() throws {
        let home = TempHome()
        for path in ["..", "../..", "prod/../eu", "./prod", "prod//eu"] {
            let group = try home.run("group", "add", path)
            XCTAssertExit(group, 4)
            XCTAssertTrue(group.stderr.contains("group path '\(path)'"), group.stderr)
            XCTAssertExit(try home.run("add", "h", "--host", "h.example", "--group", path), 4)
        }
        XCTAssertEqual(try jsonCount(home, ["group", "list", "--json"]), 0, "nothing named '.' or '..' was made")
        // One leading and trailing '/' are how paths are often written; they still name prod/eu.
        XCTAssertExit(try home.run("add", "h", "--host", "h.example", "--group", "/prod/eu/"), 0)
        XCTAssertTrue(try home.run("show", "h").stdout.contains("group          prod/eu"))
        let mv = try home.run("group", "mv", "prod/eu", "prod/../eu")
        XCTAssertExit(mv, 4)
        XCTAssertTrue(mv.stderr.contains("no relative parts"), mv.stderr)
    }

    func testGroupPathsHaveADepthLimitAndAreMadeInOnePass() throws {
        let home = TempHome()
        let deepest = (1...32).map { "g\($0)" }.joined(separator: "/")
        XCTAssertExit(try home.run("group", "add", deepest), 0)
        let groups = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("group", "list", "--json").stdout.utf8))
                as? [[String: Any]])
        XCTAssertEqual(groups.count, 32)
        XCTAssertEqual(groups.last?["path"] as? String, deepest)

        let tooDeep = try home.run("group", "add", deepest + "/g33")
        XCTAssertExit(tooDeep, 4)
        XCTAssertTrue(tooDeep.stderr.contains("33 levels deep; sshelf allows up to 32"), tooDeep.stderr)
        let absurd = try home.run(
            "add", "h", "--host", "h.example", "--group", Array(repeating: "x", count: 1000).joined(separator: "/"))
        XCTAssertExit(absurd, 4)
        XCTAssertTrue(absurd.stderr.contains("1000 levels deep"), absurd.stderr)
        XCTAssertLessThan(absurd.stderr.count, 400, "the message shows the start of the path, not all of it")
    }
}

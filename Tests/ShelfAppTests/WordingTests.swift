// WordingTests (#26): a name that names nothing gets the closest names whatever the command (`show bastoin` as
// `connect db`), a refused connection names the host with its address after it, and `show` prints notes of several
// lines as lines.
import Foundation
import TestSupport
import XCTest

final class WordingTests: XCTestCase {
    func testEveryCommandThatTakesAHostNameSuggestsTheClosestOnes() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "bastion", "--host", "bastion.example.com"), 0)
        XCTAssertExit(try home.run("add", "prod-db", "--host", "db.example.com"), 0)
        let cases: [([String], String)] = [
            (["show", "bastoin"], "did you mean: bastion?"),  // two letters swapped: no fuzzy match, one edit
            (["connect", "db"], "did you mean: prod-db?"),  // part of a name: the search's match
            (["edit", "bastio", "--port", "2222"], "did you mean: bastion?"),
            (["exec", "prod_db", "--no-stdin", "--", "true"], "did you mean: prod-db?"),
        ]
        for (arguments, hint) in cases {
            let result = try home.run(arguments)
            XCTAssertExit(result, 3)
            XCTAssertTrue(result.stderr.contains("sshelf: hint: \(hint)"), "\(arguments): \(result.stderr)")
        }
        let far = try home.run("show", "zzzzzz")
        XCTAssertTrue(far.stderr.contains("sshelf: hint: see 'sshelf list'"), far.stderr)
        // Groups by the same rule.
        XCTAssertExit(try home.run("edit", "prod-db", "--group", "prod/eu"), 0)
        let group = try home.run("list", "--group", "prod/ue")
        XCTAssertTrue(group.stderr.contains("sshelf: hint: did you mean: prod/eu?"), group.stderr)
    }

    func testARefusedConnectionNamesTheHostWithItsAddress() throws {
        let home = TempHome()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try home.run("add", "dead", "--host", "127.0.0.1", "--port", String(port)), 0)
        let result = try home.run("exec", "dead", "--no-stdin", "--", "true")
        XCTAssertExit(result, 255)
        XCTAssertTrue(
            result.stderr.contains(
                "sshelf: error: dead refused the connection ([127.0.0.1]:\(port): Connection refused)"), result.stderr)
    }

    func testShowPrintsNotesOfSeveralLinesAsIndentedLines() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "n", "--host", "n.example.com", "--notes", "rack 4\nask Ana first\nthird"), 0)
        let shown = try home.run("show", "n").stdout
        XCTAssertTrue(
            shown.contains("notes          rack 4\n               ask Ana first\n               third\n"), shown)
        XCTAssertFalse(shown.contains("?"), shown)
    }
}

// RecordSettingTests: the `record` setting of hosts and groups through the binary — a host takes its group's (and
// the group its parent's) unless it has its own, `group` clears a host's own, a bad word is refused saying which
// words there are, and the setting is part of the host's JSON (so it syncs with the host's other settings).
import Foundation
import TestSupport
import XCTest

final class RecordSettingTests: XCTestCase {
    private func recordLine(_ home: TempHome, _ host: String) throws -> String {
        let shown = try home.run("show", host)
        XCTAssertExit(shown, 0)
        return shown.stdout.split(separator: "\n").first { $0.hasPrefix("record ") }.map(String.init) ?? shown.stdout
    }

    func testHostsTakeTheirGroupsSettingUnlessTheyHaveTheirOwn() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "db", "--host", "db.example", "--group", "prod/eu"), 0)
        XCTAssertEqual(try recordLine(home, "db"), "record         off (the default)")
        XCTAssertExit(try home.run("group", "edit", "prod", "--record", "ask"), 0)
        XCTAssertEqual(try recordLine(home, "db"), "record         ask (as group prod)")
        XCTAssertExit(try home.run("group", "edit", "prod/eu", "--record", "on"), 0)
        XCTAssertEqual(try recordLine(home, "db"), "record         on (as group prod/eu)")
        XCTAssertExit(try home.run("edit", "db", "--record", "off"), 0)
        XCTAssertEqual(try recordLine(home, "db"), "record         off")
        let json = try home.run("show", "db", "--json")
        XCTAssertTrue(
            json.stdout.contains("\"record\":\"off\"") || json.stdout.contains("\"record\" : \"off\""), json.stdout)
        XCTAssertExit(try home.run("edit", "db", "--record", "group"), 0)
        XCTAssertEqual(try recordLine(home, "db"), "record         on (as group prod/eu)")
    }

    func testABadWordIsRefusedNamingTheWords() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "db", "--host", "db.example"), 0)
        let refused = try home.run("edit", "db", "--record", "maybe")
        XCTAssertExit(refused, 4)
        XCTAssertEqual(
            refused.stderr,
            "sshelf: error: --record: unknown value 'maybe'\n"
                + "sshelf: hint: one of: off, on, ask, or group (as its group)\n"
        )
        let group = try home.run("group", "edit", "nowhere", "--record", "on")
        XCTAssertNotEqual(group.status, 0)
        XCTAssertExit(try home.run("group", "add", "prod"), 0)
        XCTAssertExit(try home.run("group", "edit", "prod"), 2)
    }
}

// ForwardEditTests: `forward edit|enable|disable` through the real binary — only the options given change, the
// bind-address rule holds for an edited spec, and the stored rule (read back as JSON) is what was asked for.
import Foundation
import TestSupport
import XCTest

final class ForwardEditTests: XCTestCase {
    func testEditEnableAndDisableChangeOnlyWhatWasAsked() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "db", "--host", "db.example.com"), 0)
        XCTAssertExit(
            try home.run("forward", "add", "db", "-L", "5432:localhost:5432", "--name", "pg", "--autostart"), 0)
        let id = try XCTUnwrap(try rules(home).first?["id"] as? String)

        let edited = try home.run("forward", "edit", "pg", "--local", "15432:localhost:5432")
        XCTAssertExit(edited, 0)
        XCTAssertTrue(
            edited.stdout.contains(
                "updated forward \(id.prefix(8)) of db: -L 127.0.0.1:15432:localhost:5432 (autostart) 'pg'"),
            edited.stdout)
        var rule = try XCTUnwrap(try rules(home).first)
        XCTAssertEqual(rule["bindPort"] as? Int, 15432)
        XCTAssertEqual(rule["targetPort"] as? Int, 5432)
        XCTAssertEqual(rule["autostart"] as? Bool, true, "untouched")
        XCTAssertEqual(rule["name"] as? String, "pg", "untouched")

        XCTAssertExit(try home.run("forward", "edit", String(id.prefix(6)), "--no-autostart", "--name", "postgres"), 0)
        XCTAssertExit(try home.run("forward", "edit", "postgres", "--dynamic", "1080"), 0)
        rule = try XCTUnwrap(try rules(home).first)
        XCTAssertEqual(rule["autostart"] as? Bool, false)
        XCTAssertEqual(rule["name"] as? String, "postgres")
        XCTAssertEqual(rule["kind"] as? String, "dynamic")
        XCTAssertEqual(rule["bindPort"] as? Int, 1080)

        let disabled = try home.run("forward", "disable", "postgres")
        XCTAssertExit(disabled, 0)
        XCTAssertTrue(
            disabled.stdout.contains("disabled forward \(id.prefix(8)) of db: -D 127.0.0.1:1080 (disabled) 'postgres'"),
            disabled.stdout)
        XCTAssertEqual(try rules(home).first?["enabled"] as? Bool, false)
        XCTAssertTrue(try home.run("forward", "list").stdout.contains("disabled"))
        let none = try home.run("forward", "start", "db")
        XCTAssertExit(none, 3)
        XCTAssertTrue(none.stderr.contains("db has no enabled forward rules"), none.stderr)
        XCTAssertExit(try home.run("forward", "enable", "postgres"), 0)
        XCTAssertEqual(try rules(home).first?["enabled"] as? Bool, true)

        // An edited spec keeps the bind-address rule; a bad one changes nothing.
        let public_ = try home.run("forward", "edit", "postgres", "--dynamic", "0.0.0.0:1080")
        XCTAssertExit(public_, 2)
        XCTAssertTrue(public_.stderr.contains("--allow-public-bind"), public_.stderr)
        XCTAssertExit(
            try home.run("forward", "edit", "postgres", "--dynamic", "0.0.0.0:1080", "--allow-public-bind"), 0)
        XCTAssertExit(try home.run("forward", "edit", "postgres", "--local", "1:2"), 4)
        XCTAssertExit(try home.run("forward", "edit", "postgres", "--local", "1:h:2", "--dynamic", "3"), 2)
        XCTAssertExit(try home.run("forward", "edit", "postgres", "--autostart", "--no-autostart"), 2)
        XCTAssertExit(try home.run("forward", "enable", "nope"), 3)
        XCTAssertEqual(try rules(home).first?["bindAddress"] as? String, "0.0.0.0")
        XCTAssertEqual(try rules(home).count, 1)
    }

    private func rules(_ home: TempHome) throws -> [[String: Any]] {
        let list = try home.run("forward", "list", "--json")
        return try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], list.stdout)
    }
}

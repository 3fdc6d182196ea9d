// Host commands through the real binary: add, list, show, edit, rm, mv — happy paths and bad input.
import Foundation
import TestSupport
import XCTest

final class HostCommandTests: XCTestCase {
    func testAddListShowEditRemove() throws {
        let home = TempHome()
        XCTAssertExit(
            try home.run(
                "add", "web1", "--host", "web1.example.com", "--user", "deploy", "--group", "prod/eu",
                "--tag", "web"), 0)
        XCTAssertExit(try home.run("add", "db", "-H", "10.0.0.5", "-p", "2222", "--jump", "web1"), 0)
        let list = try home.run("list")
        XCTAssertExit(list, 0)
        XCTAssertTrue(list.stdout.contains("deploy@web1.example.com"), list.stdout)
        XCTAssertTrue(list.stdout.contains("10.0.0.5:2222"), list.stdout)
        XCTAssertTrue(list.stdout.contains("prod/eu"), list.stdout)

        let show = try home.run("show", "db")
        XCTAssertExit(show, 0)
        XCTAssertTrue(show.stdout.contains("jump           web1"), show.stdout)

        XCTAssertExit(try home.run("edit", "db", "--port", "2200", "--tag", "sql", "--rename", "database"), 0)
        let json = try home.run("show", "database", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["port"] as? Int, 2200)
        XCTAssertEqual(object["tags"] as? [String], ["sql"])

        XCTAssertExit(try home.run("mv", "database", "--group", "prod"), 0)
        XCTAssertTrue(try home.run("list", "--group", "prod").stdout.contains("database"))
        XCTAssertExit(try home.run("rm", "database"), 0)
        XCTAssertFalse(try home.run("list").stdout.contains("database"))
    }
}

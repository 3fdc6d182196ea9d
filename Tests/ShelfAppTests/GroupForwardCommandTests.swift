// Groups by slash path and forward rules through the real binary.
import Foundation
import TestSupport
import XCTest

final class GroupForwardCommandTests: XCTestCase {
    func json(_ result: CLIResult) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    }

    func testGroupsNestCountMoveAndRemove() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("group", "add", "prod/eu/fra"), 0)
        XCTAssertExit(try home.run("add", "a", "--host", "a", "--group", "prod/eu/fra"), 0)
        XCTAssertExit(try home.run("add", "b", "--host", "b", "--group", "prod"), 0)
        let tree = try home.run("group", "list")
        XCTAssertEqual(tree.stdout, "prod/  (2 hosts)\n  eu/  (1 host)\n    fra/  (1 host)\n")

        XCTAssertExit(try home.run("group", "mv", "prod/eu", "europe"), 0)
        let paths = try json(try home.run("group", "list", "--json")).compactMap { $0["path"] as? String }
        XCTAssertEqual(Set(paths), ["prod", "europe", "europe/fra"])
        XCTAssertTrue(try home.run("list", "europe").stdout.contains("a "), "group path is searchable")

        let refused = try home.run("group", "rm", "europe")
        XCTAssertExit(refused, 2)
        XCTAssertTrue(refused.stderr.contains("holds 1 host and 1 group"), refused.stderr)
        XCTAssertExit(try home.run("forward", "add", "a", "--dynamic", "1080"), 0)
        let removed = try home.run("group", "rm", "europe", "--recursive")
        XCTAssertExit(removed, 0)
        XCTAssertTrue(removed.stdout.contains("1 host(s) and 1 forward rule(s)"), removed.stdout)
        XCTAssertEqual(try json(try home.run("list", "--json")).compactMap { $0["name"] as? String }, ["b"])
        XCTAssertEqual(try json(try home.run("forward", "list", "--json")).count, 0)
    }

    func testForwardRulesAddListRemoveAndOrphans() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(
            try home.run("forward", "add", "db", "-L", "5432:localhost:5432", "--name", "pg", "--autostart"), 0)
        XCTAssertExit(try home.run("forward", "add", "db", "--remote", "[::1]:9000:[::1]:9000"), 0)
        XCTAssertExit(try home.run("forward", "add", "db", "--dynamic", "0.0.0.0:1080", "--allow-public-bind"), 0)
        let rules = try json(try home.run("forward", "list", "db", "--json"))
        XCTAssertEqual(rules.count, 3)
        let pg = try XCTUnwrap(rules.first { $0["name"] as? String == "pg" })
        XCTAssertEqual(pg["bindAddress"] as? String, "127.0.0.1")
        XCTAssertEqual(pg["targetPort"] as? Int, 5432)
        XCTAssertEqual(pg["autostart"] as? Bool, true)
        let table = try home.run("forward", "list")
        XCTAssertTrue(table.stdout.contains("[::1]:9000:[::1]:9000"), table.stdout)
        XCTAssertExit(try home.run("forward", "rm", "pg"), 0)
        XCTAssertEqual(try json(try home.run("forward", "list", "--json")).count, 2)

        // Removing the host says what else goes.
        let rm = try home.run("rm", "db")
        XCTAssertTrue(rm.stdout.contains("and its 2 forward rules"), rm.stdout)
    }

    func testCheckReportsDanglingJumpHost() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "bastion", "--host", "b"), 0)
        XCTAssertExit(try home.run("add", "inner", "--host", "i", "--jump", "bastion"), 0)
        XCTAssertExit(try home.run("check"), 0)
        let rm = try home.run("rm", "bastion", "--force")
        XCTAssertTrue(rm.stdout.contains("inner jumped through it"), rm.stdout)
        let check = try home.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(
            check.stdout.contains("host 'inner' goes through a jump host that no longer exists"), check.stdout)
    }
}

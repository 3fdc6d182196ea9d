// PostQuantumSyncTests: the `pq` setting of a host and of a group travels with sync like the host's other settings,
// merges as its own field (a pq edit on one device and a port edit on the other both stay), and the store file keeps
// a host's in its own column (never in `extra`), a group's in the group row's `extra` JSON.
import Foundation
import ShelfSQLite
import TestSupport
import XCTest

final class PostQuantumSyncTests: XCTestCase {
    func testThePQSettingOfAHostAndAGroupTravelsAndMergesAsItsOwnField() throws {
        let remote = try syncRemote("pq-remote")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example", "--group", "prod"), 0)
        XCTAssertExit(try a.run("add", "db", "--host", "d.example", "--group", "prod/eu"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        try enroll(b, by: a)

        // Two devices, two fields of one host: the pq setting here, the port there.
        XCTAssertExit(try a.run("edit", "web", "--pq", "require"), 0)
        XCTAssertExit(try b.run("edit", "web", "--port", "2222"), 0)
        XCTAssertExit(try a.run("group", "edit", "prod/eu", "--pq", "require"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        for home in [a, b] {
            let web = try home.run("show", "web")
            XCTAssertTrue(web.stdout.contains("post-quantum   required (its pq setting is require)"), web.stdout)
            XCTAssertTrue(web.stdout.contains("w.example:2222"), web.stdout)
            let db = try home.run("show", "db")
            XCTAssertTrue(db.stdout.contains("post-quantum   required (group prod/eu sets pq require)"), db.stdout)
            XCTAssertTrue(try home.run("group", "list", "--json").stdout.contains("\"pq\" : \"require\""))
        }
        XCTAssertFalse(try b.run("sync", "conflicts").stdout.contains("web"), "different fields: no conflict")

        // Off travels too; the column holds it, `extra` never does.
        XCTAssertExit(try b.run("edit", "web", "--pq", "off"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertFalse(try a.run("show", "web").stdout.contains("post-quantum"))
        let db = try SQLiteDatabase(path: a.sshelfHome + "/data/store.sqlite", readOnly: true)
        let rows = try db.query("SELECT name, pq, extra FROM hosts ORDER BY name") { row in
            [row.text(0), row.text(1), row.text(2)]
        }
        XCTAssertEqual(rows, [["db", "", ""], ["web", "", ""]])
        let groups = try db.query("SELECT name, extra FROM host_groups ORDER BY name") { [$0.text(0), $0.text(1)] }
        XCTAssertEqual(groups, [["eu", "{\"pq\":\"require\"}"], ["prod", ""]])
    }
}

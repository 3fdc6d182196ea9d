// AnnotationTests: sshclick's `#@group:` and `#@desc:` comments become groups and notes on import and are written back
// by export, so import → export → import keeps them.
import Foundation
import TestSupport
import XCTest

final class AnnotationTests: XCTestCase {
    func testGroupAndDescriptionCommentsAreImportedAndExportedBack() throws {
        let home = TempHome()
        let config = try home.write(
            """
            #@group: web
            Host web1 web1.prod
                #@desc: the front page
                #@desc: behind the load balancer
                HostName 10.0.0.1
            Host web2
                HostName 10.0.0.2
            #@group: databases/eu
            Host db
                HostName 10.0.0.3
            #@group:
            Host loose
                HostName 10.0.0.4
            """, to: ".ssh/config")
        let imported = try home.run("import", "ssh-config", config)
        XCTAssertExit(imported, 0)
        XCTAssertFalse(imported.stdout.contains("warning"), imported.stdout)
        XCTAssertEqual(try home.run("list", "--names", "--group", "web").stdout, "web1\nweb2\n")
        XCTAssertEqual(try home.run("list", "--names", "--group", "databases/eu").stdout, "db\n")
        XCTAssertTrue(try home.run("show", "loose").stdout.contains("group          (none)\n"))
        let web1 = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("show", "web1", "--json").stdout.utf8))
                as? [String: Any])
        XCTAssertEqual(web1["notes"] as? String, "the front page\nbehind the load balancer")
        XCTAssertEqual(web1["aliases"] as? [String], ["web1.prod"])

        let exported = try home.run("export", "ssh-config")
        XCTAssertTrue(exported.stdout.contains("#@group: databases/eu\nHost db\n"), exported.stdout)
        XCTAssertTrue(exported.stdout.contains("#@group: \nHost loose\n"), exported.stdout)
        XCTAssertTrue(
            exported.stdout.contains(
                "Host web1 web1.prod\n    #@desc: the front page\n    #@desc: behind the load balancer\n"),
            exported.stdout)
        let other = TempHome()
        XCTAssertExit(try other.run("import", "ssh-config", try other.write(exported.stdout, to: "exported")), 0)
        XCTAssertEqual(try other.run("export", "ssh-config").stdout, exported.stdout)
        XCTAssertEqual(try other.run("list", "--names", "--group", "web").stdout, "web1\nweb2\n")
        let file = try home.write(exported.stdout, to: "exported")
        XCTAssertTrue(try home.run("import", "ssh-config", file).stdout.contains("0 added, 0 updated, 4 unchanged"))
    }
}

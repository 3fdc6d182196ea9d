// ImportGroupByFileTests: `import ssh-config --group-by-file` puts the hosts of each Included file in a group named
// after the file, and the main file's hosts where --group says; without it, one flat list as before.
import Foundation
import TestSupport
import XCTest

final class ImportGroupByFileTests: XCTestCase {
    func testEachIncludedFileBecomesAGroup() throws {
        let home = TempHome()
        _ = try home.write(
            "Host w1 w1.work\n    HostName 10.0.1.1\nHost w2\n    HostName 10.0.1.2\n", to: ".ssh/config.d/work.conf")
        _ = try home.write("Host p1\n    HostName 10.0.2.1\n", to: ".ssh/config.d/personal.conf")
        let config = try home.write("Include config.d/*.conf\n\nHost main\n    HostName 10.0.0.1\n", to: ".ssh/config")
        let imported = try home.run("import", "ssh-config", config, "--group-by-file", "--group", "imported")
        XCTAssertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("4 added"), imported.stdout)
        XCTAssertEqual(try home.run("list", "--names", "--group", "imported/work").stdout, "w1\nw2\n")
        XCTAssertEqual(try home.run("list", "--names", "--group", "imported/personal").stdout, "p1\n")
        XCTAssertTrue(try home.run("show", "main").stdout.contains("group          imported\n"))

        let flat = TempHome()
        _ = try flat.write("Host w2\n    HostName 10.0.1.2\n", to: ".ssh/config.d/work.conf")
        let plain = try flat.write("Include config.d/*.conf\n", to: ".ssh/config")
        XCTAssertExit(try flat.run("import", "ssh-config", plain), 0)
        XCTAssertTrue(try flat.run("show", "w2").stdout.contains("group          (none)\n"))
    }
}

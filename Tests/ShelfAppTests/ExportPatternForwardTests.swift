// ExportPatternForwardTests: `sshelf export ssh-config` writes a forward a `Host` pattern gives an imported host once
// — in the pattern's block, as the user wrote it — not again in sshelf's spelling in the host's own block (ssh reads
// `19999` and `127.0.0.1:19999` as two forwards, and the second cannot bind).
import Foundation
import TestSupport
import XCTest

final class ExportPatternForwardTests: XCTestCase {
    func testAPatternsForwardIsExportedOnceForTheHostsItMatches() throws {
        let home = TempHome()
        let config = try home.write(
            """
            Host prod-x
                HostName 10.0.0.5
                LocalForward 18080 localhost:8080
            Host prod-*
                LocalForward 19999 localhost:80
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        let exported = try home.run("export", "ssh-config")
        XCTAssertExit(exported, 0)
        XCTAssertFalse(exported.stdout.contains("LocalForward 127.0.0.1:19999"), exported.stdout)
        XCTAssertTrue(exported.stdout.contains("    LocalForward 127.0.0.1:18080 localhost:8080\n"), exported.stdout)
        XCTAssertTrue(exported.stdout.hasSuffix("Host prod-*\n    LocalForward 19999 localhost:80\n"), exported.stdout)
        let file = try home.write(exported.stdout, to: "exported")
        let resolved = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", "prod-x"])
        let forwards = resolved.split(separator: "\n").filter { $0.hasPrefix("localforward ") }
        XCTAssertEqual(
            forwards, ["localforward [127.0.0.1]:18080 [localhost]:8080", "localforward 19999 [localhost]:80"],
            resolved)
        let again = try home.run("import", "ssh-config", file)
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated, 1 unchanged"), again.stdout)
    }
}

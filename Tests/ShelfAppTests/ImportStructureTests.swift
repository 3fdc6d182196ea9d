// The importer's structure, not its speed: one write transaction for the whole file, and a fixed set of
// prepared statements whatever the number of hosts (run in-process, counting what the store did); no size cap
// below the documented limit, and a clear error above it.
import Foundation
@testable import ShelfApp
@testable import ShelfStore
import TestSupport
import XCTest

final class ImportStructureTests: XCTestCase {
    /// Imports a generated config of `count` hosts in this process; returns the store's commits and prepares.
    func importCounting(_ count: Int) throws -> (commits: Int, prepared: Int, listed: Int) {
        let home = TempHome()
        XCTAssertExit(try home.run("list"), 0)  // the store exists and is migrated before counting starts
        let path = try home.write(BenchmarkData.sshConfig(BenchmarkData.realistic(count)), to: "fleet.conf")
        var printed = ""
        let context = AppContext(environment: home.environment, output: { printed += $0 }, errorOutput: { printed += $0 })
        let before = StoreCounters.snapshot()
        XCTAssertEqual(SshelfMain.run(["import", "ssh-config", path], context: context), 0, printed)
        let after = StoreCounters.snapshot()
        let listed = try home.run("list").stdout.split(separator: "\n").count - 1
        return (after.commits - before.commits, after.prepared - before.prepared, listed)
    }

    func testAnImportIsOneTransactionWithAFixedSetOfPreparedStatements() throws {
        let small = try importCounting(200)
        let large = try importCounting(3_000)
        XCTAssertEqual(small.listed, 200)
        XCTAssertEqual(large.listed, 3_000)
        XCTAssertEqual(small.commits, 1, "the whole file in one transaction")
        XCTAssertEqual(large.commits, 1, "the whole file in one transaction")
        XCTAssertEqual(large.prepared, small.prepared, "statements are prepared once, not per host")
        XCTAssertLessThan(large.prepared, 40)
    }

    /// New hosts get random ids handed out in name order, so the store's inserts append to every index (the primary
    /// key and the name index agree): listed by name, their ids ascend.
    func testNewHostsGetIDsInTheirNameOrder() throws {
        let home = TempHome()
        let path = try home.write(BenchmarkData.sshConfig(BenchmarkData.realistic(500)), to: "fleet.conf")
        XCTAssertExit(try home.run("import", "ssh-config", path), 0)
        let listed = try home.run("list", "--json")
        XCTAssertExit(listed, 0)
        let records = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let ids = records.compactMap { $0["id"] as? String }
        XCTAssertEqual(ids.count, 500)
        XCTAssertEqual(ids, ids.sorted(), "ids in the list's (name) order")
        XCTAssertEqual(Set(ids).count, 500)
        XCTAssertTrue(ids.allSatisfy { UUID(uuidString: $0) != nil && $0.dropFirst(14).first == "4" }, "random (version 4) ids")
    }

    func testAConfigOverTheOldCapImportsAndOneOverTheLimitIsRefusedClearly() throws {
        let home = TempHome()
        // 9 MiB of comments around two hosts: past the old undocumented 8 MiB cap.
        let padding = String(repeating: "# " + String(repeating: "x", count: 1021) + "\n", count: 9 * 1024)
        let big = try home.write(padding + "Host a\n  HostName a.example\nHost b\n  HostName b.example\n", to: "big.conf")
        let imported = try home.run("import", "ssh-config", big)
        XCTAssertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("2 added"), imported.stdout)
        // A sparse file just over the limit: refused before reading, with the limit and what to do.
        let huge = home.home + "/huge.conf"
        XCTAssertTrue(FileManager.default.createFile(atPath: huge, contents: nil))
        XCTAssertEqual(truncate(huge, off_t(256 * 1024 * 1024 + 1)), 0)
        let refused = try home.run("import", "ssh-config", huge)
        XCTAssertExit(refused, 4)
        XCTAssertTrue(refused.stderr.contains("is larger than 256 MiB, the most sshelf reads as one ssh config"),
                      refused.stderr)
        XCTAssertTrue(refused.stderr.contains("sshelf: hint: split it into several files joined with Include"),
                      refused.stderr)
    }
}

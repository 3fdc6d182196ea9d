// The importer's structure, not its speed: one write transaction for the whole file, and a fixed set of
// prepared statements whatever the number of hosts (run in-process, counting what the store did); a large file's
// hosts finished on the other core exactly as a small file's; no size cap below the documented limit, and a clear
// error above it.
import Foundation
@testable import ShelfCLI
import ShelfCore
import ShelfServices
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
        let context = AppContext(
            environment: home.environment, output: { printed += $0 }, errorOutput: { printed += $0 })
        let before = StoreCounters.snapshot()
        XCTAssertEqual(CommandLineRun.run(["import", "ssh-config", path], context: context), 0, printed)
        let after = StoreCounters.snapshot()
        return (after.commits - before.commits, after.prepared - before.prepared, try names(home))
    }

    /// How many names the stored hosts answer to (the generator writes some blocks with two names for one address:
    /// one host with an alias each).
    func names(_ home: TempHome) throws -> Int {
        let listed = try home.run("list", "--json")
        let records = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        return records.reduce(0) { $0 + 1 + (($1["aliases"] as? [String])?.count ?? 0) }
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
        XCTAssertEqual(try names(home), 500)
        XCTAssertLessThan(ids.count, 500, "some blocks have two names for one host")
        XCTAssertEqual(ids, ids.sorted(), "ids in the list's (name) order")
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertTrue(
            ids.allSatisfy { UUID(uuidString: $0) != nil && $0.dropFirst(14).first == "4" }, "random (version 4) ids")
    }

    /// The second pass of a large file runs on the other core as the rows go in: its jump chains (to hosts later in
    /// the file), its warnings and its failures are those of a small file, reported in file order, and a host it
    /// skips is not stored.
    func testALargeFileFinishesItsHostsAsASmallOneDoes() throws {
        let chain = (0...Validation.maxJumpChain).map { String(format: "h%04d", $0) }.joined(separator: ",")
        let special = """
            Host a-first
                ProxyJump h2999
            Host ghost
                ProxyJump nowhere
            Host loop
                ProxyJump loop
            Host too-long
                ProxyJump \(chain)

            """
        // Names in reverse order, so the file's order is not the order ids are handed out in.
        let fleet = (0..<3_000).reversed().map {
            String(format: "Host h%04d\n    HostName 10.0.%d.%d\n", $0, $0 / 256, $0 % 256)
        }
        let home = TempHome()
        let small = try home.write(special, to: "small.conf")
        let large = try home.write(special + fleet.joined(), to: "large.conf")
        let smallHome = TempHome()
        _ = try smallHome.write(
            "Host h2999\n    HostName x\n"
                + (0...Validation.maxJumpChain).map { String(format: "Host h%04d\n", $0) }.joined(), to: "known.conf")
        XCTAssertExit(try smallHome.run("import", "ssh-config", smallHome.home + "/known.conf"), 0)
        let one = try smallHome.run("import", "ssh-config", small)
        let many = try home.run("import", "ssh-config", large)
        XCTAssertExit(one, 4)
        XCTAssertExit(many, 4)
        func report(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  warning") || $0.hasPrefix("  error") }
                .map {
                    $0.replacingOccurrences(of: home.home + "/large.conf", with: "F").replacingOccurrences(
                        of: home.home + "/small.conf", with: "F")
                }
        }
        XCTAssertEqual(report(many.stdout), report(one.stdout), "the same warnings and failures, in file order")
        XCTAssertEqual(report(many.stdout).count, 3, many.stdout)
        XCTAssertTrue(many.stdout.contains("3003 added"), many.stdout)
        let shown = try home.run("show", "a-first")
        XCTAssertExit(shown, 0)
        XCTAssertTrue(shown.stdout.contains("h2999"), "a jump to a host later in the file: \(shown.stdout)")
        XCTAssertExit(try home.run("show", "too-long"), 3)
    }

    func testAConfigOverTheOldCapImportsAndOneOverTheLimitIsRefusedClearly() throws {
        let home = TempHome()
        // 9 MiB of comments around two hosts: past the old undocumented 8 MiB cap.
        let padding = String(repeating: "# " + String(repeating: "x", count: 1021) + "\n", count: 9 * 1024)
        let big = try home.write(
            padding + "Host a\n  HostName a.example\nHost b\n  HostName b.example\n", to: "big.conf")
        let imported = try home.run("import", "ssh-config", big)
        XCTAssertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("2 added"), imported.stdout)
        // A sparse file just over the limit: refused before reading, with the limit and what to do.
        let huge = home.home + "/huge.conf"
        XCTAssertTrue(FileManager.default.createFile(atPath: huge, contents: nil))
        XCTAssertEqual(truncate(huge, off_t(256 * 1024 * 1024 + 1)), 0)
        let refused = try home.run("import", "ssh-config", huge)
        XCTAssertExit(refused, 4)
        XCTAssertTrue(
            refused.stderr.contains("is larger than 256 MiB, the most sshelf reads as one ssh config"),
            refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("sshelf: hint: split it into several files joined with Include"),
            refused.stderr)
    }
}

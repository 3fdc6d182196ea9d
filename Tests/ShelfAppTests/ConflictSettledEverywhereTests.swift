// The reproduction of issue 33 through the CLI, on a folder and on a git remote: prod-web-01's user edited to alice
// on A and to bob on B lists one conflict on each; A settles it taking alice; after a sync on both, B lists it settled
// by A with alice and no longer offers to settle it — B's later different choice is refused, never a silent reversal —
// and the conflict is listed once on each device.
import Foundation
import TestSupport
import XCTest

final class ConflictSettledEverywhereTests: XCTestCase {
    func testASettleOnOneDeviceShowsSettledOnTheOtherFolder() throws {
        try reproduction(remote: ["--folder", try syncRemote("settle-folder")])
    }

    func testASettleOnOneDeviceShowsSettledOnTheOtherGit() throws {
        let base = try syncRemote("settle-git")
        try Shell.run(TestTool.git.path, ["init", "--quiet", "--bare", base + "/remote.git"])
        try reproduction(remote: ["--git", "file://" + base + "/remote.git"])
    }

    /// A and B settle the conflict differently before either syncs: both list it disputed, naming both choices and
    /// the value that stands (the later choice, on both); settling it again on A ends it everywhere.
    func testTwoDifferentChoicesAreShownDisputedOnBoth() throws {
        let remote = ["--folder", try syncRemote("settle-dispute")]
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "prod-web-01", "--host", "w.example"), 0)
        XCTAssertExit(try a.run(["sync", "enable"] + remote), 0)
        XCTAssertExit(try b.run(["sync", "enable"] + remote), 0)
        try enroll(b, by: a)
        XCTAssertExit(try a.run("edit", "prod-web-01", "--user", "alice"), 0)
        XCTAssertExit(try b.run("edit", "prod-web-01", "--user", "bob"), 0)
        for home in [a, b, a, b] { XCTAssertExit(try home.run("sync", "now"), 0) }
        let numberOnA = try XCTUnwrap(try conflicts(a).first?["id"] as? Int)
        let numberOnB = try XCTUnwrap(try conflicts(b).first?["id"] as? Int)
        XCTAssertExit(try a.run("sync", "conflicts", "resolve", String(numberOnA), "--take", "other"), 0)
        XCTAssertExit(try b.run("sync", "conflicts", "resolve", String(numberOnB), "--take", "kept"), 0)
        for home in [a, b, a, b] { XCTAssertExit(try home.run("sync", "now"), 0) }
        let user = try a.run("show", "prod-web-01", "--json").stdout
        XCTAssertEqual(user, try b.run("show", "prod-web-01", "--json").stdout, "one value on both")
        for home in [a, b] {
            let listed = try conflicts(home)
            XCTAssertEqual(listed.count, 1, "\(listed)")
            XCTAssertEqual(listed.first?["state"] as? String, "disputed", "\(listed)")
            XCTAssertEqual((listed.first?["choices"] as? [[String: Any]])?.count, 2, "\(listed)")
            let text = try home.run("sync", "conflicts").stdout
            XCTAssertTrue(text.contains("  why    disputed: "), text)
            XCTAssertTrue(text.contains(" took other, ") && text.contains(" took kept, "), text)
            XCTAssertTrue(text.contains(" stands (the later choice)"), text)
            XCTAssertTrue(text.contains("  settle sshelf sync conflicts resolve"), text)
        }
        XCTAssertExit(try a.run("sync", "conflicts", "resolve", String(numberOnA), "--take", "other"), 0)
        for home in [a, b, a, b] { XCTAssertExit(try home.run("sync", "now"), 0) }
        for home in [a, b] {
            let listed = try conflicts(home)
            XCTAssertEqual(listed.first?["state"] as? String, "settled", "\(listed)")
            XCTAssertEqual(listed.first?["settled"] as? String, "other", "\(listed)")
        }
    }

    func conflicts(_ home: TempHome) throws -> [[String: Any]] {
        try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("sync", "conflicts", "--json").stdout.utf8))
                as? [[String: Any]])
    }

    func reproduction(remote: [String]) throws {
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "prod-web-01", "--host", "w.example"), 0)
        XCTAssertExit(try a.run(["sync", "enable"] + remote), 0)
        XCTAssertExit(try b.run(["sync", "enable"] + remote), 0)
        try enroll(b, by: a)
        XCTAssertExit(try a.run("edit", "prod-web-01", "--user", "alice"), 0)
        XCTAssertExit(try b.run("edit", "prod-web-01", "--user", "bob"), 0)
        for home in [a, b, a, b] { XCTAssertExit(try home.run("sync", "now"), 0) }
        let onA = try conflicts(a), onB = try conflicts(b)
        XCTAssertEqual(onA.count, 1, "\(onA)")
        XCTAssertEqual(onB.count, 1, "\(onB)")
        let kept = try XCTUnwrap(onA.first?["kept"] as? String)
        let other = try XCTUnwrap(onA.first?["lost"] as? String)

        // A settles it, taking the other value.
        let number = try XCTUnwrap(onA.first?["id"] as? Int)
        XCTAssertExit(try a.run("sync", "conflicts", "resolve", String(number), "--take", "other"), 0)
        for home in [a, b, a, b] { XCTAssertExit(try home.run("sync", "now"), 0) }
        let aUser = try a.run("show", "prod-web-01").stdout
        let bUser = try b.run("show", "prod-web-01").stdout
        XCTAssertTrue(aUser.contains(other.replacingOccurrences(of: "\"", with: "")), aUser)
        XCTAssertTrue(bUser.contains(other.replacingOccurrences(of: "\"", with: "")), bUser)

        // B shows it settled, by A, and no longer offers it.
        let settledOnB = try conflicts(b)
        XCTAssertEqual(settledOnB.count, 1, "one conflict, one entry: \(settledOnB)")
        XCTAssertEqual(settledOnB.first?["settled"] as? String, "other", "\(settledOnB)")
        XCTAssertNotNil(settledOnB.first?["settledBy"] as? String, "\(settledOnB)")
        let listed = try b.run("sync", "conflicts").stdout
        XCTAssertTrue(listed.contains(" · settled: took other, by "), listed)
        XCTAssertFalse(listed.contains("  settle sshelf sync conflicts resolve"), listed)
        let bNumber = try XCTUnwrap(settledOnB.first?["id"] as? Int)
        let reversal = try b.run("sync", "conflicts", "resolve", String(bNumber), "--take", "kept")
        XCTAssertNotEqual(reversal.status, 0, "B's later different choice is refused: \(reversal.stdout)")
        XCTAssertTrue(reversal.stderr.contains("was settled already on device "), reversal.stderr)
        for home in [a, b, a, b] { XCTAssertExit(try home.run("sync", "now"), 0) }
        XCTAssertFalse(try b.run("show", "prod-web-01").stdout.contains(kept.replacingOccurrences(of: "\"", with: "")))
        XCTAssertEqual(try conflicts(a).count, 1, "no new conflict")
        XCTAssertEqual(try conflicts(b).count, 1, "no new conflict")
        XCTAssertTrue(try a.run("sync", "conflicts").stdout.contains(" · settled: took other"))
    }
}

// Sync commands through the real binary: enable, status (text and JSON, with the fallback reason), now,
// devices, disable.
import Foundation
import TestSupport
import XCTest

final class SyncCommandTests: XCTestCase {
    func testTwoDevicesThroughTheCLI() throws {
        let remote = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-cli-remote-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let a = TempHome(), b = TempHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example", "--group", "prod"), 0)
        XCTAssertExit(try b.run("sync", "status"), 0)
        XCTAssertEqual(try b.run("sync", "status").stdout, "○ sync off\n")
        let enabled = try a.run("sync", "enable", "--folder", remote)
        XCTAssertExit(enabled, 0)
        XCTAssertTrue(enabled.stdout.contains("synced: 0 changes received, 2 sent"), enabled.stdout)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        XCTAssertTrue(try b.run("list").stdout.contains("w.example"))
        XCTAssertTrue(try b.run("group", "list").stdout.contains("prod/"))
        XCTAssertExit(try b.run("edit", "web", "--port", "2222"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertTrue(try a.run("show", "web").stdout.contains("w.example:2222"))
        let devices = try a.run("sync", "devices")
        XCTAssertEqual(devices.stdout.split(separator: "\n").count, 3, devices.stdout)

        // The remote goes away: sync falls back with the real reason, and status says so.
        try FileManager.default.removeItem(atPath: remote)
        let failed = try a.run("sync", "now")
        XCTAssertExit(failed, 1)
        XCTAssertTrue(failed.stderr.contains("local fallback: sync folder \(remote) not found"), failed.stderr)
        let status = try a.run("sync", "status", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["state"] as? String, "localFallback")
        XCTAssertEqual((object["lastRun"] as? [String: Any])?["reason"] as? String, "sync folder \(remote) not found")
        XCTAssertTrue(try a.run("sync", "status").stdout.contains("▲ local fallback: sync folder"))
        XCTAssertTrue(try a.run("list").stdout.contains("web"), "browsing carries on")

        XCTAssertExit(try a.run("sync", "disable"), 0)
        XCTAssertEqual(try a.run("sync", "status").stdout, "○ sync off\n")
        XCTAssertExit(try a.run("sync", "enable"), 2)
    }
}

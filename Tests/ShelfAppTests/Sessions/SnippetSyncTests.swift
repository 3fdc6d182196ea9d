// SnippetSyncTests: snippets travel between two devices through a folder remote as config records — added, edited on
// the other device, removed (a tombstone) — and no byte of a snippet's name or command is readable on the remote.
import Foundation
import TestSupport
import XCTest

final class SnippetSyncTests: XCTestCase {
    func testSnippetsSyncBetweenTwoDevicesAndTheRemoteCannotReadThem() throws {
        let remote = try syncRemote("snippets")
        let a = syncHome(), b = syncHome()
        let secretish = "rotate-logs-7f3a9c"
        let command = "sudo logrotate -f /etc/logrotate.d/{{service:\(secretish)}}"
        XCTAssertExit(try a.run("snippet", "add", "rotate-snippet-q8", "--tag", "ops", "--", command), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        try enroll(b, by: a)

        let shown = try b.run("snippet", "show", "rotate-snippet-q8")
        XCTAssertExit(shown, 0)
        XCTAssertTrue(shown.stdout.contains(command), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("tags:       ops"), shown.stdout)

        // Edited on B (the command), tagged on A: both changes stay.
        XCTAssertExit(try b.run("snippet", "edit", "rotate-snippet-q8", "--", command + " && echo rotated"), 0)
        XCTAssertExit(try a.run("snippet", "edit", "rotate-snippet-q8", "--tag", "weekly"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        for home in [a, b] {
            let show = try home.run("snippet", "show", "rotate-snippet-q8").stdout
            XCTAssertTrue(show.contains("&& echo rotated") && show.contains("tags:       ops, weekly"), show)
        }

        // The remote holds sealed entries only: neither the name, the command nor a parameter's default is there,
        // raw, in hex or in base64 (the scan sees them where they are in the clear: the device's own store).
        let needles = ["name": "rotate-snippet-q8", "default": secretish, "command": "sudo logrotate -f"].mapValues {
            Array($0.utf8)
        }
        XCTAssertFalse(SecretScan.hits(a.sshelfHome, for: needles).isEmpty, "the scan cannot see the store")
        XCTAssertFalse(try FileManager.default.subpathsOfDirectory(atPath: remote).isEmpty)
        XCTAssertEqual(SecretScan.hits(remote, for: needles), [])

        // Removed on A: gone on B once synced, and it stays gone.
        XCTAssertExit(try a.run("snippet", "rm", "rotate-snippet-q8"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertEqual(try b.run("snippet", "list", "--names").stdout, "")
        XCTAssertExit(try b.run("snippet", "show", "rotate-snippet-q8"), 3)
    }
}

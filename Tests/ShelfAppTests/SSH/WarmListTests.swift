// WarmListTests: `sshelf warm list` against a real sshd — a keeper started by `exec --persist` is listed with its
// host and the pid of the process that answers on its socket (a live `warm serve`), JSON too; a socket nobody
// answers (a keeper killed outright) is not listed and is removed; after `warm stop` nothing is.
import Foundation
import TestSupport
import XCTest

final class WarmListTests: XCTestCase {
    func testAKeeperIsListedWithThePidThatAnswersItsSocket() throws {
        let world = try SSHCLIWorld()
        let empty = try world.home.run("warm", "list")
        XCTAssertExit(empty, 0)
        XCTAssertEqual(empty.stdout, "")
        XCTAssertTrue(empty.stderr.contains("no warm sessions"), empty.stderr)
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "--", "true"), 0)
        let persist = try world.home.run("exec", "t", "--persist", "--", "true")
        XCTAssertExit(persist, 0)
        XCTAssertEqual(persist.stderr, "", "the keeper started")
        defer { _ = try? world.home.run("warm", "stop") }

        let listed = try world.home.run("warm", "list", "--json")
        XCTAssertExit(listed, 0)
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.count, 1, listed.stdout)
        XCTAssertEqual(entries.first?["host"] as? String, "t")
        XCTAssertNotNil(entries.first?["startedAt"] as? String, listed.stdout)
        let pid = try XCTUnwrap(entries.first?["pid"] as? Int)
        let command = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
            .split(separator: "\0").map(String.init)
        XCTAssertTrue(command.contains("serve") && command.contains("warm"), "\(command)")
        let table = try world.home.run("warm", "list").stdout
        XCTAssertTrue(table.hasPrefix("HOST  DESTINATION"), table)
        let row = table.split(separator: "\n").dropFirst().first ?? ""
        XCTAssertTrue(row.hasPrefix("t ") && row.contains("  \(pid)  "), table)

        // Killed outright, the keeper leaves its socket: nobody answers it, so it is not listed, and it goes.
        kill(pid_t(pid), SIGKILL)
        let socket = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: world.home.sshelfHome + "/run/warm").first {
                $0.hasSuffix(".sock")
            })
        // Its listening socket closes as it dies (a zombie it may stay, if nobody reaps it: no matter here).
        let after = try eventually(
            "the killed keeper no longer listed", observe: { try world.home.run("warm", "list").stdout },
            until: { $0.isEmpty })
        XCTAssertEqual(after, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.home.sshelfHome + "/run/warm/" + socket))
    }
}

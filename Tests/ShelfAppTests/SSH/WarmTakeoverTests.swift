// WarmTakeoverTests: a second keeper for a host takes the socket path over (its socket renamed onto it) — the first
// one, no longer reachable, still finishes the command it runs, then exits long before its idle time, as it looks at
// the path at most once a second instead of every turn; the new keeper serves the calls after it.
import Foundation
import TestSupport
import XCTest

final class WarmTakeoverTests: XCTestCase {
    private func inode(_ path: String) -> UInt? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt(info.st_ino) : nil
    }

    func testAKeeperWhoseSocketIsTakenOverServesItsCallerThenExits() throws {
        let world = try FleetWorld(["a"])
        defer { _ = try? world.home.run("warm", "stop") }
        let show = try world.home.run("show", "a", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        let id = try XCTUnwrap(object?["id"] as? String).lowercased()
        let path = world.home.sshelfHome + "/run/warm/" + id + ".sock"

        // Idle times far past any deadline here: only the takeover can end the first keeper in time.
        let first = try BackgroundSshelf(world.home, ["warm", "serve", id, "--idle", "3600"])
        defer { first.process.stop() }
        let firstSocket = try eventually(
            "the first keeper listens", observe: { inode(path) }, until: { $0 != nil }, context: { first.stderr })
        let go = world.shared + "/go", started = world.shared + "/started"
        let slow = try BackgroundSshelf(
            world.home,
            [
                "exec", "a", "-n", "--",
                "touch \(started); while [ ! -e \(go) ]"
                    + " && [ -d \(world.shared) ]; do sleep 0.05; done; echo slow; exit 7",
            ])
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        try eventually("the slow command started", context: { slow.stderr }) {
            FileManager.default.fileExists(atPath: started)
        }

        let second = try BackgroundSshelf(world.home, ["warm", "serve", id, "--idle", "3600"])
        defer { second.process.stop() }
        let secondSocket = try eventually(
            "the second keeper took the path over", observe: { inode(path) },
            until: { $0 != nil && $0 != firstSocket }, context: { second.stderr })
        let through = try world.home.run("exec", "a", "-n", "--", "echo second")
        XCTAssertExit(through, 0)
        XCTAssertEqual(through.stdout, "second\n")
        XCTAssertTrue(first.process.isRunning, "the first keeper still runs its caller's command: \(first.stderr)")

        _ = FileManager.default.createFile(atPath: go, contents: nil)
        XCTAssertEqual(slow.process.wait(), 7, slow.stderr)
        XCTAssertEqual(slow.stdout, "slow\n")
        try eventually("the first keeper exits once its caller is served", context: { first.stderr }) {
            !first.process.isRunning
        }
        XCTAssertEqual(inode(path), secondSocket, "the first keeper left the second one's socket in place")
        XCTAssertTrue(second.process.isRunning, second.stderr)
        XCTAssertEqual(try world.home.run("exec", "a", "-n", "--", "echo again").stdout, "again\n")
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, "one login per keeper: \(world.sshd.log)")
    }
}

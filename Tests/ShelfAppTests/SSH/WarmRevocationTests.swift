// WarmRevocationTests: issue 31's hole 8 — a warm session checks its host key again before every command it runs
// for a caller: after `exec --persist`, an `@revoked` line for the host's key in ~/.ssh/known_hosts, or the pin
// changed or removed in the store, refuses `run` and `exec` as a new login would (same message), nothing runs (the
// file the command would make is absent), and the keeper ends.
import Foundation
import ShelfCore
import ShelfStore
import TestSupport
import XCTest

final class WarmRevocationTests: XCTestCase {
    private struct Warm {
        let world: SSHCLIWorld
        let socket: String
        /// A folder the server's login user may write, and the file the refused commands would make in it.
        let mark: String
    }

    /// A pinned host with a warm session that has served one command (a login of its own, then none).
    private func warmWorld() throws -> Warm {
        let world = try SSHCLIWorld()
        addTeardown { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "-n", "--", "true"), 0)
        let show = try world.home.run("show", "t", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        let id = try XCTUnwrap(object?["id"] as? String).lowercased()
        let folder = world.home.root + "/shared"
        XCTAssertEqual(mkdir(folder, 0o777), 0)
        XCTAssertEqual(chmod(folder, 0o777), 0)
        XCTAssertEqual(chmod(world.home.root, 0o755), 0)
        // A known_hosts with a line of another host's: the keeper has read it (and keeps what it parsed) before the
        // test adds to it.
        _ = try world.home.write(
            "other.example \(try TestKey.generate(.ed25519).publicLine)\n", to: ".ssh/known_hosts")
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertExit(try world.home.run("exec", "t", "-n", "--", "true"), 0)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, "the keeper serves: \(world.sshd.log)")
        return Warm(world: world, socket: world.home.sshelfHome + "/run/warm/\(id).sock", mark: folder + "/X")
    }

    /// `run t` and `exec t` of `touch X` are both refused with `message`, and X is not made.
    private func assertRefused(_ warm: Warm, saying message: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let run = try warm.world.home.run("run", "t", "--", "touch \(warm.mark)")
        XCTAssertEqual(run.status, 255, "\(run)", file: file, line: line)
        XCTAssertTrue(run.stdout.contains(message) || run.stderr.contains(message), "\(run)", file: file, line: line)
        let exec = try warm.world.home.run("exec", "t", "-n", "--", "touch \(warm.mark)")
        XCTAssertNotEqual(exec.status, 0, "\(exec)", file: file, line: line)
        XCTAssertTrue(exec.stderr.contains(message), "\(exec)", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: warm.mark), "nothing ran", file: file, line: line)
        try eventually("the keeper ends", file: file, line: line) {
            !FileManager.default.fileExists(atPath: warm.socket)
        }
    }

    func testARevokedKeyStopsAWarmSession() throws {
        let warm = try warmWorld()
        // An @revoked line appended to the file the keeper has read (the same inode, a later modification time);
        // the words expected are a new login's refusal.
        let key = warm.world.sshd.hostPublicKey(.ed25519)
        let file = try XCTUnwrap(FileHandle(forWritingAtPath: warm.world.home.home + "/.ssh/known_hosts"))
        try file.seekToEnd()
        try file.write(contentsOf: Data("@revoked * \(key)\n".utf8))
        try file.close()
        try assertRefused(warm, saying: "is marked @revoked in ~/.ssh/known_hosts; nothing was sent")
    }

    func testAPinChangedOrRemovedInTheStoreStopsAWarmSession() throws {
        let other = try TestKey.generate(.ed25519).publicLine.split(separator: " ")
        for change in ["changed", "removed"] {
            let warm = try warmWorld()
            let store = try Store(path: warm.world.home.sshelfHome + "/data/store.sqlite")
            try store.write { store in
                var host = try XCTUnwrap(try store.hosts().first { $0.name == "t" })
                host.pinnedHostKey =
                    change == "changed" ? PinnedHostKey(type: String(other[0]), key: String(other[1])) : nil
                try store.save(host)
            }
            // Removed: and out of sshelf's known_hosts too (where --accept-new also put it), so nothing vouches for
            // the key any more — a pin removed while a known_hosts file still has the key is no refusal.
            if change == "removed" {
                try Data().write(to: URL(fileURLWithPath: warm.world.home.sshelfHome + "/data/known_hosts"))
            }
            try assertRefused(
                warm, saying: change == "changed" ? "has CHANGED" : "is not known: ssh-ed25519")
            _ = try? warm.world.home.run("warm", "stop")
        }
    }
}

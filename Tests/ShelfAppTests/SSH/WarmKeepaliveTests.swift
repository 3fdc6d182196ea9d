// WarmKeepaliveTests: a warm keeper keeps watch on its server with the host's ServerAliveInterval and
// ServerAliveCountMax, against the real sshd — one whose server stopped answering (its sshd session processes paused
// with SIGSTOP: the TCP connection stays open, nothing comes back) exits, removes its socket and tells its waiting
// caller why, and the next exec or run logs in on its own; one whose server answers stays up across many intervals.
import Foundation
import TestSupport
import XCTest

final class WarmKeepaliveTests: XCTestCase {
    /// A host `a` with keepalives every second (libssh2 sends one every 2 s when asked for 1) and two unanswered
    /// ones allowed, and its keeper started.
    private func keptWorld() throws -> (world: FleetWorld, socket: String) {
        let world = try FleetWorld(["a"])
        XCTAssertExit(
            try world.home.run(
                "edit", "a", "--option", "ServerAliveInterval 1", "--option", "ServerAliveCountMax 2"), 0)
        let show = try world.home.run("show", "a", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let id = try XCTUnwrap(object["id"] as? String).lowercased()
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "300", "-n", "--", "true"), 0)
        let socket = world.home.sshelfHome + "/run/warm/" + id + ".sock"
        XCTAssertTrue(FileManager.default.fileExists(atPath: socket), socket)
        return (world, socket)
    }

    func testAKeeperWhoseServerStoppedAnsweringExitsAndTellsItsCaller() throws {
        let (world, socket) = try keptWorld()
        defer { _ = try? world.home.run("warm", "stop") }
        // The keeper is the one process with a TCP connection to the server now.
        let keepers = Array(SocketOwners.connections(toPort: world.sshd.port).keys)
        XCTAssertEqual(keepers.count, 1, "\(keepers)")
        let commands = world.sshd.logCount("Starting session: command")
        let caller = try BackgroundSshelf(world.home, ["exec", "a", "-n", "--", "sleep 600"])
        XCTAssertTrue(world.sshd.waitForLog("Starting session: command", count: commands + 1), world.sshd.log)

        let paused = try world.sshd.sessionPIDs()
        XCTAssertFalse(paused.isEmpty, "the keeper's session has sshd processes")
        for pid in paused { kill(pid, SIGSTOP) }
        defer {
            for pid in paused { kill(pid, SIGCONT) }
            _ = try? world.sshd.killSessions()
        }
        try eventually("the keeper whose server stopped answering removed its socket") {
            !FileManager.default.fileExists(atPath: socket)
        }
        for pid in keepers {
            try eventually("the keeper \(pid) exited") { !RemoteProcess.isAlive(pid) }
        }
        try eventually("the waiting caller was answered", context: { caller.stderr }) { !caller.process.isRunning }
        XCTAssertEqual(caller.process.wait(), 255, caller.stderr)
        XCTAssertTrue(
            caller.stderr.contains(
                "the connection to a stopped answering (ServerAliveInterval 1 × 2); run again to reconnect"),
            caller.stderr)

        // The listener still takes new connections: the next exec logs in on its own instead of waiting on a keeper.
        let logins = world.sshd.logCount("Accepted publickey")
        let next = try world.home.run("exec", "a", "-n", "--", "echo back")
        XCTAssertExit(next, 0)
        XCTAssertEqual(next.stdout, "back\n")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: logins + 1), world.sshd.log)
        // And so does a fleet run's host.
        let run = try world.home.run("run", "a", "--json", "--", "echo again")
        XCTAssertExit(run, 0)
        let host = try XCTUnwrap(try FleetWorld.jsonLines(run.stdout)["a"], run.stdout)
        XCTAssertEqual(host["warm"] as? Bool, false, run.stdout)
        XCTAssertEqual(host["stdout"] as? String, "again\n", run.stdout)
    }

    /// Five answered probes span more than the 6 s of silence the settings allow: a keeper that did not read the
    /// answers while idle would have given up on its server by then. Its keepalives ask for no reply (libssh2 would
    /// keep each: KeepaliveMemoryTests); the probe is a channel open the server refuses, which libssh2 frees.
    func testAKeeperWhoseServerAnswersStaysUp() throws {
        let (world, socket) = try keptWorld()
        defer { _ = try? world.home.run("warm", "stop") }
        let asked = "ctype alive@sshelf.invalid"
        let before = world.sshd.logCount(asked)
        XCTAssertTrue(world.sshd.waitForLog(asked, count: before + 5), world.sshd.log)
        XCTAssertTrue(FileManager.default.fileExists(atPath: socket), "the keeper is still up")
        XCTAssertEqual(world.sshd.logCount("want_reply 1"), 0, "no keepalive asked for a reply: \(world.sshd.log)")
        let logins = world.sshd.logCount("Accepted publickey")
        let warm = try world.home.run("exec", "a", "-n", "--", "echo warm")
        XCTAssertExit(warm, 0)
        XCTAssertEqual(warm.stdout, "warm\n")
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), logins, "it ran on the keeper: \(world.sshd.log)")
    }
}

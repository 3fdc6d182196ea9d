// RunInterruptTests: a fleet run's Ctrl-C over warm sessions and new logins alike — the first starts no more hosts
// and lets the running ones finish (a warm host's command included), the second stops the running commands on the
// servers themselves (watched through /proc until they end; a new login's command gets TERM first where libssh2 can
// send it, as a warm host's does), and the report says which hosts ran and how.
import Foundation
import TestSupport
import XCTest

final class RunInterruptTests: XCTestCase {
    /// --parallel 1, a (warm) waits for a file: Ctrl-C leaves b and c unstarted and lets a finish on its keeper.
    func testTheFirstCtrlCLetsAWarmHostFinish() throws {
        let world = try FleetWorld(["a", "b", "c"])
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        let go = world.shared + "/go"
        let run = try BackgroundSshelf(
            world.home,
            [
                "run", "a", "b", "c", "--parallel", "1", "--json", "--",
                "touch \(world.shared)/started-$$; while [ ! -e \(go) ]"
                    + " && [ -d \(world.shared) ]; do sleep 0.05; done; echo finished",
            ])
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        try eventually("the first host started", context: { run.stderr }) { self.started(world).count == 1 }
        run.interrupt()
        try eventually("sshelf said it stops", context: { run.stderr }) {
            run.stderr.contains("stopping: no more hosts start")
        }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        XCTAssertEqual(run.process.wait(), 1, run.stdout + run.stderr)
        let hosts = try FleetWorld.jsonLines(run.stdout)
        XCTAssertEqual(hosts["a"]?["outcome"] as? String, "succeeded", run.stdout)
        XCTAssertEqual(hosts["a"]?["warm"] as? Bool, true, run.stdout)
        XCTAssertEqual(hosts["a"]?["stdout"] as? String, "finished\n", run.stdout)
        XCTAssertEqual(hosts["b"]?["outcome"] as? String, "not-started", run.stdout)
        XCTAssertEqual(hosts["c"]?["outcome"] as? String, "not-started", run.stdout)
        XCTAssertEqual(started(world).count, 1)
    }

    /// a runs on its warm session, b on a new login: the first Ctrl-C lets both go on, the second stops both on
    /// their server, and the report names both as killed.
    func testTheSecondCtrlCStopsWarmAndColdCommandsOnTheServer() throws {
        let world = try FleetWorld(["a", "b"])
        defer { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        let end = world.shared + "/end"
        // The loops end by themselves once the test is over: the test account's processes are not ours to kill.
        defer { _ = FileManager.default.createFile(atPath: end, contents: nil) }
        let run = try BackgroundSshelf(
            world.home,
            [
                "run", "a", "b", "--json", "--",
                "touch \(world.shared)/started-$$; while [ ! -e \(end) ]"
                    + " && [ -d \(world.shared) ]; do echo tick; sleep 0.1; done",
            ])
        let pids = try eventually("both hosts started", observe: { self.started(world) }, until: { $0.count == 2 })
        XCTAssertTrue(pids.allSatisfy(RemoteProcess.isAlive))
        run.interrupt()
        try eventually("sshelf said it stops", context: { run.stderr }) {
            run.stderr.contains("stopping: no more hosts start")
        }
        XCTAssertTrue(run.process.isRunning, "the first Ctrl-C lets running hosts go on: \(run.stdout)")
        XCTAssertTrue(pids.allSatisfy(RemoteProcess.isAlive), "the first Ctrl-C stops no command")
        run.interrupt()
        XCTAssertEqual(run.process.wait(), 1, run.stdout + run.stderr)
        let hosts = try FleetWorld.jsonLines(run.stdout)
        XCTAssertEqual(hosts["a"]?["outcome"] as? String, "killed", run.stdout)
        XCTAssertEqual(hosts["a"]?["warm"] as? Bool, true, run.stdout)
        XCTAssertEqual(hosts["b"]?["outcome"] as? String, "killed", run.stdout)
        XCTAssertEqual(hosts["b"]?["warm"] as? Bool, false, run.stdout)
        for pid in pids {
            try eventually("the remote command \(pid) ended after the second Ctrl-C") { !RemoteProcess.isAlive(pid) }
        }
        XCTAssertEqual(try world.runEntries().count, 1, "a stopped run is logged too")
    }

    /// A new login's command that traps TERM and neither writes nor reads: on libssh2 1.11 the second Ctrl-C sends
    /// it TERM before the channel is closed (its trap leaves a marker), as a warm keeper does. libssh2 1.10 has no
    /// signals: the channel is only closed, and such a command runs on until its own end (docs/SSH.md says so).
    func testTheSecondCtrlCSendsTermToANewLoginsCommandWhereTheLibraryCan() throws {
        let world = try FleetWorld(["a"])
        let version = try world.home.run("version", "--verbose")
        guard version.stdout.contains("  yes Ctrl-C reaches the remote command") else {
            throw skipped("the loaded libssh2 cannot send a remote command a signal (1.11 or later can)")
        }
        let end = world.shared + "/end", term = world.shared + "/term"
        defer { _ = FileManager.default.createFile(atPath: end, contents: nil) }
        // Its stderr goes nowhere: the shell's "Terminated" note for its sleep (killed by the same TERM) would
        // otherwise meet the stderr sshd closed with the channel, and SIGPIPE would end it before its trap ran.
        let run = try BackgroundSshelf(
            world.home,
            [
                "run", "a", "--json", "--",
                "exec 2>/dev/null; trap 'touch \(term); exit 143' TERM; touch \(world.shared)/started-$$; "
                    + "while [ ! -e \(end) ] && [ -d \(world.shared) ]; do sleep 0.1; done",
            ])
        let pid = try XCTUnwrap(
            try eventually("the command started", observe: { self.started(world) }, until: { $0.count == 1 }).first)
        run.interrupt()
        try eventually("sshelf said it stops", context: { run.stderr }) {
            run.stderr.contains("stopping: no more hosts start")
        }
        run.interrupt()
        XCTAssertEqual(run.process.wait(), 1, run.stdout + run.stderr)
        XCTAssertEqual(try FleetWorld.jsonLines(run.stdout)["a"]?["outcome"] as? String, "killed", run.stdout)
        try eventually("the command's TERM trap ran", context: { tail(world.sshd.log) }) {
            FileManager.default.fileExists(atPath: term)
        }
        try eventually("the remote command \(pid) ended") { !RemoteProcess.isAlive(pid) }
    }

    /// The pids of the commands that started (each touched started-PID in the shared folder).
    private func started(_ world: FleetWorld) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: world.shared)) ?? [])
            .filter { $0.hasPrefix("started-") }.compactMap { Int32($0.dropFirst("started-".count)) }
    }
}

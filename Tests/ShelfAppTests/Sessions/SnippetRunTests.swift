// SnippetRunTests: `sshelf snippet run` against a real sshd — on one host as exec (parameters, defaults, the command's
// own exit status), and on several through run's guard rails: the canary stops the run, a protected host needs the
// typed confirmation, and the release log names the filled-in command's hash.
import Foundation
import TestSupport
import XCTest

final class SnippetRunTests: XCTestCase {
    func testOnOneHostItRunsAsExecWithParametersAndDefaults() throws {
        let world = try FleetWorld(["a"])
        XCTAssertExit(try world.home.run("snippet", "add", "greet", "--", "echo {{greeting:hello}} {{name}}"), 0)
        let plain = try world.home.run("snippet", "run", "greet", "a", "--param", "name=world")
        XCTAssertExit(plain, 0)
        XCTAssertEqual(plain.stdout, "hello world\n")
        let given = try world.home.run("snippet", "run", "greet", "a", "--param", "name=you", "--param", "greeting=hi")
        XCTAssertEqual(given.stdout, "hi you\n")

        XCTAssertExit(try world.home.run("snippet", "add", "fail", "--", "echo out; exit {{code:3}}"), 0)
        let failed = try world.home.run("snippet", "run", "fail", "a")
        XCTAssertExit(failed, 3)
        XCTAssertEqual(failed.stdout, "out\n", "exec's way: the output as it comes, no report")
        XCTAssertEqual(try world.home.run("snippet", "run", "fail", "a", "--param", "code=0").status, 0)
        XCTAssertEqual(try world.runEntries().count, 0, "one host is an exec, not a fleet run")
    }

    func testOnManyHostsItGoesThroughRunsCanaryConfirmationAndLog() throws {
        let world = try FleetWorld(["a", "b", "c"])
        XCTAssertExit(try world.home.run("snippet", "add", "code", "--", "echo {{word:ran}}; exit {{code:3}}"), 0)
        let accepted = world.sshd.logCount("Accepted publickey")
        let stopped = try world.home.run("snippet", "run", "code", "a", "b", "c", "--canary", "1", "--json")
        XCTAssertExit(stopped, 1)
        let hosts = try FleetWorld.jsonLines(stopped.stdout)
        XCTAssertEqual(hosts["a"]?["outcome"] as? String, "failed", stopped.stdout)
        XCTAssertEqual(hosts["a"]?["exitStatus"] as? Int, 3, stopped.stdout)
        XCTAssertEqual(hosts["a"]?["stdout"] as? String, "ran\n", stopped.stdout)
        XCTAssertEqual(hosts["b"]?["outcome"] as? String, "not-started", stopped.stdout)
        XCTAssertEqual(hosts["c"]?["outcome"] as? String, "not-started", stopped.stdout)
        XCTAssertTrue(world.sshd.waitForConnectionsEnded(), world.sshd.log)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), accepted + 1, "only the canary logged in")

        let passing = try world.home.run(
            "snippet", "run", "code", "@prod", "--canary", "1", "--param", "code=0", "--param", "word=fine")
        XCTAssertExit(passing, 0)
        XCTAssertTrue(passing.stdout.contains("3 hosts: 3 succeeded"), passing.stdout)
        let entries = try world.runEntries()
        XCTAssertEqual(entries.count, 2, "each run is one release-log entry")
        XCTAssertEqual(entries.last?["item"] as? String, FleetWorld.sha256("echo fine; exit 0"))
        XCTAssertEqual(entries.last?["host"] as? String, "a,b,c")

        // A protected host: the typed confirmation run asks for, which a script gives with --yes.
        XCTAssertExit(try world.home.run("edit", "b", "--tag", "protected"), 0)
        let refused = try world.home.run("snippet", "run", "code", "@prod", "--param", "code=0")
        XCTAssertExit(refused, 2)
        XCTAssertTrue(refused.stderr.contains("protected"), refused.stderr)
        XCTAssertEqual(try world.runEntries().count, 2, "nothing ran")
        XCTAssertExit(try world.home.run("snippet", "run", "code", "@prod", "--param", "code=0", "--yes"), 0)
    }
}

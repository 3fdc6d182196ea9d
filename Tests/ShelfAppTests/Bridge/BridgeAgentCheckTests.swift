// BridgeAgentCheckTests: with the sshelf agent stopped, plain `ssh HOST` through the bridge fails with one line that
// names `sshelf agent start` (the bridge's Match exec guard, first in the file) and nothing else, and following it
// works. Real OpenSSH, real sshd.
import Foundation
import TestSupport
import XCTest

final class BridgeAgentCheckTests: XCTestCase {
    func testWithTheAgentStoppedSshSaysToStartIt() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        try world.addHost("db1", on: server)
        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        XCTAssertTrue(
            world.text(world.bridge).contains(
                "Match originalhost db1 exec \"'\(CLI.binary)' agent ensure-unlocked '%n' '\(world.agentSocket)'\"\n"
                    + "    LogLevel QUIET\n    ProxyCommand /bin/false\n"),
            world.text(world.bridge))

        let stopped = try world.ssh(["db1", "true"])
        XCTAssertEqual(stopped.status, 255)
        XCTAssertEqual(
            stopped.stderr,
            "sshelf: the key of this host is in the sshelf vault and the sshelf agent is not running: "
                + "run sshelf agent start\n")

        try world.startAgent()
        let started = try world.ssh(["db1", "echo", "up"])
        XCTAssertExit(started, 0)
        XCTAssertEqual(started.stdout, "up\n")
        XCTAssertFalse(started.stderr.contains("sshelf agent start"), started.stderr)
    }
}

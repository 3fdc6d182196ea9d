// PostQuantumForwardUpTests: the `forward up` supervisor with a host that requires post-quantum key exchange — its
// autostart rules run through OpenSSH's `ssh -N` limited to post-quantum key exchanges (sshd's log shows
// sntrup761x25519), the forwarded port carries bytes, a killed ssh is started again, `forward status` names it, and the
// session is the host's last (show says its key exchange); any other configuration error still fails the host at once.
// Both libssh2 versions (SSH_MATRIX_TESTS).
import Foundation
import TestSupport
import XCTest

final class PostQuantumForwardUpTests: XCTestCase {
    static let kexLine = "kex: algorithm: sntrup761x25519-sha512@openssh.com"

    private func pinnedWorld() throws -> SSHCLIWorld {
        let world = try SSHCLIWorld()
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        return world
    }

    private func firstRule(_ world: SSHCLIWorld) throws -> [String: Any] {
        let result = try world.home.run("forward", "status", "--json")
        XCTAssertExit(result, 0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return ((json["rules"] as? [[String: Any]]) ?? []).first ?? [:]
    }

    /// The pid of the ssh running the rule, once `forward status` shows it active with one other than `previous`.
    private func activeSSH(_ world: SSHCLIWorld, other previous: Int32? = nil) throws -> Int32 {
        let rule = try eventually(
            "forward status to show the rule active through a new ssh", observe: { try self.firstRule(world) },
            until: { rule in
                rule["state"] as? String == "active" && (rule["sshPid"] as? Int).map { Int32($0) != previous } == true
            })
        return Int32(try XCTUnwrap(rule["sshPid"] as? Int))
    }

    func testForwardUpRunsAPostQuantumHostsRulesThroughOpenSSHAndRestartsIt() throws {
        let world = try pinnedWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        let classical = world.sshd.logCount("kex: algorithm: curve25519")
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        try up.waitFor("t: active through OpenSSH's ssh")
        XCTAssertTrue(
            up.stderr.contains(
                "note: t requires post-quantum key exchange (its pq setting is require), which sshelf's own client"),
            up.stderr)
        XCTAssertTrue(up.stderr.contains("running its rules through OpenSSH's ssh"), up.stderr)
        XCTAssertTrue(up.stderr.contains("sntrup761x25519-sha512@openssh.com)"), up.stderr)
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("pq-up".utf8)), Array("pu-qp".utf8))
        XCTAssertTrue(world.sshd.waitForLog(Self.kexLine), world.sshd.log)
        let first = try activeSSH(world)
        let status = try world.home.run("forward", "status")
        XCTAssertTrue(status.stdout.contains("through OpenSSH's ssh (pid \(first))"), status.stdout)
        // The session is the host's last: show names its key exchange.
        let show = try world.home.run("show", "t")
        XCTAssertTrue(show.stdout.contains("sntrup761x25519-sha512@openssh.com"), show.stdout)
        XCTAssertFalse(show.stdout.contains("last connected   never"), show.stdout)

        // ssh killed: the supervisor starts another, which carries the forward again.
        XCTAssertEqual(kill(first, SIGKILL), 0)
        try up.waitFor("t: retrying")
        let second = try activeSSH(world, other: first)
        try up.waitFor("t: active through OpenSSH's ssh", count: 2)
        XCTAssertTrue(world.sshd.waitForLog(Self.kexLine, count: 2), world.sshd.log)
        let reply = try eventually(
            "the restarted forward to carry bytes",
            observe: { try? TrafficSocket.roundTrip(port: port, Array("again".utf8)) },
            until: { $0 == Array("niaga".utf8) })
        XCTAssertEqual(reply, Array("niaga".utf8))
        XCTAssertEqual(world.sshd.logCount("kex: algorithm: curve25519"), classical, world.sshd.log)

        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
        try eventually("ssh to end with the supervisor") { kill(second, 0) != 0 }
        let configs = try FileManager.default.contentsOfDirectory(atPath: world.home.sshelfHome + "/run")
            .filter { $0.hasPrefix("forward-up-") }
        XCTAssertEqual(configs, [], "the private config is removed")
    }

    /// Other configuration errors still stop the host at once (failed, no retrying): a MACs list that leaves the
    /// loaded libssh2 nothing.
    func testAnotherConfigurationErrorStillFailsTheHostAtOnce() throws {
        let world = try pinnedWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--option", "MACs umac-64@openssh.com"), 0)
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:22", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        try up.waitFor("t: failed")
        XCTAssertTrue(up.stderr.contains("MACs umac-64@openssh.com leaves nothing libssh2"), up.stderr)
        XCTAssertFalse(up.stderr.contains("retrying"), up.stderr)
        XCTAssertFalse(up.stderr.contains("through OpenSSH's ssh"), up.stderr)
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
    }
}

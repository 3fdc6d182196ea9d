// AgentBoundKeyTests: host-bound keys (`identity edit --only`) with OpenSSH's own ssh, which binds its agent
// connection to each session (session-bind@openssh.com), against two real sshd on loopback — after OpenSSH's
// regress/agent-restrict.sh: the right key at its host logs in, a bound key is not even offered to another host,
// the wrong user is refused (in the agent's log and the release log, naming the host asked for), and through a
// forwarded agent every hop must be one of the key's hosts.
import Foundation
import ShelfCore
import TestSupport
import XCTest

final class AgentBoundKeyTests: XCTestCase {
    /// Two servers, each a host in the store (`one`, `two`, user sshelftest) with its host key pinned.
    private func twoHosts() throws -> (world: AgentWorld, second: SSHD) {
        let world = try AgentWorld()
        let second = try SSHD.start()
        for (name, server) in [("one", world.sshd), ("two", second)] {
            XCTAssertExit(
                try world.home.run([
                    "add", name, "--host", server.options.listenAddress, "--port", String(server.port),
                    "--user", TestAccount.name,
                ]), 0)
            XCTAssertExit(try world.home.run(["trust", name, "--fingerprint", try Self.fingerprint(server)]), 0)
        }
        return (world, second)
    }

    private static func fingerprint(_ server: SSHD) throws -> String {
        let out = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", server.directory + "/ssh_host_ed25519_key.pub"])
        return String(out.split(separator: " ")[1])
    }

    private func keygen(_ world: AgentWorld, _ name: String) throws -> String {
        let made = try world.home.run("keygen", name)
        XCTAssertExit(made, 0)
        return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ssh (with -v, to see what it offers) to `server` as `user`.
    private func ssh(
        _ world: AgentWorld, to server: SSHD, user: String = TestAccount.name, forward: Bool = false,
        command: String = "true"
    ) throws -> CLIResult {
        try world.tool(
            TestTool.ssh.path,
            Self.sshOptions(agent: "IdentityAgent=\(world.socket)") + (forward ? ["-A"] : [])
                + ["-v", "-p", String(server.port), "\(user)@\(server.options.listenAddress)", command])
    }

    private static func sshOptions(agent: String) -> [String] {
        [
            "-F", "none", "-o", agent, "-o", "IdentityFile=/nonexistent-sshelf-test",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "GlobalKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
            "-o", "PreferredAuthentications=publickey",
        ]
    }

    func testABoundKeySignsOnlyForItsHostAsItsUser() throws {
        let (world, second) = try twoHosts()
        let line = try keygen(world, "bound")
        try world.sshd.authorize(line)
        try second.authorize(line)
        let edited = try world.home.run(["identity", "edit", "bound", "--only", "one"])
        XCTAssertExit(edited, 0)
        XCTAssertTrue(edited.stdout.contains("only for one"), edited.stdout)
        try world.startAgent()

        // On this machine (no session binding) the key is listed, as OpenSSH's agent lists a constrained key.
        XCTAssertTrue(try world.sshAdd(["-l"]).stdout.contains(" bound (ED25519)"))

        // The right host, the right user: signed, and the release log names the host.
        XCTAssertExit(try ssh(world, to: world.sshd), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        let signed = try world.releases().filter { $0["what"] as? String == "signature" }
        XCTAssertEqual(signed.count, 1)
        XCTAssertEqual(signed.first?["host"] as? String, "one")

        // Another host (the key is in its authorized_keys too): ssh is not even offered the key.
        let other = try ssh(world, to: second)
        XCTAssertNotEqual(other.status, 0, "\(other)")
        XCTAssertFalse(other.stderr.contains("Offering public key"), other.stderr)
        XCTAssertEqual(second.logCount("Accepted publickey"), 0, second.log)
        try world.waitForAgentLog("not offering host-bound key 'bound'")
        XCTAssertTrue(world.agentLog.contains("host two is not one of the key's hosts (one)"), world.agentLog)

        // The right host as another user (root may log in there with this key): offered, and the agent refuses.
        let wrongUser = try ssh(world, to: world.sshd, user: "root")
        XCTAssertNotEqual(wrongUser.status, 0, "\(wrongUser)")
        try world.waitForAgentLog("refused to sign with host-bound key 'bound'")
        XCTAssertTrue(world.agentLog.contains("the login is as user 'root'"), world.agentLog)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 1, world.sshd.log)
        let refused = try world.releases().filter { $0["what"] as? String == "refused signature" }
        XCTAssertEqual(refused.count, 1, "\(refused)")
        XCTAssertEqual(refused.first?["host"] as? String, "one", "the host asked for")
        XCTAssertEqual(refused.first?["by"] as? String, "agent")
        XCTAssertTrue((refused.first?["detail"] as? String)?.contains("user 'root'") == true, "\(refused)")
        XCTAssertExit(try world.home.run(["log", "verify"]), 0)

        // --only-clear: usable everywhere again.
        XCTAssertExit(try world.home.run(["identity", "edit", "bound", "--only-clear"]), 0)
        XCTAssertExit(try ssh(world, to: second), 0)
        XCTAssertTrue(second.waitForLog("Accepted publickey"), second.log)
    }

    /// ssh -A to one, and from there ssh to two through the forwarded agent: the agent sees two bindings (one
    /// forwarded, two logged in to) and signs only when both servers are the key's hosts.
    func testAForwardedAgentIsCheckedAtEachHop() throws {
        let (world, second) = try twoHosts()
        try world.sshd.authorize(try keygen(world, "plain"))
        try second.authorize(try keygen(world, "bound"))
        XCTAssertExit(try world.home.run(["identity", "edit", "bound", "--only", "two"]), 0)
        try world.startAgent()
        // Run on one, as sshelftest, with the agent one forwarded.
        let inner =
            ([TestTool.ssh.path] + Self.sshOptions(agent: "IdentityAgent=SSH_AUTH_SOCK")
            + ["-p", String(second.port), "\(TestAccount.name)@\(second.options.listenAddress)", "echo", "reached-two"])
            .joined(separator: " ")

        // one is not a host of the key: through it, the key is not offered to two.
        let through = try ssh(world, to: world.sshd, forward: true, command: inner)
        XCTAssertNotEqual(through.status, 0, "\(through)")
        XCTAssertFalse(through.stdout.contains("reached-two"), through.stdout)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), "plain logged in to one:\n\(world.sshd.log)")
        try world.waitForAgentLog(
            "the agent was forwarded through host one (hop 1), which is not one of the key's hosts (two)")
        XCTAssertEqual(second.logCount("Accepted publickey"), 0, second.log)

        // Bound to both: the forwarded agent signs the login to two, and the log names two.
        // A group that does not exist: a clear error, and the binding is as it was.
        let typo = try world.home.run(["identity", "edit", "bound", "--only", "one", "--only", "@nowhere"])
        XCTAssertEqual(typo.status, 3, "\(typo)")
        XCTAssertTrue(typo.stderr.contains("--only: no group 'nowhere'"), typo.stderr)
        let both = try world.home.run(["identity", "edit", "bound", "--only", "one"])
        XCTAssertExit(both, 0)
        XCTAssertTrue(both.stdout.contains("only for two, one"), both.stdout)
        let reached = try ssh(world, to: world.sshd, forward: true, command: inner)
        XCTAssertExit(reached, 0)
        XCTAssertTrue(reached.stdout.contains("reached-two"), reached.stdout)
        XCTAssertTrue(second.waitForLog("Accepted publickey"), second.log)
        let signed = try world.releases().filter {
            $0["what"] as? String == "signature" && ($0["detail"] as? String)?.contains("'bound'") == true
        }
        XCTAssertEqual(signed.count, 1, "\(signed)")
        XCTAssertEqual(signed.first?["host"] as? String, "two")
    }

    /// `sshelf connect` to a host with ForwardAgent: handed to OpenSSH with the sshelf agent (one line says why), and
    /// from that shell ssh reaches a second host with the forwarded agent — two hops, each checked by the agent.
    func testConnectWithForwardAgentReachesASecondHopThroughTheSshelfAgent() throws {
        let (world, second) = try twoHosts()
        defer { _ = try? world.home.run(["agent", "stop"]) }
        try world.sshd.authorize(try keygen(world, "plain"))
        try second.authorize(try keygen(world, "bound"))
        XCTAssertExit(try world.home.run(["identity", "edit", "bound", "--only", "two"]), 0)
        XCTAssertExit(
            try world.home.run(["edit", "one", "--identity", "plain", "--option", "ForwardAgent yes"]), 0)
        let inner =
            ([TestTool.ssh.path] + Self.sshOptions(agent: "IdentityAgent=SSH_AUTH_SOCK")
            + ["-p", String(second.port), "\(TestAccount.name)@\(second.options.listenAddress)", "echo", "reached-two"])
            .joined(separator: " ")

        let refused = try world.home.run(["connect", "one"], stdin: inner + "; exit 5\n")
        XCTAssertEqual(refused.status, 5, "\(refused)")
        XCTAssertTrue(
            refused.stderr.contains("sshelf: note: one sets ForwardAgent, which sshelf's own client"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("handing the session to OpenSSH's ssh with the sshelf agent"))
        XCTAssertFalse(refused.stdout.contains("reached-two"), "\(refused)")
        try world.waitForAgentLog("the agent was forwarded through host one (hop 1)")

        XCTAssertExit(try world.home.run(["identity", "edit", "bound", "--only", "one"]), 0)
        let reached = try world.home.run(["connect", "one"], stdin: inner + "; exit 5\n")
        XCTAssertEqual(reached.status, 5, "\(reached)")
        XCTAssertTrue(reached.stdout.contains("reached-two"), "\(reached)")
        XCTAssertTrue(second.waitForLog("Accepted publickey"), second.log)
        let signatures = try world.releases().filter { $0["what"] as? String == "signature" }
        XCTAssertEqual(Set(signatures.compactMap { $0["host"] as? String }), ["one", "two"], "\(signatures)")
    }
}

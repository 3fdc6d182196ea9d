// CertificateRenewalTests: an identity a CA in the vault keeps fresh (`ca sign … --renew`) is renewed on the login
// paths beyond connect/exec/run/forward start — in the agent (OpenSSH's ssh through sshelf's agent), for `forward
// up` and its reconnects, and on the TUI's Enter — against a real sshd that trusts only the CA (no authorized key):
// each renewal is a release-log line naming the path, and an expired certificate is never offered.
import Foundation
import TestSupport
import XCTest

final class CertificateRenewalTests: XCTestCase {
    /// OpenSSH's ssh with no key or certificate of its own logs in through sshelf's agent: the agent's list request
    /// renews the expired certificate first and lists it beside the key; the login is the new serial's.
    func testTheAgentRenewsAnExpiredCertificateBeforeSshLogsInThroughIt() throws {
        let world = try CAWorld()
        try world.signExpired()
        let agent = AgentWorld(over: world.home, sshd: world.sshd)
        try agent.startAgent()

        let ssh = try agent.ssh(command: "echo through-the-agent")
        XCTAssertExit(ssh, 0)
        XCTAssertEqual(ssh.stdout, "through-the-agent\n")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        XCTAssertTrue(world.sshd.log.contains("(serial 2)"), world.sshd.log)
        try agent.waitForAgentLog("renewed the certificate of identity 'work' (CA 'team', serial 2, ")
        XCTAssertEqual(try world.issuers(), ["ca sign", "agent"])

        // Fresh now: the agent lists the new certificate and its key, and renews nothing more.
        let listed = try agent.sshAdd(["-L"])
        XCTAssertExit(listed, 0)
        let types = listed.stdout.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        XCTAssertEqual(types, ["ssh-ed25519-cert-v01@openssh.com", "ssh-ed25519"], listed.stdout)
        XCTAssertEqual(try world.issuers(), ["ca sign", "agent"])
    }

    /// A certificate that expired and cannot be renewed (the CA revoked the identity) is not offered: the agent
    /// lists the key alone, says why in its log, and the login (no authorized key) is refused.
    func testAnExpiredCertificateTheAgentCannotRenewIsNotOffered() throws {
        let world = try CAWorld()
        try world.signExpired()
        XCTAssertExit(
            try world.home.run("ca", "revoke", "work", "--ca", "team", "--out", world.home.root + "/team.krl"), 0)
        let agent = AgentWorld(over: world.home, sshd: world.sshd)
        try agent.startAgent()

        let listed = try agent.sshAdd(["-L"])
        XCTAssertExit(listed, 0)
        XCTAssertFalse(listed.stdout.contains("-cert-v01@openssh.com"), listed.stdout)
        XCTAssertTrue(listed.stdout.hasPrefix("ssh-ed25519 "), listed.stdout)
        try agent.waitForAgentLog("could not renew the certificate of identity 'work'")
        XCTAssertTrue(agent.agentLog.contains("its certificate has expired and is not offered"), agent.agentLog)
        XCTAssertNotEqual(try agent.ssh().status, 0)
        XCTAssertEqual(try world.issuers(), ["ca sign"])
    }

    /// `forward up` renews before every login of its runner: the first one (the certificate has expired) and a
    /// reconnect after the server went away while the kept certificate expired (replaced here by an expired one the
    /// CA issued, as time would do it), each a release-log line naming `forward up`. On libssh2 1.10, which cannot log
    /// in with a user certificate, the runner sends the host's rules through OpenSSH's `ssh -N` and renews the same.
    func testForwardUpRenewsBeforeItsLoginAndBeforeAReconnect() throws {
        let world = try CAWorld()
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }  // on libssh2 1.10 the rules go through OpenSSH
        try world.signExpired()
        let port = try TrafficSocket.freePort(), closed = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "c", "--local", "\(port):127.0.0.1:\(closed)", "--autostart"), 0)
        let ownClient = try world.home.run("version", "--verbose").stdout.contains(
            "  yes user certificates (CertificateFile)")
        let up = try BackgroundCLI(world.home, ["forward", "up"])
        if !ownClient { try up.waitFor("; running its rules through OpenSSH's ssh") }
        try up.waitFor("c: note: renewed the certificate of identity 'work' (CA 'team', serial 2, ")
        try up.waitFor("c: active")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        XCTAssertTrue(world.sshd.log.contains("(serial 2)"), world.sshd.log)

        try world.sshd.stopWithSessions()
        try up.waitFor("c: retrying")
        try world.signExpired()  // serial 3, expired: what the kept certificate is once its hour has passed
        var options = world.sshd.options
        options.port = world.sshd.port
        options.hostKeysFrom = world.sshd.directory
        let restarted = try SSHD.start(options)
        try up.waitFor("c: note: renewed the certificate of identity 'work' (CA 'team', serial 4, ")
        try up.waitFor("c: active", count: 2, deadline: Deadline.long)
        XCTAssertTrue(restarted.waitForLog("Accepted publickey"), restarted.log)
        XCTAssertTrue(restarted.log.contains("(serial 4)"), restarted.log)
        XCTAssertEqual(try world.issuers(), ["ca sign", "forward up", "ca sign", "forward up"])
        XCTAssertExit(try world.home.run("forward", "stop"), 0)
        XCTAssertEqual(try up.waitExit(), 0, up.stderr)
    }

    /// Enter in the TUI on a host whose certificate has expired: renewed on the login thread (no question asked:
    /// the vault has no passphrase), the session opens — through sshelf's client on libssh2 1.11, through OpenSSH's
    /// ssh with the renewed certificate on 1.10 — and the release log names the TUI.
    func testEnterInTheTUIRenewsAnExpiredCertificateAndLogsInWithoutAPrompt() throws {
        let world = try CAWorld()
        try world.signExpired()
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }  // a hand-over to OpenSSH starts it

        let tui = try Tmux(home: world.home, columns: 200, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor(
            "the remote prompt, no question asked",
            context: {
                "sshd log:\n" + tail(world.sshd.log) + "\nrelease log:\n"
                    + ((try? world.home.run("log").stdout) ?? "")
            }
        ) { screen in
            XCTAssertFalse(screen.contains("Vault passphrase"), screen)
            return screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") }
                && !screen.contains("○ sync")
        }
        try tui.type("echo via-$((6*7))")
        try tui.send("Enter")
        try tui.waitFor(text: "via-42")
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor("the TUI after the session") { $0.contains("session to c ended") && $0.contains("1 host") }
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        XCTAssertTrue(world.sshd.log.contains("(serial 2)"), world.sshd.log)
        XCTAssertEqual(try world.issuers(), ["ca sign", "tui"])
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

// TUIOpenSSHHandoverTests: Enter in the TUI on a host that `sshelf connect` hands to OpenSSH does the same — the
// line saying why after curses is left, OpenSSH's ssh with the sshelf agent logging in (the real sshd's log), and
// the TUI back with the session's result and the reason. An RSA identity is handed over on libssh2 1.10 and logs in
// through sshelf's own client on 1.11 (asked of the binary, as the product decides at run time; make test runs
// this on both); a ForwardAgent host is handed over on both, and its shell has the forwarded agent.
import Foundation
import TestSupport
import XCTest

final class TUIOpenSSHHandoverTests: XCTestCase {
    private static let handing = "; handing the session to OpenSSH's ssh with the sshelf agent"

    /// The remote shell's prompt on the plain terminal (capture-pane trims the space after it), curses left.
    private func waitForRemotePrompt(_ tui: Tmux, also: String? = nil) throws {
        try tui.waitFor("the remote prompt") { screen in
            screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") }
                && !screen.contains("○ sync") && also.map(screen.contains) != false
        }
    }

    func testAnRSAIdentityIsHandedToOpenSSHOnlyWhereTheLibraryCannotSignIt() throws {
        let world = try BridgeWorld()
        let key = try TestKey.generate(.rsa)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let server = try SSHD.start(options)
        XCTAssertExit(try world.home.run("identity", "import", "rsa1", key.privatePath), 0)
        XCTAssertExit(
            try world.home.run(
                "add", "r1", "--host", server.options.listenAddress,
                "--port", String(server.port), "--user", TestAccount.name,
                "--identity", "rsa1"), 0)
        XCTAssertExit(try world.home.run("trust", "r1", "--fingerprint", try world.fingerprint(server)), 0)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        let newer = try world.home.run("version", "--verbose").stdout.contains("  yes RSA keys sign with rsa-sha2")

        let tui = try Tmux(home: world.home, columns: 240, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        let note = "sshelf: note: r1 logs in with the RSA key of identity 'rsa1', which libssh2 1.10"
        try waitForRemotePrompt(tui, also: newer ? nil : note)
        let session = try tui.screen()
        XCTAssertEqual(session.contains(Self.handing), !newer, session)
        try tui.type("echo via-$((6*7))")
        try tui.send("Enter")
        try tui.waitFor(text: "via-42")
        try tui.type("exit 3")
        try tui.send("Enter")
        // The result line repeats why (the line before the session may have scrolled away): on 1.11 it does not,
        // which is part of the wait, as tmux may show a frame half drawn.
        try tui.waitFor("the TUI after the session, saying why OpenSSH served" + (newer ? " only if it did" : "")) {
            $0.contains("session to r1 ended with exit 3") && $0.contains("1 host")
                && $0.contains("through OpenSSH: r1 logs in with the RSA key of identity 'rsa1'") == !newer
        }
        // Either way the server took an rsa-sha2-512 signature: OpenSSH's through the sshelf agent (the key is only
        // in the vault), or the own client's on 1.11.
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)
        XCTAssertTrue(server.log.contains("pkalg rsa-sha2-512"), server.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testAForwardAgentHostIsHandedToOpenSSHWithTheSshelfAgentForwarded() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        try world.addHost("fa", on: server, options: ["ForwardAgent yes"])
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }

        let tui = try Tmux(home: world.home, columns: 240, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try waitForRemotePrompt(tui, also: "sshelf: note: fa sets ForwardAgent, which sshelf's own client")
        let session = try tui.screen()
        XCTAssertTrue(session.contains(Self.handing), session)
        // The forwarded agent is the sshelf agent: it lists the vault key.
        try tui.type("\(TestTool.sshAdd.path) -L | grep -c ssh-ed25519 | sed 's/^/vault-keys-/'")
        try tui.send("Enter")
        try tui.waitFor(text: "vault-keys-1")
        try tui.type("exit")
        try tui.send("Enter")
        // Curses is back: the session's hand-over line gone is part of the wait (a half-drawn frame may keep it).
        try tui.waitFor("the TUI after the session, the hand-over line gone") {
            $0.contains("session to fa ended (exit 0); through OpenSSH: fa sets ForwardAgent") && $0.contains("1 host")
                && !$0.contains(Self.handing)
        }
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

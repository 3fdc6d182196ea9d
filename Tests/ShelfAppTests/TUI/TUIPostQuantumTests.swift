// TUIPostQuantumTests: Enter in the TUI on a server that offers only post-quantum key exchange (a real sshd with only
// sntrup761x25519) hands the session to OpenSSH's ssh after the failed handshake, with the line saying why, and the TUI
// comes back saying it again; a host that requires post-quantum key exchange shows it in the details pane, and after
// Enter on it the key exchange OpenSSH's ssh used (recorded as the host's last session). Both libssh2 versions
// (SSH_MATRIX_TESTS).
import Foundation
import TestSupport
import XCTest

final class TUIPostQuantumTests: XCTestCase {
    /// The remote shell's prompt on the plain terminal (curses left), with `also` on the screen when given.
    private func waitForRemotePrompt(_ tui: Tmux, also: String? = nil) throws {
        try tui.waitFor("the remote prompt" + (also == nil ? "" : " after the note")) { screen in
            screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") }
                && !screen.contains("○ sync") && also.map(screen.contains) != false
        }
    }

    func testEnterOnAPostQuantumOnlyServerHandsTheSessionToOpenSSH() throws {
        let world = try BridgeWorld()
        let classical = try world.server()
        // Pinned while it still offered a classical key exchange: the post-quantum-only server has its host keys.
        try world.addHost("pq", on: classical)
        var options = SSHD.Options()
        options.extraConfig = ["KexAlgorithms sntrup761x25519-sha512@openssh.com"]
        options.hostKeysFrom = classical.directory
        let server = try world.server(options)
        XCTAssertExit(try world.home.run("edit", "pq", "--port", String(server.port)), 0)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }

        let tui = try Tmux(home: world.home, columns: 240, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        let why = "pq offers only post-quantum key exchange (sntrup761x25519-sha512@openssh.com)"
        try waitForRemotePrompt(tui, also: "sshelf: note: " + why)
        try tui.type("exit 3")
        try tui.send("Enter")
        try tui.waitFor("the TUI after the session, saying why OpenSSH served") {
            $0.contains("session to pq ended with exit 3") && $0.contains("1 host")
                && $0.contains("through OpenSSH: " + why)
        }
        XCTAssertTrue(server.waitForLog("kex: algorithm: sntrup761x25519-sha512@openssh.com"), server.log)
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)

        // The host form's setting, as `edit --pq require` sets it: the details pane says so.
        XCTAssertExit(try world.home.run("edit", "pq", "--pq", "require"), 0)
        try tui.waitFor(text: "required: sessions go through OpenSSH")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testEnterOnAHostThatRequiresPostQuantumRecordsTheKeyExchangeInTheDetails() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        try world.addHost("pq", on: server)
        XCTAssertExit(try world.home.run("edit", "pq", "--pq", "require"), 0)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        let kex = "sntrup761x25519-sha512@openssh.com (post-quantum)"

        let tui = try Tmux(home: world.home, columns: 240, rows: 30)
        try tui.waitFor(text: "required: sessions go through OpenSSH")
        XCTAssertFalse(try tui.screen().contains(kex), "no session yet")
        try tui.send("Enter")
        try waitForRemotePrompt(tui)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor("the TUI after the session, the details naming the key exchange ssh used") {
            $0.contains("session to pq ended (exit 0)") && $0.contains(kex)
        }
        XCTAssertTrue(server.waitForLog("kex: algorithm: sntrup761x25519-sha512@openssh.com"), server.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

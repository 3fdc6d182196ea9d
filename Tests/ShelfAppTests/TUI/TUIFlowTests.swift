// Flows the TUI finishes, against real servers in real tmux: a changed host key is a dialog with both fingerprints
// and where the pin came from (Esc keeps the pin; typing the host's name replaces it and connects, and the server's
// log shows no login attempt before that); Esc cancels a connect to a server that never answers (the server sees the
// socket closed after the client's banner, nothing else); a store or vault that cannot be opened fills the screen.
import Foundation
import TestSupport
import XCTest

final class TUIFlowTests: XCTestCase {
    private func shellPrompt(_ screen: String) -> Bool {
        screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") } && !screen.contains("○ sync")
    }

    /// The key pinned on the host record, as `type base64` (what `SSHD.hostPublicKey` gives for a server).
    private func pinnedKey(_ home: TempHome, _ name: String) throws -> String {
        let show = try home.run("show", name, "--json")
        XCTAssertExit(show, 0)
        let object = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        guard let pin = object?["pinnedHostKey"] as? [String: Any], let type = pin["type"] as? String,
            let key = pin["key"] as? String
        else { return "none" }
        return "\(type) \(key)"
    }

    func testAChangedKeyIsADialogTypingTheNameReplacesThePinEscapeKeepsIt() throws {
        let world = try SSHCLIWorld()
        let original = try world.fingerprint(world.sshd)
        let impostor = try world.impostorForT()
        let offered = try world.fingerprint(impostor)
        XCTAssertEqual(try pinnedKey(world.home, "t"), world.sshd.hostPublicKey(.ed25519))
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")

        // The dialog: both whole fingerprints and where the known one came from.
        try tui.send("Enter")
        let dialog = try tui.waitFor("the changed-key dialog") {
            $0.contains("HOST KEY CHANGED") && $0.contains("ssh-ed25519 \(original)")
                && $0.contains("ssh-ed25519 \(offered)")
        }
        XCTAssertTrue(dialog.contains("known, from the host's pinned key:"), dialog)
        XCTAssertTrue(dialog.contains("type the host's name (t)"), dialog)
        // Nothing was sent: the server saw the key exchange end, and no login.
        impostor.waitForConnectionsEnded()
        XCTAssertFalse(impostor.log.contains("userauth-request"), impostor.log)

        // y is text here, never a reflex yes; Esc keeps the pin.
        try tui.type("y")
        try tui.send("Enter")
        try tui.waitFor(text: "That is not 't'")
        try tui.send("Escape")
        try tui.waitFor(text: "not connected: the host key of t changed; its pin was kept")
        XCTAssertEqual(try pinnedKey(world.home, "t"), world.sshd.hostPublicKey(.ed25519), "Esc left the pin")
        XCTAssertFalse(impostor.log.contains("userauth-request"), impostor.log)

        // Typing the host's name: the pin is replaced (record and sshelf's known_hosts), then the connect goes on.
        try tui.send("Enter")
        try tui.waitFor(text: "HOST KEY CHANGED")
        try tui.type("t")
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        XCTAssertEqual(try pinnedKey(world.home, "t"), impostor.hostPublicKey(.ed25519))
        // sshelf's known_hosts names t's address with the new key only.
        let knownHosts = try String(contentsOfFile: world.knownHostsPath, encoding: .utf8)
        let forT = knownHosts.split(separator: "\n").filter { $0.hasPrefix(impostor.knownHostsName + " ") }
        XCTAssertEqual(
            forT.map(String.init), ["\(impostor.knownHostsName) \(impostor.hostPublicKey(.ed25519))"], knownHosts)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(impostor.waitForLog("Accepted publickey"), impostor.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testEscapeCancelsAConnectToAServerThatNeverAnswers() throws {
        let home = TempHome()
        let server = try RecordingListener()
        XCTAssertExit(
            try home.run("add", "mute", "--host", "127.0.0.1", "--port", String(server.port), "--user", "u"), 0)
        let tui = try Tmux(home: home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor(text: "connecting to mute... (Esc cancels)")
        // The client's banner arrived: the attempt is in its handshake, waiting for the server.
        try eventually(
            "the client's banner at the server", observe: { server.received }, until: { $0.hasPrefix("SSH-2.0-") })
        try tui.send("Escape")
        try tui.waitFor(text: "not connected: cancelled")
        // The server side: the socket was closed, and nothing came after the banner line.
        try eventually("the connection closed", observe: { server.closed }, until: { $0 })
        let lines = server.received.split(separator: "\r\n", omittingEmptySubsequences: true)
        XCTAssertEqual(lines.count, 1, "only the banner was sent: \(server.received.debugDescription)")
        // Enter again starts a new attempt (the old one is over).
        try tui.send("Enter")
        try tui.waitFor(text: "connecting to mute...")
        try tui.send("Escape")
        try tui.waitFor(text: "not connected: cancelled")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testAVaultThatCannotBeOpenedFillsTheScreenAndEscapeGoesOn() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try home.run("vault", "init"), 0)
        let vault = home.sshelfHome + "/data/vault.sqlite"
        chmod(vault, 0o644)
        let tui = try Tmux(home: home, columns: 100, rows: 30)
        let screen = try tui.waitFor("the vault error screen") {
            $0.contains("The vault cannot be opened") && $0.contains("Esc go on without it")
        }
        XCTAssertTrue(screen.contains("hint:"), screen)
        try tui.send("Escape")
        try tui.waitFor("the hosts, the vault's error in the status line") {
            $0.contains("web") && $0.contains("Hosts 1") && $0.contains("vault: ")
        }
        // Repaired elsewhere: the status line follows by itself.
        chmod(vault, 0o600)
        try tui.waitFor(text: "vault open, no passphrase")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testADamagedStoreFillsTheScreenWithTheErrorAndQQuits() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "w.example"), 0)
        let store = home.sshelfHome + "/data/store.sqlite"
        for suffix in ["-wal", "-shm"] { unlink(store + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: store))
        chmod(store, 0o600)
        let tui = try Tmux(home: home, columns: 100, rows: 30)
        // "loading..." gone is part of the wait: tmux may show a frame half drawn (the error drawn over it).
        let screen = try tui.waitFor("the error screen, no longer loading") {
            $0.contains("The host store cannot be opened") && $0.contains("q quit") && !$0.contains("loading...")
        }
        XCTAssertTrue(screen.contains(store), screen)
        XCTAssertTrue(screen.contains("hint:"), screen)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

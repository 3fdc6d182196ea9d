// Logging in from the TUI, in process, against the test sshd: the password dialog (masked, "remember"), the
// remembered password used on the next connect, a wrong password / missing credential as a red line inside the
// TUI, keyboard-interactive (PAM) prompts, the vault passphrase, a key of another type (accepted by typing the
// host's name), and each jump host's key as dialogs (a changed key: TUIFlowTests). Every question is asked
// before curses is left.
import Foundation
import TestSupport
import XCTest

final class TUILoginTests: XCTestCase {
    private func shellPrompt(_ screen: String) -> Bool {
        screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") } && !screen.contains("○ sync")
    }

    private func passwordWorld(_ options: SSHD.Options = SSHD.Options(), auth: String = "password") throws
        -> SSHCLIWorld
    {
        let world = try SSHCLIWorld(options: options)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--auth", auth), 0)
        return world
    }

    func testPasswordDialogRemembersAndTheNextConnectAsksNothing() throws {
        let world = try passwordWorld()
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor("the password dialog") {
            $0.contains("Connecting to t") && $0.contains("'s password:") && $0.contains("[ ] remember in the vault")
                && $0.contains("○ sync off")
        }
        try tui.type(TestAccount.password)
        try tui.send("Tab")
        // Checked on every frame the wait reads, not only the last: a secret is never on screen, even for a moment.
        try tui.waitFor("the password masked, remember ticked") { screen in
            XCTAssertFalse(screen.contains(TestAccount.password), "the password is on screen:\n\(screen)")
            return screen.contains("[x] remember in the vault")
                && screen.contains(String(repeating: "*", count: TestAccount.password.count))
        }
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("echo tui-$((6*7))")
        try tui.send("Enter")
        try tui.waitFor(text: "tui-42")
        try tui.type("exit 4")
        try tui.send("Enter")
        // The "remember" created the vault: the status line says so without a restart.
        try tui.waitFor("the TUI after the session, the vault set up") {
            $0.contains("session to t ended with exit 4") && $0.contains("1 host")
                && $0.contains("vault open, no passphrase")
        }
        XCTAssertTrue(world.sshd.waitForLog("Accepted password"), world.sshd.log)
        let show = try world.home.run("show", "t")
        XCTAssertTrue(show.stdout.contains("in the vault"), "remembered: \(show.stdout)")
        let storeBytes = try Data(contentsOf: URL(fileURLWithPath: world.home.sshelfHome + "/data/store.sqlite"))
        XCTAssertNil(storeBytes.range(of: Data(TestAccount.password.utf8)), "the password is not in the store")

        // Second connect: the password comes from the vault, no dialog.
        try tui.send("Enter")
        try tui.waitFor("the remote prompt again") { screen in
            XCTAssertFalse(screen.contains("'s password:"), "asked again:\n\(screen)")
            return self.shellPrompt(screen)
        }
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertEqual(world.sshd.log.components(separatedBy: "Accepted password").count - 1, 2, world.sshd.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testWrongPasswordIsAnErrorLineInsideTheTUI() throws {
        let world = try passwordWorld()
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor(text: "'s password:")
        try tui.type("not-the-password")
        try tui.send("Enter")
        // The server said no: asked again, saying so.
        try tui.waitFor(text: "Permission denied, please try again.")
        try tui.send("Escape")
        // The dialog gone is part of the wait: tmux may show a frame half drawn (the line new, the dialog not cleared).
        try tui.waitFor("the error line, the dialog gone") {
            $0.contains("not connected: authentication failed for") && $0.contains("○ sync off")
                && $0.contains("1 host") && !$0.contains("'s password:")
        }
        // Red: the notice is drawn in the error colour.
        let coloured = try tui.screen(escapes: true)
        XCTAssertTrue(coloured.contains("31mnot connected"), coloured)
        XCTAssertFalse(try world.home.run("show", "t").stdout.contains("in the vault"), "nothing remembered")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testKeyboardInteractivePromptsAreDialogs() throws {
        var options = SSHD.Options()
        options.keyboardInteractive = true
        options.passwordAuthentication = false
        let world = try passwordWorld(options, auth: "keyboardInteractive")
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        // PAM's prompt, hidden: masked, and no "remember" (a challenge is not a stored password).
        try tui.waitFor("the keyboard-interactive dialog, without remember") {
            $0.contains("Connecting to t") && $0.lowercased().contains("password") && $0.contains("Enter sends")
                && !$0.contains("remember in the vault")
        }
        try tui.type(TestAccount.password)
        // Checked on every frame the wait reads, not only the last: a secret is never on screen, even for a moment.
        try tui.waitFor("the answer masked") { screen in
            XCTAssertFalse(screen.contains(TestAccount.password), "the password is on screen:\n\(screen)")
            return screen.contains(String(repeating: "*", count: TestAccount.password.count))
        }
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(world.sshd.waitForLog("Accepted keyboard-interactive"), world.sshd.log)
        try tui.send("q")
    }

    func testEachJumpHostAsksItsOwnHostKeyInTheTUI() throws {
        let world = try SSHCLIWorld()
        var options = SSHD.Options()
        options.authorizedKeys = [world.key.publicLine]
        options.listenAddress = "127.0.0.3"
        let inner = try SSHD.start(options)
        try world.addHost("inner", inner, extra: "  ProxyJump t")
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "2 hosts")
        try tui.waitFor(text: "address   \(TestAccount.name)@127.0.0.3")
        let jumpKey = try world.fingerprint(world.sshd), innerKey = try world.fingerprint(inner)
        XCTAssertNotEqual(jumpKey, innerKey)
        try tui.send("Enter")
        // The jump host first: its key is checked before anything goes through it.
        try tui.waitFor("the jump host's key") {
            $0.contains("Unknown host key") && $0.contains("t offered an ssh-ed25519 key:") && $0.contains(jumpKey)
        }
        XCTAssertFalse(world.sshd.log.contains("userauth-request"), world.sshd.log)
        try tui.send("y")
        try tui.waitFor("the target's key") {
            $0.contains("Unknown host key") && $0.contains("inner offered an ssh-ed25519 key:") && $0.contains(innerKey)
        }
        XCTAssertFalse(inner.log.contains("userauth-request"), inner.log)
        try tui.send("y")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("exit 5")
        try tui.send("Enter")
        try tui.waitFor(text: "session to inner ended with exit 5")
        XCTAssertTrue(world.sshd.waitForLog("target 127.0.0.3 port \(inner.port)"), world.sshd.log)
        XCTAssertTrue(try world.home.run("show", "t").stdout.contains("host key       ssh-ed25519 \(jumpKey) pinned"))
        XCTAssertTrue(
            try world.home.run("show", "inner").stdout.contains("host key       ssh-ed25519 \(innerKey) pinned"))
        try tui.send("q")
    }

    func testAPasswordNotOnThisDeviceIsTheNotSyncedLine() throws {
        let world = try passwordWorld()
        XCTAssertExit(
            try world.home.run(["vault", "set-password", "t", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        // This device has the host (and its password reference) but not the vault item: as before a sync.
        for suffix in ["", "-wal", "-shm"] { unlink(world.home.sshelfHome + "/data/vault.sqlite" + suffix) }
        let tui = try Tmux(home: world.home, columns: 140, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        // Checked on every frame the wait reads: no prompt, not even for a moment.
        try tui.waitFor("the not-synced line") { screen in
            XCTAssertFalse(screen.contains("'s password:"), "no prompt replaces a missing stored password:\n\(screen)")
            return screen.contains("not connected: the credential for t has not synced to this device yet")
                && screen.contains("1 host")
        }
        world.sshd.waitForConnectionsEnded()
        XCTAssertFalse(world.sshd.log.contains("method password"), world.sshd.log)
        try tui.send("q")
    }

    func testALockedVaultAsksItsPassphraseInAMaskedDialog() throws {
        let world = try passwordWorld()
        // No kernel keyring: every process starts with the vault locked.
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        let passphrase = "vault-pass-\(UUID().uuidString.prefix(6))"
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        let secret = try world.home.write(TestAccount.password + "\n", to: "pw")
        let phrase = try world.home.write(passphrase + "\n", to: "pp")
        XCTAssertExit(
            try CLI.run(
                [
                    "-c", "exec \"$0\" \"$@\" 3<'\(secret)' 4<'\(phrase)'", CLI.binary, "vault", "set-password",
                    "t", "--secret-fd", "3", "--passphrase-fd", "4",
                ], environment: world.home.environment, shell: true), 0)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor("the passphrase dialog, without remember") {
            $0.contains("The vault is locked. Vault passphrase:") && !$0.contains("remember in the vault")
        }
        XCTAssertFalse(world.sshd.log.contains("method password"), "nothing sent before the passphrase")
        try tui.type(passphrase)
        // Checked on every frame the wait reads, not only the last: a secret is never on screen, even for a moment.
        try tui.waitFor("the passphrase masked") { screen in
            XCTAssertFalse(screen.contains(passphrase), "the passphrase is on screen:\n\(screen)")
            return screen.contains(String(repeating: "*", count: passphrase.count))
        }
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(world.sshd.waitForLog("Accepted password"), world.sshd.log)
        try tui.send("q")
    }

    func testAKeyOfAnotherTypeIsAskedNeverTakenSilently() throws {
        var ecdsaOnly = SSHD.Options()
        ecdsaOnly.hostKeyTypes = [.ecdsa]
        let world = try SSHCLIWorld(options: ecdsaOnly)
        let ecdsa = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", world.sshd.directory + "/ssh_host_ecdsa_key.pub"])
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", String(ecdsa.split(separator: " ")[1])), 0)
        // The server now offers only an ed25519 key: t is known, but only as ecdsa.
        var options = SSHD.Options()
        options.authorizedKeys = [world.key.publicLine]
        let renewed = try SSHD.start(options)
        XCTAssertExit(try world.home.run("edit", "t", "--port", String(renewed.port)), 0)
        let fingerprint = try world.fingerprint(renewed)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor("the other-type dialog") {
            $0.contains("Host key of another type") && $0.contains("now offers a key of a type it is not known under")
                && $0.contains("ssh-ed25519 \(fingerprint)")
                && $0.contains("known only as, from the host's pinned key:")
                && $0.contains("ecdsa-sha2-nistp256")
        }
        // Not a y/n question: y and n are text, Esc refuses.
        try tui.type("n")
        try tui.send("Escape")
        try tui.waitFor(text: "not connected: the host key was not trusted")
        renewed.waitForConnectionsEnded()
        XCTAssertFalse(renewed.log.contains("userauth-request"), renewed.log)

        try tui.send("Enter")
        try tui.waitFor(text: "Host key of another type")
        try tui.type("t")
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(
            try world.home.run("show", "t").stdout.contains("host key       ssh-ed25519 \(fingerprint) pinned"))
        try tui.send("q")
    }

    func testTheEscapeDisconnectsAndTheTUISaysSo() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.send("Enter")
        try tui.type("~.")
        try tui.waitFor("the TUI after ~.") { $0.contains("session to t: disconnected") && $0.contains("1 host") }
        let show = try world.home.run("show", "t").stdout
        let last = show.split(separator: "\n").first { $0.hasPrefix("last connected") } ?? ""
        XCTAssertTrue(last.hasSuffix("just now"), "last connected was recorded: \(show)")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

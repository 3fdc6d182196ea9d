// The vault in the TUI, in real tmux against the test sshd. With no kernel keyring (every process starts locked):
// a wrong passphrase says so and asks again; the passphrase typed once serves the next connect too (the TUI keeps
// its one vault unlocked until the idle timeout); V unlocks and locks from the keyboard; the idle timeout locks it
// again by itself; the form refuses a name another host has. With the keyring, the vault session of the login: the
// status line follows an unlock or lock anywhere, and "remember" unlocks it (asking) when it is locked.
import Foundation
import TestSupport
import XCTest

final class TUIVaultTests: XCTestCase {
    /// Waits until the status line (not a title-bar notice) says `text` about the vault ("vault unlocked" matches
    /// "vault unlocked, 15 min left").
    @discardableResult
    private func waitForVault(_ tui: Tmux, _ text: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        try tui.waitFor("'\(text)' in the status line", file: file, line: line) {
            let status = tui.lastLine($0)
            return status.contains("│ \(text) │") || status.contains("│ \(text), ")
        }
    }

    /// V, then the passphrase in the "Unlock the vault" dialog, until the status line says unlocked.
    private func unlockWithV(_ tui: Tmux, _ passphrase: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        try tui.send("V")
        try tui.waitFor(text: "Unlock the vault", file: file, line: line)
        try tui.type(passphrase)
        try tui.send("Enter")
        try waitForVault(tui, "vault unlocked", file: file, line: line)
    }

    private func shellPrompt(_ screen: String) -> Bool {
        screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") } && !screen.contains("○ sync")
    }

    /// A world whose host t logs in with a password kept in a vault that has a passphrase.
    private func lockedVaultWorld(idleSeconds: Int? = nil) throws -> (SSHCLIWorld, String) {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        if let idleSeconds { world.home.extraEnvironment["SSHELF_VAULT_IDLE_SECONDS"] = String(idleSeconds) }
        let passphrase = "vault-pass-\(UUID().uuidString.prefix(6))"
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        let secret = try world.home.write(TestAccount.password + "\n", to: "pw")
        let phrase = try world.home.write(passphrase + "\n", to: "pp")
        XCTAssertExit(
            try CLI.run(
                [
                    "-c", "exec \"$0\" \"$@\" 3<'\(secret)' 4<'\(phrase)'", CLI.binary, "vault", "set-password",
                    "t", "--secret-fd", "3", "--passphrase-fd", "4",
                ], environment: world.home.environment,
                shell: true), 0)
        return (world, passphrase)
    }

    func testAWrongPassphraseIsSaidAndTheRightOneServesTheNextConnectToo() throws {
        let (world, passphrase) = try lockedVaultWorld()
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor("the host and the locked vault") { $0.contains("1 host") && $0.contains("vault locked") }
        try tui.send("Enter")
        try tui.waitFor(text: "The vault is locked. Vault passphrase:")
        try tui.type("not-the-passphrase")
        try tui.send("Enter")
        try tui.waitFor(text: "Wrong passphrase (try 2 of 3). Vault passphrase:")
        XCTAssertFalse(world.sshd.log.contains("method password"), "nothing sent before the vault answered")
        try tui.type(passphrase)
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor("the TUI, the vault still unlocked") {
            $0.contains("session to t ended (exit 0)") && $0.contains("vault unlocked")
        }
        // The second connect reads the password from the vault this process keeps unlocked: no dialog at all.
        try tui.send("Enter")
        try tui.waitFor("the remote prompt again") { screen in
            XCTAssertFalse(screen.contains("Vault passphrase"), "asked again:\n\(screen)")
            return self.shellPrompt(screen)
        }
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(world.sshd.waitForLog("Accepted password", count: 2), world.sshd.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testThreeWrongPassphrasesEndTheConnectWithThatReason() throws {
        let (world, _) = try lockedVaultWorld()
        let tui = try Tmux(home: world.home, columns: 200, rows: 30)
        try tui.waitFor("the host and the locked vault") { $0.contains("1 host") && $0.contains("vault locked") }
        try tui.send("Enter")
        for attempt in 1...3 {
            try tui.waitFor(text: attempt == 1 ? "Vault passphrase:" : "Wrong passphrase (try \(attempt) of 3)")
            try tui.type("wrong-\(attempt)")
            try tui.send("Enter")
        }
        // The password is then asked for instead (the vault could not give it), saying why; leaving that dialog
        // ends the connect with the same reason.
        try tui.waitFor("the password dialog with the reason") {
            $0.contains("(the vault passphrase was wrong 3 times)") && $0.contains("'s password:")
        }
        try tui.send("Escape")
        try tui.waitFor(
            text:
                "not connected: the password for t is in the vault, which cannot be read: the vault "
                + "passphrase was wrong 3 times"
        )
        XCTAssertFalse(world.sshd.log.contains("Accepted password"), world.sshd.log)
        try tui.send("q")
    }

    func testVUnlocksAndLocksAndTheIdleTimeoutLocksAgain() throws {
        let (world, passphrase) = try lockedVaultWorld(idleSeconds: 2)
        let tui = try Tmux(home: world.home, columns: 120, rows: 30)
        try waitForVault(tui, "vault locked")
        try tui.send("V")
        try tui.waitFor(text: "Unlock the vault")
        try tui.type("nope")
        try tui.send("Enter")
        try tui.waitFor(text: "Wrong passphrase (try 2 of 3). Vault passphrase:")
        try tui.type(passphrase)
        try tui.send("Enter")
        try waitForVault(tui, "vault unlocked")
        // Unused for the idle timeout (2 s here; 15 min by default): locked again, by itself.
        try waitForVault(tui, "vault locked")
        try unlockWithV(tui, passphrase)
        XCTAssertExit(try world.home.run("list"), 0)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testVLocksAnUnlockedVault() throws {
        let (world, passphrase) = try lockedVaultWorld()
        let tui = try Tmux(home: world.home, columns: 120, rows: 30)
        try waitForVault(tui, "vault locked")
        try unlockWithV(tui, passphrase)
        try tui.send("V")
        try waitForVault(tui, "vault locked")
        // Locked means locked: the next connect asks again.
        try tui.send("Enter")
        try tui.waitFor(text: "The vault is locked. Vault passphrase:")
        try tui.send("Escape")
        try tui.waitFor(text: "not connected: cancelled")
        world.sshd.waitForConnectionsEnded()
        XCTAssertFalse(world.sshd.log.contains("method password"), world.sshd.log)
        try tui.send("q")
    }

    /// The vault session is the login's: an unlock or lock in another terminal shows in the status line (with the
    /// time left), and `V` here unlocks it for the CLI too. Real kernel keyring.
    func testTheStatusLineFollowsTheSessionOfEveryProcess() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        addTeardown { _ = try? home.run("vault", "lock") }
        let passphrase = "session-\(UUID().uuidString.prefix(6))"
        XCTAssertExit(try home.run("add", "lab", "--host", "lab.example"), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let tui = try Tmux(home: home, columns: 120, rows: 30)
        try waitForVault(tui, "vault locked")
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        try waitForVault(tui, "vault unlocked, 15 min left")
        XCTAssertExit(try home.run("vault", "lock"), 0)
        try waitForVault(tui, "vault locked")
        try unlockWithV(tui, passphrase)
        let status = try home.run("vault", "status")
        XCTAssertTrue(status.stdout.contains("session:     unlocked for all your sshelf processes"), status.stdout)
        try tui.send("V")
        try waitForVault(tui, "vault locked")
        XCTAssertTrue(
            try home.run("vault", "status").stdout.contains("session:     locked"), "V locks it for the CLI too")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// "Remember" on a locked vault session asks for the vault passphrase first, then keeps the password
    /// (whenUnlocked…) — and that unlock is the session's: the CLI reads the password afterwards without being asked.
    func testRememberOnALockedSessionAsksThePassphraseAndTheUnlockServesTheCLI() throws {
        let world = try SSHCLIWorld()
        let home = world.home
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        addTeardown { _ = try? home.run("vault", "lock") }
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try home.run("edit", "t", "--auth", "password"), 0)
        let passphrase = "remember-\(UUID().uuidString.prefix(6))"
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let tui = try Tmux(home: home, columns: 100, rows: 30)
        try waitForVault(tui, "vault locked")
        try tui.waitFor(text: "│ 1 host │")  // loaded: Enter before that only says "still loading"
        try tui.send("Enter")
        try tui.waitFor(text: "[ ] remember in the vault")
        try tui.type(TestAccount.password)
        try tui.send("Tab")
        try tui.waitFor(text: "[x] remember in the vault")
        try tui.send("Enter")
        try tui.waitFor(text: "To remember the password, the vault passphrase:")
        try tui.type(passphrase)
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(try home.run("show", "t").stdout.contains("in the vault"))
        let listed = try home.run("vault", "list", "--json")
        XCTAssertTrue(listed.stdout.contains("\"accessibility\" : \"whenUnlockedThisDeviceOnly\""), listed.stdout)
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted password", count: 2), world.sshd.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// An encrypted key file's passphrase can be remembered like a password: the dialog offers "remember in the
    /// vault", the passphrase goes to `identity.<uuid>.passphrase` in the identity's class
    /// (whenUnlockedThisDeviceOnly), and the next connect asks nothing. The vault has a passphrase; its session was
    /// unlocked by the CLI.
    func testAKeyFilePassphraseIsRememberedInTheIdentitysFamily() throws {
        let world = try SSHCLIWorld()
        let home = world.home
        try world.addEncryptedKeyHost("work key pass", lockingAfter: self)
        let passphrase = "vault-\(UUID().uuidString.prefix(6))"
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)

        let tui = try Tmux(home: home, columns: 110, rows: 30)
        try tui.waitFor(text: "2 hosts")
        try tui.send("Enter")
        try tui.waitFor("the key passphrase dialog") {
            $0.contains("Passphrase for the key of identity") && $0.contains("[ ] remember in the vault")
        }
        try tui.type("work key pass")
        try tui.send("Tab")
        try tui.waitFor(text: "[x] remember in the vault")
        try tui.send("Enter")
        try tui.waitFor("the remote prompt", shellPrompt)
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to enc ended (exit 0)")
        let listed = try home.run("vault", "list", "--json")
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let kept = try XCTUnwrap(items.first { $0["family"] as? String == "identity.passphrase" }, listed.stdout)
        XCTAssertEqual(kept["accessibility"] as? String, "whenUnlockedThisDeviceOnly")

        try tui.send("Enter")
        try tui.waitFor("the remote prompt again") { screen in
            XCTAssertFalse(screen.contains("Passphrase for the key"), "asked again:\n\(screen)")
            return self.shellPrompt(screen)
        }
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to enc ended (exit 0)")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testTheFormRefusesANameAnotherHostHasAndSharedNamesAreMarked() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "lab", "--host", "lab.example"), 0)
        let tui = try Tmux(home: home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("a")
        try tui.waitFor(text: "Add host")
        try tui.type("LAB")
        try tui.send("Tab")
        try tui.type("other.example")
        try tui.send("Enter")
        let screen = try tui.waitFor(text: "a host named 'lab' already exists")
        XCTAssertTrue(screen.contains("Add host"), "the form stays open with what was typed:\n\(screen)")
        XCTAssertEqual(try home.run("list", "--json").stdout.components(separatedBy: "\"name\"").count - 1, 1)
        try tui.send("Escape")
        // A second "lab" made on purpose elsewhere (as sync can bring one): both marked as commands name them.
        XCTAssertExit(try home.run("add", "lab", "--host", "lab-b.example", "--allow-duplicate"), 0)
        let marked = try tui.waitFor("both labs marked") { $0.components(separatedBy: "lab@").count - 1 >= 2 }
        XCTAssertTrue(marked.contains("shared with 1 other host: commands take lab@"), marked)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

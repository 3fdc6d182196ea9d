// The vault in the TUI, in real tmux against the test sshd, with no kernel keyring (every process starts locked):
// a wrong passphrase says so and asks again; the passphrase typed once serves the next connect too (the TUI keeps
// its one vault unlocked until the idle timeout); V unlocks and locks from the keyboard; the idle timeout locks it
// again by itself; the form refuses a name another host has.
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
                "not connected: the password for t is in the vault, which cannot be read: the vault passphrase was wrong 3 times"
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

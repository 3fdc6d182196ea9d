// TUIFirstMinutesTests: what a new user meets in the TUI, in real tmux. V on a device with no vault offers to create
// one: the passphrase asked twice in the dialog (two that differ are asked again), then the vault exists with that
// passphrase — `sshelf vault status` says so and the passphrase unlocks it.
import Foundation
import TestSupport
import XCTest

final class TUIFirstMinutesTests: XCTestCase {
    func testVWithNoVaultCreatesOneWithThePassphraseTypedTwice() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        XCTAssertTrue(try home.run("vault", "status").stderr.contains("no vault"), "no vault to start with")
        let tui = try Tmux(home: home, columns: 120, rows: 30)
        try tui.waitFor(text: "No hosts yet")
        try tui.send("V")
        try tui.waitFor(text: "Create the vault")
        try tui.waitFor(text: "No vault on this device yet")
        try tui.type("first-try")
        try tui.send("Enter")
        try tui.waitFor(text: "The same passphrase again")
        try tui.type("something-else")
        try tui.send("Enter")
        try tui.waitFor(text: "The two passphrases differ (try 2 of 3)")
        let passphrase = "new-vault-pass"
        try tui.type(passphrase)
        try tui.send("Enter")
        try tui.waitFor(text: "The same passphrase again")
        try tui.type(passphrase)
        try tui.send("Enter")
        try tui.waitFor("the vault created") { screen in
            // The passphrase is never drawn.
            XCTAssertFalse(screen.contains(passphrase), screen)
            return screen.contains("created the vault")
        }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)

        let status = try home.run("vault", "status")
        XCTAssertExit(status, 0)
        XCTAssertTrue(status.stdout.contains("passphrase:  set"), status.stdout)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: "wrong\n\n"), 1)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
    }

    func testEscInTheCreateDialogMakesNoVault() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        let tui = try Tmux(home: home, columns: 120, rows: 30)
        try tui.waitFor(text: "No hosts yet")
        try tui.send("V")
        try tui.waitFor(text: "Create the vault")
        try tui.send("Escape")
        try tui.waitFor(text: "no vault created")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
        XCTAssertTrue(try home.run("vault", "status").stderr.contains("no vault"), "still none")
    }
}

// KeyPassphraseRememberTests: an encrypted key file's passphrase remembered from the CLI, as a password is. Typed at
// a real terminal (tmux) with "remember" answered y while the vault session is unlocked, it is kept as the
// identity's `identity.<uuid>.passphrase` item in the identity's class (read back from the vault file); a second
// process, with no terminal to ask on, then logs in with it; with the session locked that process is refused
// before anything is sent, saying the session is locked and that `sshelf vault unlock` fixes it (which it does),
// and at a terminal the vault passphrase is asked (then the remembered one serves). Real sshd, real kernel keyring
// (the session), real vault files.
import Foundation
import ShelfSQLite
import TestSupport
import XCTest

final class KeyPassphraseRememberTests: XCTestCase {
    static let vaultPassphrase = "correct horse battery"

    private func classInFile(_ home: TempHome, _ key: String) throws -> String? {
        let db = try SQLiteDatabase(path: home.sshelfHome + "/data/vault.sqlite", readOnly: true)
        return try db.rows("SELECT class FROM items WHERE key = ?", [.text(key)]).first?.first?.text
    }

    func testARememberedKeyPassphraseServesTheNextProcessWhileTheSessionIsUnlocked() throws {
        let world = try SSHCLIWorld()
        let home = world.home
        // The key file's identity comes with the host, as from any ssh_config.
        try world.addEncryptedKeyHost("work key pass", lockingAfter: self)
        // Setting the passphrase unlocks the session (for every process of this login).
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: Self.vaultPassphrase), 0)

        let typed = try Tmux(home: home, arguments: ["exec", "enc", "--no-stdin", "--", "echo", "first-login"])
        try typed.waitFor(text: "Enter passphrase for the key of identity '")
        try typed.enter("work key pass")
        try typed.waitFor(text: "Remember this key passphrase in the vault? [y/N]")
        try typed.enter("y")
        XCTAssertEqual(try typed.waitForExit(), 0, (try? typed.screen()) ?? "")
        // Checked on every frame the wait reads, not only the last.
        try typed.waitFor("the command's output") { screen in
            XCTAssertFalse(screen.contains("Vault passphrase"), "the unlocked session needed no passphrase:\n\(screen)")
            XCTAssertFalse(screen.contains("work key pass"), "not echoed:\n\(screen)")
            return screen.contains("first-login")
        }

        // Kept in the identity's family, in the identity's (interactive) class.
        let listed = try home.run("vault", "list", "--json")
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let kept = try XCTUnwrap(items.first { $0["family"] as? String == "identity.passphrase" }, listed.stdout)
        let key = try XCTUnwrap(kept["key"] as? String)
        let identities = try home.run("identity", "list", "--json").stdout
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(identities.utf8)) as? [[String: Any]])
        let identityID = try XCTUnwrap(list.first { $0["name"] as? String == "id_work" }?["id"] as? String, identities)
        XCTAssertEqual(key, "identity.\(identityID.lowercased()).passphrase")
        XCTAssertEqual(try classInFile(home, key), "whenUnlockedThisDeviceOnly")

        // Another process, no terminal to ask on: the session gives it the passphrase.
        let second = try home.run("exec", "enc", "--no-stdin", "--", "echo", "second-login")
        XCTAssertExit(second, 0)
        XCTAssertEqual(second.stdout, "second-login\n")
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)

        // Locked: the vault cannot give it. With no terminal the login is refused before anything is sent; at a
        // terminal the vault passphrase is asked, which unlocks the session and the remembered passphrase serves.
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let locked = try home.run("exec", "enc", "--no-stdin", "--", "echo", "third-login")
        XCTAssertExit(locked, 255)
        XCTAssertFalse(locked.stdout.contains("third-login"))
        // Not only the missing passphrase: the vault holds it, its session is locked, and what unlocks it.
        XCTAssertTrue(
            locked.stderr.contains("no passphrase for the key of identity 'id_work': the vault remembers it"),
            locked.stderr)
        XCTAssertTrue(locked.stderr.contains("the vault session is locked"), locked.stderr)
        let hint = try XCTUnwrap(locked.stderr.firstMatch(of: /sshelf: hint: (.*)\n/)?.1, locked.stderr)
        XCTAssertTrue(hint.hasPrefix("sshelf vault unlock"), locked.stderr)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, world.sshd.log)
        // The hint fixes the state it names: after `sshelf vault unlock` the same command logs in.
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.vaultPassphrase), 0)
        let hinted = try home.run("exec", "enc", "--no-stdin", "--", "echo", "after-unlock")
        XCTAssertExit(hinted, 0)
        XCTAssertEqual(hinted.stdout, "after-unlock\n")
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let asked = try Tmux(home: home, arguments: ["exec", "enc", "--no-stdin", "--", "echo", "asked-login"])
        // The key's question is never asked: checked on every frame each wait reads, not only the last.
        try asked.waitFor("the vault's question") { screen in
            XCTAssertFalse(screen.contains("Enter passphrase for the key"), "the vault's, not the key's:\n\(screen)")
            return screen.contains("Vault passphrase:")
        }
        try asked.enter(Self.vaultPassphrase)
        XCTAssertEqual(try asked.waitForExit(), 0, (try? asked.screen()) ?? "")
        try asked.waitFor("the command's output") { screen in
            XCTAssertFalse(screen.contains("Enter passphrase for the key"), "the remembered one served:\n\(screen)")
            return screen.contains("asked-login")
        }
    }
}

// TUIHostFormTests: the host form's password and options end to end, on the real binary in tmux against the test
// sshd — a password typed in the form goes to the vault (device-only class, never the store file) and the next
// connect logs in with it without asking; clearing the field removes it; options typed in the form are kept as
// `sshelf edit --option` keeps them; a connect says once which option sshelf's client does not apply.
import Foundation
import TestSupport
import XCTest

final class TUIHostFormTests: XCTestCase {
    private func shellPrompt(_ screen: String) -> Bool {
        screen.split(separator: "\n").contains { $0.hasSuffix("$") || $0.hasSuffix("#") } && !screen.contains("○ sync")
    }

    /// The store's SQLite files (the database and its write-ahead log, when there is one), as bytes.
    private func storeBytes(_ home: TempHome) -> Data {
        let base = home.sshelfHome + "/data/store.sqlite"
        return [base, base + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
    }

    func testPasswordSetInTheFormLogsInWithoutAskingAndLivesOnlyInTheVault() throws {
        let world = try SSHCLIWorld()
        let home = world.home
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try home.run("edit", "t", "--auth", "password"), 0)
        let password = TestAccount.password

        let tui = try Tmux(home: home, columns: 160, rows: 34)
        try tui.waitFor(text: "1 host")
        try tui.send("e")
        try tui.waitFor(text: "Edit host t")
        try tui.waitFor(text: "Password     not set")
        for _ in 0..<7 { try tui.send("Tab") }  // name, hostname, port, user, group, tags, auth: the password
        try tui.type(password)
        // Checked on every frame the wait reads, not only the last: a secret is never on screen, even for a moment.
        try tui.waitFor("the password masked") { screen in
            XCTAssertFalse(screen.contains(password), "the password is on screen:\n\(screen)")
            return screen.contains("Password     " + String(repeating: "*", count: password.count))
        }
        try tui.send("Enter")
        try tui.waitFor(text: "password stored in the vault (whenUnlockedThisDeviceOnly)")

        // In the vault, under the class the policy names for an interactive login (device-only by default)...
        let listed = try home.run("vault", "list", "--json")
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let item = try XCTUnwrap(items.first { $0["family"] as? String == "host.password" }, listed.stdout)
        XCTAssertEqual(item["accessibility"] as? String, "whenUnlockedThisDeviceOnly")
        // ...and nowhere in the store's files.
        let bytes = storeBytes(home)
        XCTAssertFalse(bytes.isEmpty)
        XCTAssertNil(bytes.range(of: Data(password.utf8)), "the password is in the store file")
        XCTAssertTrue(try home.run("show", "t").stdout.contains("password       in the vault as host."))

        // Enter logs in with it: no password dialog, the server accepted a password.
        try tui.send("Enter")
        try tui.waitFor("the remote prompt") { screen in
            XCTAssertFalse(screen.contains("'s password:"), "asked for the password:\n\(screen)")
            return self.shellPrompt(screen)
        }
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        XCTAssertTrue(world.sshd.waitForLog("Accepted password"), world.sshd.log)

        // Ctrl-U on the empty field, then save: gone from the vault and the record.
        try tui.send("e")
        try tui.waitFor(text: "Password     set (type to replace it)")
        for _ in 0..<7 { try tui.send("Tab") }
        try tui.send("C-u")
        try tui.waitFor(text: "removed on save")
        try tui.send("Enter")
        try tui.waitFor(text: "password removed from the vault")
        XCTAssertFalse(try home.run("vault", "list").stdout.contains("host.password"))
        XCTAssertTrue(try home.run("show", "t").stdout.contains("(none stored; asked when needed)"))
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// A locked vault asks for its passphrase in a dialog while the form waits; then the password is stored.
    func testALockedVaultAsksForItsPassphraseAndThenKeepsThePassword() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        addTeardown { _ = try? home.run("vault", "lock") }
        XCTAssertExit(try home.run("add", "lab", "--host", "lab.example"), 0)
        let passphrase = "form-\(UUID().uuidString.prefix(6))"
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let tui = try Tmux(home: home, columns: 160, rows: 34)
        // The status line says "vault locked" before the hosts are loaded; `e` before that is "still loading".
        try tui.waitFor("the host loaded, the vault locked") { $0.contains("vault locked") && $0.contains("1 host") }
        try tui.send("e")
        try tui.waitFor(text: "Edit host lab")
        for _ in 0..<7 { try tui.send("Tab") }
        let password = "lab pw \(UUID().uuidString.prefix(8))"
        try tui.type(password)
        try tui.send("Enter")
        try tui.waitFor(text: "To store the password, the vault passphrase:")
        try tui.type(passphrase)
        try tui.send("Enter")
        try tui.waitFor("the password stored") { screen in
            XCTAssertFalse(screen.contains(password) || screen.contains(passphrase), "a secret on screen:\n\(screen)")
            return screen.contains("password stored in the vault (whenUnlockedThisDeviceOnly)")
        }
        let listed = try home.run("vault", "list", "--json")
        XCTAssertTrue(listed.stdout.contains("\"accessibility\" : \"whenUnlockedThisDeviceOnly\""), listed.stdout)
        XCTAssertNil(storeBytes(home).range(of: Data(password.utf8)), "the password is in the store file")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testOptionsTypedInTheFormAreKeptAndAConnectSaysOnceWhatIsNotApplied() throws {
        let world = try SSHCLIWorld()
        let home = world.home
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tui = try Tmux(home: home, columns: 160, rows: 34)
        try tui.waitFor(text: "1 host")
        try tui.send("e")
        try tui.waitFor(text: "Edit host t")
        for _ in 0..<11 { try tui.send("Tab") }  // ... password, identity, jump, aliases: the options
        try tui.waitFor(text: "Enter new line, Tab next field")
        try tui.type("Port 2222")
        try tui.send("Tab", "Enter")
        // import's rule, under the field: the port is a field of its own.
        try tui.waitFor(text: "Port is a host field of its own")
        try tui.send("C-u")
        try tui.type("ServerAliveInterval 30")
        try tui.send("Enter")
        try tui.type("AddKeysToAgent yes")
        try tui.send("Tab", "Enter")
        try tui.waitFor(text: "saved t")
        let shown = try home.run("show", "t").stdout
        XCTAssertTrue(shown.contains("options:\n  ServerAliveInterval 30\n  AddKeysToAgent yes"), shown)
        // The details pane says where each comes from, and which one is not applied.
        try tui.waitFor(text: "AddKeysToAgent yes  this host; not applied")

        // The first connect says so once, in the terminal where the session starts; the next one does not.
        try tui.send("Enter")
        try tui.waitFor("the note and the remote prompt") {
            $0.contains("sshelf: note: t sets AddKeysToAgent") && self.shellPrompt($0)
        }
        try tui.type("clear; exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        try tui.send("Enter")
        try tui.waitFor("the remote prompt again") { screen in
            XCTAssertFalse(screen.contains("sets AddKeysToAgent"), "said again:\n\(screen)")
            return self.shellPrompt(screen)
        }
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "session to t ended (exit 0)")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

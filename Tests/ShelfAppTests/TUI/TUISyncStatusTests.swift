// The status line shows the real sync state, produced for real: a sync folder that is missing gives the
// orange "local fallback" with that exact reason; a real folder gives the green "synced"; the vault's state
// is read from the vault. No test hook involved.
import Foundation
import TestSupport
import XCTest

final class TUISyncStatusTests: XCTestCase {
    /// The text of the status line's last row, up to `marker`, as tmux reports it with escapes.
    func prefix(before marker: String, in screen: String) -> String {
        guard let line = screen.split(separator: "\n").last(where: { $0.contains(marker) }),
            let range = line.range(of: marker)
        else { return "" }
        return String(line[..<range.lowerBound])
    }

    func testRealFallbackReasonInOrangeThenSyncedInGreen() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("add", "web", "--host", "w.example"), 0)
        let folder = home.root + "/nas/sshelf"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertExit(try home.run("sync", "enable", "--folder", folder), 0)
        // Sync keeps this device's keys in the vault, so turning it on set the vault up. Then the share goes away.
        try FileManager.default.removeItem(atPath: home.root + "/nas")

        let missing = "▲ local fallback: sync folder \(folder) not found"
        var tui: Tmux? = try Tmux(home: home, columns: 140, environment: ["TERM": "tmux-256color"])
        // The vault's state is read on its own, so it may reach the line a frame after the sync reason: wait on both.
        let screen = try XCTUnwrap(tui).waitFor("the fallback reason and the vault's state", escapes: true) {
            $0.contains(missing) && $0.contains("vault open, no passphrase")
        }
        XCTAssertTrue(
            prefix(before: missing, in: screen).contains("38;5;208"),
            "orange expected: \(prefix(before: missing, in: screen))")
        try XCTUnwrap(tui).send("q")
        tui = nil

        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let again = try Tmux(home: home, columns: 140, environment: ["TERM": "tmux-256color"])
        // The TUI starts a sync in the background at once; the line turns green when it is done.
        let synced = try again.waitFor("synced, and the vault's state", escapes: true) {
            $0.contains("✓ synced just now") && $0.contains("vault open, no passphrase")
        }
        XCTAssertTrue(
            prefix(before: "✓ synced", in: synced).contains("[32m"),
            "green expected: \(prefix(before: "✓ synced", in: synced))")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder + "/format.json"), "the background run really synced")
        try again.send("q")
    }

    func testTurningSyncOnElsewhereTakesEffectWithoutARestart() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "w.example"), 0)
        let tui = try Tmux(home: home, columns: 140, environment: ["TERM": "tmux-256color"])
        try tui.waitFor(text: "○ sync off")
        let folder = home.root + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertExit(try home.run("sync", "enable", "--folder", folder), 0)
        try tui.waitFor(text: "✓ synced")
        XCTAssertExit(try home.run("sync", "disable"), 0)
        try tui.waitFor(text: "○ sync off")
        try tui.send("q")
    }
}

final class TUICredentialSourceTests: XCTestCase {
    /// A host whose password reference has no item in this device's vault shows "not synced to this device";
    /// with the item present it shows "vault".
    func testDetailsSayWhereThePasswordComesFrom() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("add", "db", "--host", "db.example", "--auth", "password"), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "db", "--secret-fd", "3"], fd3: "CANARY-pw"), 0)
        var tui: Tmux? = try Tmux(home: home, columns: 140)
        try XCTUnwrap(tui).waitFor(text: "password: vault")
        try XCTUnwrap(tui).send("q")
        tui = nil
        let key = try XCTUnwrap(
            try home.run("vault", "list").stdout.split(separator: "\n").dropFirst().first?.split(separator: " ").first)
        XCTAssertExit(try home.run("vault", "rm", String(key)), 0)
        let after = try Tmux(home: home, columns: 140)
        try after.waitFor(text: "password: not synced to this device")
        try after.send("q")
    }
}

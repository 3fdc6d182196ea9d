// VaultSetClassTests: `vault set-class` moves an item to another class — the class read back from the vault file
// itself, the secret unchanged (every item still opens: `vault verify`) — refuses the always classes
// and unknown names without touching anything, and audits the result like any write.
import Foundation
import ShelfSQLite
import TestSupport
import XCTest

final class VaultSetClassTests: XCTestCase {
    func classInFile(_ home: TempHome, _ key: String) throws -> String? {
        let db = try SQLiteDatabase(path: home.sshelfHome + "/data/vault.sqlite", readOnly: true)
        return try db.rows("SELECT class FROM items WHERE key = ?", [.text(key)]).first?.first?.text
    }

    func testSetClassMovesTheItemAndAuditsIt() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("add", "web", "--host", "web.example"), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "pass phrase"), 0)
        let passphrase = try home.write("pass phrase\n", to: "passphrase")
        let password = try home.write("CANARY-set-class\n", to: "password")
        let stored = try CLI.run(
            [
                "-c",
                "exec \"$0\" vault set-password web --passphrase-fd 3 --secret-fd 4 3<'\(passphrase)' 4<'\(password)'",
                CLI.binary,
            ], environment: home.environment, shell: true)
        XCTAssertExit(stored, 0)
        let listed = try home.run("vault", "list", "--json")
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let key = try XCTUnwrap(items.compactMap { $0["key"] as? String }.first { $0.hasSuffix(".password") })
        XCTAssertEqual(try classInFile(home, key), "whenUnlockedThisDeviceOnly")

        for (bad, message) in [
            ("always", "refusing to store"), ("alwaysThisDeviceOnly", "refusing to store"),
            ("sometimes", "is not an accessibility class"),
        ] {
            let refused = try home.run(["vault", "set-class", key, bad, "--passphrase-fd", "3"], fd3: "pass phrase")
            XCTAssertExit(refused, 4)
            XCTAssertTrue(refused.stderr.contains(message), refused.stderr)
            XCTAssertEqual(try classInFile(home, key), "whenUnlockedThisDeviceOnly", "unchanged after \(bad)")
            // No kernel keyring here: the hint names no `vault unlock`, which would open only its own process.
            XCTAssertFalse(refused.stderr.contains("vault unlock"), refused.stderr)
        }
        XCTAssertExit(try home.run(["vault", "set-class", "host.password", "afterFirstUnlock"]), 4)
        XCTAssertExit(
            try home.run([
                "vault", "set-class", key.replacingOccurrences(of: "password", with: "remember"),
                "afterFirstUnlock",
            ]), 3)

        let wrong = try home.run(
            ["vault", "set-class", key, "afterFirstUnlockThisDeviceOnly", "--passphrase-fd", "3"],
            fd3: "not it")
        XCTAssertExit(wrong, 1)
        XCTAssertEqual(try classInFile(home, key), "whenUnlockedThisDeviceOnly")

        // A syncable class while this device does not sync credentials: moved, and the audit says so.
        let moved = try home.run(
            ["vault", "set-class", key, "afterFirstUnlock", "--passphrase-fd", "3"], fd3: "pass phrase")
        XCTAssertExit(moved, 0)
        XCTAssertTrue(
            moved.stdout.contains("moved \(key) from whenUnlockedThisDeviceOnly to afterFirstUnlock"), moved.stdout)
        XCTAssertTrue(moved.stderr.contains("sshelf: warning: syncable-while-sync-off"), moved.stderr)
        XCTAssertEqual(try classInFile(home, key), "afterFirstUnlock")
        let same = try home.run(["vault", "set-class", key, "afterFirstUnlock"])
        XCTAssertExit(same, 0)
        XCTAssertTrue(same.stdout.contains("is already stored afterFirstUnlock"), same.stdout)

        // The secret moved whole: a vault verify with the passphrase opens every item.
        XCTAssertExit(try home.run(["vault", "verify", "--passphrase-fd", "3"], fd3: "pass phrase"), 0)
        XCTAssertExit(
            try home.run(
                ["vault", "set-class", key, "whenUnlockedThisDeviceOnly", "--passphrase-fd", "3"],
                fd3: "pass phrase"), 0)
        XCTAssertEqual(try classInFile(home, key), "whenUnlockedThisDeviceOnly")
        XCTAssertFalse(try home.run("vault", "audit").stdout.contains("syncable-while-sync-off"))
    }
}

// `sshelf vault verify`: every item opens with its class key; a damaged item is named (exit 4) and its value
// is never printed; a locked class is counted as locked, not as damaged.
import Foundation
import ShelfSQLite
import TestSupport
import XCTest

final class VaultVerifyTests: XCTestCase {

    func testIntactLockedAndDamagedItems() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        for name in ["a", "b"] { XCTAssertExit(try home.run("add", name, "--host", "\(name).example"), 0) }
        for name in ["a", "b"] {
            XCTAssertExit(
                try home.run(["vault", "set-password", name, "--secret-fd", "3"], fd3: "CANARY-\(name)-secret"), 0)
        }
        let ok = try home.run("vault", "verify")
        XCTAssertExit(ok, 0)
        XCTAssertEqual(ok.stdout, "2 of 2 items intact\n")

        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "pass phrase"), 0)
        let locked = try home.run("vault", "verify")
        XCTAssertExit(locked, 0)
        XCTAssertEqual(locked.stdout, "0 of 2 items intact, 2 locked (not checked)\n")

        // Flip one byte inside one item's sealed value, straight in the file.
        try SQLiteDatabase(path: home.sshelfHome + "/data/vault.sqlite").execute(
            "UPDATE items SET sealed = CAST(substr(sealed, 1, 30) || X'FF' || substr(sealed, 32) AS BLOB) WHERE rowid "
                + "= (SELECT min(rowid) FROM items)")
        let damaged = try home.run(["vault", "verify", "--passphrase-fd", "3"], fd3: "pass phrase")
        XCTAssertExit(damaged, 4)
        XCTAssertEqual(damaged.stdout, "1 of 2 items intact\n")
        XCTAssertTrue(damaged.stderr.contains("failed its integrity check"), damaged.stderr)
        XCTAssertFalse((damaged.stdout + damaged.stderr).contains("CANARY"))
    }
}

// VaultCLITests: the vault commands through the real binary — passphrase set/change/remove with confirmation,
// export/import (device-only items stay), audit findings and exit codes, rm, and secrets never taken from argv.
import Foundation
import TestSupport
import XCTest

final class VaultCLITests: XCTestCase {
    func makeHome() -> TempHome {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1", "SSHELF_VAULT_NO_KEYRING": "1"]
        return home
    }

    func testPassphraseSetChangeAndRemoveWithConfirmation() throws {
        let home = makeHome()
        XCTAssertExit(try home.run(["vault", "init"]), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "first\n"), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "first\nsecond\n"), 0)
        let wrong = try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: "first\n")
        XCTAssertExit(wrong, 1)
        XCTAssertTrue(wrong.stderr.contains("passphrase is not correct"), wrong.stderr)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: "second\n"), 0)

        XCTAssertExit(try home.run(["add", "web", "--host", "web.example"]), 0)
        XCTAssertExit(
            try home.run(
                ["vault", "set-password", "web", "--passphrase-fd", "0", "--secret-fd", "0"],
                stdin: "second\nweb-password\n"), 0)
        // Removal with nothing of the passcode class to destroy needs no confirmation.
        let removed = try home.run(["vault", "passwd", "--remove", "--passphrase-fd", "0"], stdin: "second\n")
        XCTAssertExit(removed, 0)
        XCTAssertTrue(removed.stdout.contains("0 whenPasscodeSetThisDeviceOnly item(s) destroyed"), removed.stdout)
        let status = try home.run(["vault", "status"])
        XCTAssertTrue(status.stdout.contains("passphrase:  none"), status.stdout)
        XCTAssertTrue(
            try home.run(["vault", "list"]).stdout.contains("whenUnlockedThisDeviceOnly"), "the password survived")
    }

    func testSecretsAreNeverAcceptedOnTheCommandLine() throws {
        let home = makeHome()
        XCTAssertExit(try home.run(["add", "web", "--host", "web.example"]), 0)
        for argv in [
            ["vault", "set-password", "web", "hunter2"], ["vault", "set-password", "web", "--password", "hunter2"],
            ["vault", "unlock", "--passphrase", "hunter2"],
        ] {
            XCTAssertExit(try home.run(argv), 2)
        }
        // No terminal and no descriptor: a usage error naming the descriptor option, never a prompt on stdout.
        let noTTY = try home.run(["vault", "set-password", "web"])
        XCTAssertNotEqual(noTTY.status, 0)
        XCTAssertTrue(noTTY.stderr.contains("--secret-fd"), noTTY.stderr)
        XCTAssertExit(try home.run(["vault", "set-password", "web", "--secret-fd", "abc"]), 4)
        XCTAssertExit(try home.run(["vault", "set-password", "web", "--secret-fd", "-1"]), 4)
    }

    func testExportLeavesDeviceOnlyItemsBehindAndImportRestores() throws {
        let home = makeHome()
        XCTAssertExit(try home.run(["add", "web", "--host", "web.example"]), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "web", "--secret-fd", "0"], stdin: "device-only\n"), 0)
        let exportPath = home.root + "/vault.export"
        let export = try home.run(["vault", "export", exportPath, "--passphrase-fd", "0"], stdin: "exportpass\n")
        XCTAssertExit(export, 0)
        XCTAssertTrue(export.stdout.contains("exported 0 item(s)"), export.stdout)
        let attributes = try FileManager.default.attributesOfItem(atPath: exportPath)
        XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o600)

        let other = makeHome()
        let wrong = try other.run(["vault", "import", exportPath, "--passphrase-fd", "0"], stdin: "nope\n")
        XCTAssertExit(wrong, 1)
        XCTAssertExit(try other.run(["vault", "import", exportPath, "--passphrase-fd", "0"], stdin: "exportpass\n"), 0)
        XCTAssertFalse(try other.run(["vault", "list"]).stdout.contains("host."), "device-only items never travel")
        let garbage = try home.write("not an export", to: "garbage")
        XCTAssertExit(try other.run(["vault", "import", garbage, "--passphrase-fd", "0"], stdin: "x\n"), 4)
    }

    func testAuditReportsNoPassphraseAndWeakerThanUse() throws {
        let home = makeHome()
        XCTAssertExit(try home.run(["add", "tunnel", "--host", "tunnel.example"]), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "tunnel", "--secret-fd", "0"], stdin: "pw\n"), 0)
        // The host gains an autostart forward after its password was stored as whenUnlocked.
        XCTAssertExit(try home.run(["forward", "add", "tunnel", "-L", "9000:localhost:90", "--autostart"]), 0)
        let audit = try home.run(["vault", "audit", "--json"])
        XCTAssertExit(audit, 4)
        let findings = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]])
        let rules = Set(findings.compactMap { $0["rule"] as? String })
        XCTAssertEqual(rules, ["no-passphrase", "weaker-than-use"])
        // Storing it again follows the policy for autostarting hosts, and the finding goes away.
        XCTAssertExit(try home.run(["vault", "set-password", "tunnel", "--secret-fd", "0"], stdin: "pw\n"), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "pass\n"), 0)
        home.extraEnvironment["SSHELF_TEST_WEAK_KDF"] = nil
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "pass\npass2\n"), 0)
        let clean = try home.run(["vault", "audit"])
        XCTAssertExit(clean, 0)
        XCTAssertTrue(clean.stdout.contains("no problems found"), clean.stdout)
    }

    func testAuditNamesAnIdleTimeoutThatMakesEverySshAskForThePassphrase() throws {
        let home = makeHome()
        XCTAssertExit(try home.run(["keygen", "deploy"]), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "pass\n"), 0)
        home.extraEnvironment["SSHELF_TEST_WEAK_KDF"] = nil
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "pass\npass2\n"), 0)
        XCTAssertExit(try home.run(["vault", "audit"]), 0)
        home.extraEnvironment["SSHELF_VAULT_IDLE_SECONDS"] = "30"
        let short = try home.run(["vault", "audit"])
        XCTAssertExit(short, 4)
        XCTAssertTrue(
            short.stdout.contains(
                "the vault session locks after 30 s without use (SSHELF_VAULT_IDLE_SECONDS), so nearly every ssh "
                    + "through the ssh_config bridge asks for the vault passphrase for these keys: identity."),
            short.stdout)
        XCTAssertTrue(short.stdout.contains("afterFirstUnlockThisDeviceOnly"), short.stdout)
    }

    func testRemoveOneItem() throws {
        let home = makeHome()
        XCTAssertExit(try home.run(["add", "web", "--host", "web.example"]), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "web", "--secret-fd", "0"], stdin: "pw\n"), 0)
        let listed = try home.run(["vault", "list", "--json"])
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let key = try XCTUnwrap(items.first?["key"] as? String)
        XCTAssertExit(try home.run(["vault", "rm", key]), 0)
        XCTAssertExit(try home.run(["vault", "rm", key]), 3)
        XCTAssertExit(try home.run(["vault", "rm", "not-a-key"]), 4)
    }

    func testSyncableItemsAreFlaggedOnlyWhileCredentialSyncIsOff() throws {
        let source = makeHome()
        XCTAssertExit(try source.run(["vault", "init"]), 0)
        // A syncable item arrives through an export from a device that synced credentials.
        let other = makeHome()
        for home in [source, other] {
            try FileManager.default.createDirectory(atPath: home.root + "/remote", withIntermediateDirectories: true)
        }
        XCTAssertExit(try other.run(["add", "web", "--host", "web.example"]), 0)
        XCTAssertExit(
            try other.run([
                "sync", "enable", "--folder", other.root + "/remote", "--credentials", "--yes",
                "--accept-no-passphrase",
            ]), 0)
        XCTAssertExit(try other.run(["vault", "set-password", "web", "--secret-fd", "0"], stdin: "pw\n"), 0)
        XCTAssertExit(try other.run(["sync", "now"]), 0)
        let exportPath = other.root + "/syncable.export"
        let exported = try other.run(["vault", "export", exportPath, "--passphrase-fd", "0"], stdin: "exp\n")
        XCTAssertExit(exported, 0)
        XCTAssertTrue(exported.stdout.contains("exported 1 item(s)"), "\(exported)")
        XCTAssertExit(try source.run(["vault", "import", exportPath, "--passphrase-fd", "0"], stdin: "exp\n"), 0)

        let off = try source.run(["vault", "audit"])
        XCTAssertExit(off, 4)
        XCTAssertTrue(off.stdout.contains("syncable-while-sync-off"), off.stdout)
        XCTAssertExit(
            try source.run([
                "sync", "enable", "--folder", source.root + "/remote", "--credentials", "--yes",
                "--accept-no-passphrase",
            ]), 0)
        let on = try source.run(["vault", "audit"])
        XCTAssertFalse(on.stdout.contains("syncable-while-sync-off"), on.stdout)
    }
}

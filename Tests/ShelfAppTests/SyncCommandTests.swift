// Sync commands through the real binary: enable, status (text and JSON, with the fallback reason), now,
// devices, disable.
import Foundation
import TestSupport
import XCTest

final class SyncCommandTests: XCTestCase {
    func testTwoDevicesThroughTheCLI() throws {
        let remote = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-cli-remote-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let a = TempHome(), b = TempHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example", "--group", "prod"), 0)
        XCTAssertExit(try b.run("sync", "status"), 0)
        XCTAssertEqual(try b.run("sync", "status").stdout, "○ sync off\n")
        let enabled = try a.run("sync", "enable", "--folder", remote)
        XCTAssertExit(enabled, 0)
        XCTAssertTrue(enabled.stdout.contains("synced: 0 changes received, 2 sent"), enabled.stdout)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        XCTAssertTrue(try b.run("list").stdout.contains("w.example"))
        XCTAssertTrue(try b.run("group", "list").stdout.contains("prod/"))
        XCTAssertExit(try b.run("edit", "web", "--port", "2222"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertTrue(try a.run("show", "web").stdout.contains("w.example:2222"))
        XCTAssertExit(try a.run("edit", "web", "--tag", "later"), 0)
        XCTAssertTrue(try a.run("sync", "status").stdout.contains("1 local change not sent yet"))
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertFalse(try a.run("sync", "status").stdout.contains("not sent yet"))
        let devices = try a.run("sync", "devices")
        XCTAssertEqual(devices.stdout.split(separator: "\n").count, 3, devices.stdout)

        // The remote goes away: sync falls back with the real reason, and status says so.
        try FileManager.default.removeItem(atPath: remote)
        let failed = try a.run("sync", "now")
        XCTAssertExit(failed, 1)
        XCTAssertTrue(failed.stderr.contains("local fallback: sync folder \(remote) not found"), failed.stderr)
        let status = try a.run("sync", "status", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["state"] as? String, "localFallback")
        XCTAssertEqual((object["lastRun"] as? [String: Any])?["reason"] as? String, "sync folder \(remote) not found")
        XCTAssertTrue(try a.run("sync", "status").stdout.contains("▲ local fallback: sync folder"))
        XCTAssertTrue(try a.run("list").stdout.contains("web"), "browsing carries on")

        XCTAssertExit(try a.run("sync", "disable"), 0)
        XCTAssertEqual(try a.run("sync", "status").stdout, "○ sync off\n")
        XCTAssertExit(try a.run("sync", "enable"), 2)
    }
}

final class SyncJoinCommandTests: XCTestCase {
    /// Runs sshelf with `text` readable on file descriptor 3.

    func testJoinCodeFromADescriptorAndAWrongCodeWritesNothing() throws {
        let remote = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-join-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let a = TempHome(), b = TempHome()
        for home in [a, b] { home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"] }
        XCTAssertExit(try a.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "db", "--secret-fd", "3"], fd3: "CANARY-join-secret"), 0)
        let enabled = try a.run("sync", "enable", "--folder", remote, "--credentials")
        XCTAssertExit(enabled, 0)
        let code = try XCTUnwrap(enabled.stdout.split(separator: "\n").first { $0.hasPrefix("    ") }).trimmingCharacters(in: .whitespaces)
        XCTAssertFalse(enabled.stdout.contains("CANARY"))

        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        var wrong = Array(code)
        wrong[0] = wrong[0] == "B" ? "C" : "B"
        let refused = try b.run(["sync", "join", "--code-fd", "3"], fd3: String(wrong))
        XCTAssertExit(refused, 4)
        XCTAssertTrue(refused.stderr.contains("checksum"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: b.sshelfHome + "/data/vault.sqlite"), "nothing written")

        let joined = try b.run(["sync", "join", "--code-fd", "3"], fd3: code)
        XCTAssertExit(joined, 0)
        XCTAssertTrue(joined.stdout.contains("credentials: 1 received"), joined.stdout)
        let list = try b.run("vault", "list")
        XCTAssertTrue(list.stdout.contains("host.password"), list.stdout)
        XCTAssertTrue(list.stdout.contains("whenUnlocked "), list.stdout)
        // The code never appears as an argument: `sync join` has no option that takes it.
        XCTAssertExit(try b.run("sync", "join", code), 2)
    }
}

final class SyncPassphraseCommandTests: XCTestCase {

    /// With a vault passphrase, `--passphrase-fd` unlocks for the whole run: the sync key is stored and the
    /// whenUnlocked password is read and sealed, with the passphrase entered once.
    func testCredentialSyncWithAPassphraseProtectedVault() throws {
        let remote = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-pp-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let a = TempHome()
        a.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        XCTAssertExit(try a.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(try a.run("vault", "init"), 0)
        XCTAssertExit(try a.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "vault pass phrase"), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "db", "--secret-fd", "3", "--passphrase-fd", "3"],
                              fd3: "vault pass phrase\nCANARY-db-password"), 0)
        let locked = try a.run("sync", "enable", "--folder", remote, "--credentials")
        XCTAssertNotEqual(locked.status, 0, "without the passphrase and no terminal the sync key cannot be stored")
        let enabled = try a.run(["sync", "enable", "--folder", remote, "--credentials", "--passphrase-fd", "3"], fd3: "vault pass phrase")
        XCTAssertExit(enabled, 0)
        XCTAssertTrue(enabled.stdout.contains("credentials: 0 received, 1 in the upload, 1 moved to syncable classes"), enabled.stdout)
        let paused = try a.run("sync", "now")
        XCTAssertExit(paused, 1)
        XCTAssertTrue(paused.stderr.contains("vault locked (credential track paused while config keeps syncing)"), paused.stderr)
    }
}

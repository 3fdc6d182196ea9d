// KeyringTests: afterFirstUnlock across processes — `sshelf vault unlock` in one process, a read in another —
// and the forced fallback, where nothing outlives the process and `vault status` says so.
import Foundation
import ShelfCore
import ShelfVault
import XCTest

final class KeyringTests: XCTestCase {
    func testAfterFirstUnlockIsReadableInASecondProcessAfterUnlock() throws {
        let fixture = VaultFixture()
        let sessionKey = ReferenceKey.syncKey, interactive = ReferenceKey.hostPassword(UUID())
        let vault = try fixture.open(keyring: false)
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.write(secret("for-tunnels"), for: sessionKey, class: .afterFirstUnlockThisDeviceOnly)
        try vault.write(secret("for-people"), for: interactive, class: .whenUnlockedThisDeviceOnly)
        XCTAssertTrue(try fixture.open(keyring: true).read(sessionKey, class: .afterFirstUnlockThisDeviceOnly).isLocked,
                      "before unlock")

        let unlocked = try fixture.cli(["vault", "unlock", "--passphrase-fd", "0"], stdin: "pass\n", keyring: true)
        XCTAssertEqual(unlocked.status, 0, "\(unlocked)")
        defer { _ = try? fixture.cli(["vault", "lock"], keyring: true) }
        // This test process is the second process: it never saw the passphrase.
        let second = try fixture.open(keyring: true)
        XCTAssertEqual(text(second.read(sessionKey, class: .afterFirstUnlockThisDeviceOnly)), "for-tunnels")
        XCTAssertTrue(second.read(interactive, class: .whenUnlockedThisDeviceOnly).isLocked,
                      "whenUnlocked stays with the process that was given the passphrase")
        let status = try fixture.cli(["vault", "status", "--json"], keyring: true)
        XCTAssertTrue(status.stdout.contains("\"keyring\" : \"kernel\""), status.stdout)

        XCTAssertEqual(try fixture.cli(["vault", "lock"], keyring: true).status, 0)
        XCTAssertTrue(try fixture.open(keyring: true).read(sessionKey, class: .afterFirstUnlockThisDeviceOnly).isLocked,
                      "after lock")
    }

    func testForcedFallbackKeepsKeysInTheProcessOnlyAndSaysSo() throws {
        let fixture = VaultFixture()
        let sessionKey = ReferenceKey.syncKey
        let vault = try fixture.open(keyring: false)
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.write(secret("for-tunnels"), for: sessionKey, class: .afterFirstUnlockThisDeviceOnly)
        let unlocked = try fixture.cli(["vault", "unlock", "--passphrase-fd", "0"], stdin: "pass\n")
        XCTAssertEqual(unlocked.status, 0, "\(unlocked)")
        XCTAssertTrue(unlocked.stdout.contains("this command's unlock ends with it"), unlocked.stdout)
        // Read with the keyring on: had the forced fallback leaked a key into the kernel, this would find it.
        XCTAssertTrue(try fixture.open(keyring: true).read(sessionKey, class: .afterFirstUnlockThisDeviceOnly).isLocked,
                      "nothing reached the kernel keyring")
        let status = try fixture.cli(["vault", "status"])
        XCTAssertTrue(status.stdout.contains("switched off (SSHELF_VAULT_NO_KEYRING=1)"), status.stdout)
        XCTAssertTrue(status.stdout.contains("no key is ever written to a file"), status.stdout)
        // In the process that was given the passphrase, the fallback works.
        let inProcess = try fixture.open(keyring: false)
        try inProcess.unlock(passphrase: secret("pass"))
        XCTAssertEqual(text(inProcess.read(sessionKey, class: .afterFirstUnlockThisDeviceOnly)), "for-tunnels")
        // No file appeared that could hold a class key.
        let files = FileManager.default.subpaths(atPath: fixture.home.sshelfHome) ?? []
        XCTAssertEqual(Set(files.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }),
                       ["data", "state", "data/vault.sqlite", "state/device.key"])
    }
}

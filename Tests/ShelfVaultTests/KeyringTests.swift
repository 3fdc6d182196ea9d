// KeyringTests: the session across processes — `sshelf vault unlock` in one process, a read in another —
// and the forced fallback, where nothing outlives the process and `vault status` says so.
import Foundation
import ShelfCore
@testable import ShelfVault
import TestSupport
import XCTest

final class KeyringTests: XCTestCase {
    func testAfterFirstUnlockIsReadableInASecondProcessAfterUnlock() throws {
        let fixture = VaultFixture()
        let sessionKey = ReferenceKey.syncKey, interactive = ReferenceKey.hostPassword(UUID())
        let vault = try fixture.open(keyring: false)
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.write(secret("for-tunnels"), for: sessionKey, class: .afterFirstUnlockThisDeviceOnly)
        try vault.write(secret("for-people"), for: interactive, class: .whenUnlockedThisDeviceOnly)
        XCTAssertTrue(
            try fixture.open(keyring: true).read(sessionKey, class: .afterFirstUnlockThisDeviceOnly).isLocked,
            "before unlock")

        let unlocked = try fixture.cli(["vault", "unlock", "--passphrase-fd", "0"], stdin: "pass\n", keyring: true)
        XCTAssertEqual(unlocked.status, 0, "\(unlocked)")
        defer { _ = try? fixture.cli(["vault", "lock"], keyring: true) }
        // This test process is the second process: it never saw the passphrase.
        let second = try fixture.open(keyring: true)
        XCTAssertEqual(text(second.read(sessionKey, class: .afterFirstUnlockThisDeviceOnly)), "for-tunnels")
        XCTAssertEqual(
            text(second.read(interactive, class: .whenUnlockedThisDeviceOnly)), "for-people",
            "whenUnlocked too: the unlock is the login session's")
        let status = try fixture.cli(["vault", "status", "--json"], keyring: true)
        XCTAssertTrue(status.stdout.contains("\"keyring\" : \"kernel\""), status.stdout)
        let human = try fixture.cli(["vault", "status"], keyring: true)
        XCTAssertTrue(
            human.stdout.contains(
                "session:     unlocked for all your sshelf processes, 15 min left (idle timeout 15 min)"),
            human.stdout)

        XCTAssertEqual(try fixture.cli(["vault", "lock"], keyring: true).status, 0)
        let third = try fixture.open(keyring: true)
        XCTAssertTrue(third.read(sessionKey, class: .afterFirstUnlockThisDeviceOnly).isLocked, "after lock")
        XCTAssertTrue(third.read(interactive, class: .whenUnlockedThisDeviceOnly).isLocked, "after lock")
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
        XCTAssertTrue(
            try fixture.open(keyring: true).read(sessionKey, class: .afterFirstUnlockThisDeviceOnly).isLocked,
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
        XCTAssertEqual(
            Set(files.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }),
            ["data", "state", "data/vault.sqlite", "state/device.key"])
    }

    /// The idle timeout across processes, on the injected clock (SSHELF_TEST_NOW stamps "now" for each process):
    /// unlocked at T, still open at T+899 s (and that use refreshes it), locked for everyone 900 s after the last use.
    func testTheIdleTimeoutHoldsAcrossProcessesOnAnInjectedClock() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.hostPassword(UUID())
        let vault = try fixture.open(keyring: false)
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.write(secret("for-people"), for: key, class: .whenUnlockedThisDeviceOnly)
        let start = 1_900_000_000
        func at(_ seconds: Int, _ arguments: [String], stdin: String? = nil) throws -> CLIResult {
            try fixture.cli(arguments, stdin: stdin, keyring: true, extra: ["SSHELF_TEST_NOW": String(start + seconds)])
        }
        XCTAssertEqual(try at(0, ["vault", "unlock", "--passphrase-fd", "0"], stdin: "pass\n").status, 0)
        defer { _ = try? fixture.cli(["vault", "lock"], keyring: true) }
        XCTAssertTrue(
            try at(899, ["vault", "status"]).stdout.contains("unlocked for all your sshelf processes, 1 s left"))
        XCTAssertEqual(try at(899, ["vault", "list"]).status, 0)
        let read = try at(899, ["vault", "set-class", key.rawValue, "whenUnlocked"])
        XCTAssertEqual(read.status, 0, "a use at T+899 s reads the item: \(read)")
        XCTAssertTrue(
            try at(1798, ["vault", "status"]).stdout.contains("unlocked for all your sshelf processes, 1 s left"),
            "the use refreshed the timeout")
        let idle = try at(1799, ["vault", "status"])
        XCTAssertTrue(idle.stdout.contains("session:     idle"), idle.stdout)
        let refused = try at(1799, ["vault", "set-class", key.rawValue, "whenUnlockedThisDeviceOnly"])
        XCTAssertNotEqual(refused.status, 0, "idle: locked for every process")
        XCTAssertTrue(refused.stderr.contains("vault passphrase") || refused.stderr.contains("locked"), refused.stderr)
    }
}

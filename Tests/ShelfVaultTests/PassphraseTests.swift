// PassphraseTests: wrong passphrase (one generic error, no change), change (class keys only), removal
// (destroys whenPasscodeSet items and nothing else), and the idle relock.
import Foundation
import ShelfCore
@testable import ShelfVault
import XCTest

final class PassphraseTests: XCTestCase {
    func testWrongPassphraseChangesNothingAndTheRightOneStillWorks() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.hostPassword(UUID())
        let vault = try fixture.open()
        try vault.setPassphrase(secret("right"), current: nil)
        try vault.write(secret("value"), for: key, class: .whenUnlockedThisDeviceOnly)
        let before =
            fixture.rows("SELECT class, layers, hex(wrapped) FROM class_keys ORDER BY class")
            + fixture.rows("SELECT key, hex(sealed) FROM items")
            + fixture.rows("SELECT ops_limit, hex(salt) FROM passphrase")
        let fresh = try fixture.open()
        var messages: Set<String> = []
        for wrong in ["wrong", "", "right ", "RIGHT"] {
            XCTAssertThrowsError(try fresh.unlock(passphrase: secret(wrong))) { error in
                XCTAssertEqual((error as? VaultError)?.kind, .wrongPassphrase)
                messages.insert((error as? VaultError)?.message ?? "")
            }
        }
        XCTAssertThrowsError(try fresh.setPassphrase(secret("new"), current: secret("wrong")))
        XCTAssertThrowsError(try fresh.removePassphrase(current: secret("wrong")))
        XCTAssertEqual(messages.count, 1, "one generic message")
        XCTAssertTrue(fresh.read(key, class: .whenUnlockedThisDeviceOnly).isLocked)
        let after =
            fixture.rows("SELECT class, layers, hex(wrapped) FROM class_keys ORDER BY class")
            + fixture.rows("SELECT key, hex(sealed) FROM items")
            + fixture.rows("SELECT ops_limit, hex(salt) FROM passphrase")
        XCTAssertEqual(before, after, "no state change")
        try fresh.unlock(passphrase: secret("right"))
        XCTAssertEqual(text(fresh.read(key, class: .whenUnlockedThisDeviceOnly)), "value")
    }

    func testWhenUnlockedNeedsThePassphraseInThisProcess() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.hostPassword(UUID())
        try fixture.open().setPassphrase(secret("pass"), current: nil)
        let writer = try fixture.open()
        XCTAssertThrowsError(try writer.write(secret("v"), for: key, class: .whenUnlockedThisDeviceOnly)) {
            XCTAssertEqual(($0 as? VaultError)?.kind, .locked)
        }
        try writer.unlock(passphrase: secret("pass"))
        try writer.write(secret("v"), for: key, class: .whenUnlockedThisDeviceOnly)
        XCTAssertTrue(
            try fixture.open().read(key, class: .whenUnlockedThisDeviceOnly).isLocked, "a new process is locked")
    }

    func testChangingThePassphraseRewrapsClassKeysOnly() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.hostPassword(UUID())
        let vault = try fixture.open()
        try vault.setPassphrase(secret("old"), current: nil)
        try vault.write(secret("value"), for: key, class: .whenUnlockedThisDeviceOnly)
        let items = fixture.rows("SELECT key, class, hex(sealed) FROM items")
        let wrapped = fixture.rows("SELECT hex(wrapped) FROM class_keys ORDER BY class")
        try vault.setPassphrase(secret("new"), current: secret("old"))
        XCTAssertEqual(fixture.rows("SELECT key, class, hex(sealed) FROM items"), items, "items untouched")
        XCTAssertNotEqual(fixture.rows("SELECT hex(wrapped) FROM class_keys ORDER BY class"), wrapped)
        XCTAssertThrowsError(try fixture.open().unlock(passphrase: secret("old")))
        let fresh = try fixture.open()
        try fresh.unlock(passphrase: secret("new"))
        XCTAssertEqual(text(fresh.read(key, class: .whenUnlockedThisDeviceOnly)), "value")
    }

    func testRemovingThePassphraseDestroysPasscodeItemsAndNothingElse() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        try vault.setPassphrase(secret("pass"), current: nil)
        let keep = ReferenceKey.hostPassword(UUID()), keepToo = ReferenceKey.syncKey
        let doomed = ReferenceKey.identityPrivateKey(UUID())
        try vault.write(secret("keep"), for: keep, class: .whenUnlockedThisDeviceOnly)
        try vault.write(secret("keep2"), for: keepToo, class: .afterFirstUnlockThisDeviceOnly)
        try vault.write(secret("doomed"), for: doomed, class: .whenPasscodeSetThisDeviceOnly)
        XCTAssertEqual(try vault.removePassphrase(current: secret("pass")), 1)
        XCTAssertEqual(Set(fixture.rows("SELECT key FROM items").map { $0[0] }), [keep.rawValue, keepToo.rawValue])
        XCTAssertEqual(
            fixture.rows("SELECT count(*) FROM class_keys WHERE class = 'whenPasscodeSetThisDeviceOnly'").first?.first,
            "0")
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM passphrase").first?.first, "0")
        let fresh = try fixture.open(keyring: false)
        XCTAssertEqual(
            text(fresh.read(keep, class: .whenUnlockedThisDeviceOnly)), "keep", "device key alone opens it now")
        XCTAssertEqual(text(fresh.read(keepToo, class: .afterFirstUnlockThisDeviceOnly)), "keep2")
        XCTAssertFalse(fresh.hasPassphrase)
    }

    func testCLIRemovalAsksBeforeDestroyingPasscodeItems() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.write(secret("doomed"), for: .syncKey, class: .whenPasscodeSetThisDeviceOnly)
        let refused = try fixture.cli(["vault", "passwd", "--remove", "--passphrase-fd", "0"], stdin: "pass\n")
        XCTAssertEqual(refused.status, 2, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("destroys 1 whenPasscodeSetThisDeviceOnly item"), refused.stderr)
        XCTAssertEqual(
            fixture.rows("SELECT count(*) FROM items").first?.first, "1", "nothing destroyed without consent")
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM passphrase").first?.first, "1")
        let removed = try fixture.cli(
            ["vault", "passwd", "--remove", "--yes", "--passphrase-fd", "0"], stdin: "pass\n")
        XCTAssertEqual(removed.status, 0, "\(removed)")
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "0")
    }

    func testIdleTimeoutRelocksWhenUnlockedClasses() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.hostPassword(UUID())
        try fixture.open().setPassphrase(secret("pass"), current: nil)
        var options = fixture.options(keyring: false)
        options.idleTimeout = .zero
        let vault = try Vault.open(fixture.locations, options: options, createIfMissing: false)
        try vault.unlock(passphrase: secret("pass"))
        XCTAssertThrowsError(
            try vault.write(secret("v"), for: key, class: .whenUnlockedThisDeviceOnly),
            "with no idle allowance the key is gone at the next use"
        ) {
            XCTAssertEqual(($0 as? VaultError)?.kind, .locked)
        }
        var patient = fixture.options(keyring: false)
        patient.idleTimeout = .seconds(3600)
        let kept = try Vault.open(fixture.locations, options: patient, createIfMissing: false)
        try kept.unlock(passphrase: secret("pass"))
        try kept.write(secret("v"), for: key, class: .whenUnlockedThisDeviceOnly)
        kept.lock()
        XCTAssertTrue(kept.read(key, class: .whenUnlockedThisDeviceOnly).isLocked, "lock() forgets at once")
    }
}

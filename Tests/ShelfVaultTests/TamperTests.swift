// TamperTests: every change to the vault file fails closed — a flipped byte, swapped blobs, a relabelled class,
// swapped class keys — and the failure reveals nothing of the value.
import Foundation
import ShelfCore
@testable import ShelfVault
import XCTest

final class TamperTests: XCTestCase {
    let c = AccessibilityClass.whenUnlockedThisDeviceOnly

    func testFlippingAnyByteOfAStoredItemFailsClosed() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let key = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("flip-me-canary"), for: key, class: c)
        let original = fixture.blob("SELECT sealed FROM items WHERE key = '\(key.rawValue)'")
        XCTAssertEqual(original.count, 24 + 14 + 16)
        for index in original.indices {
            var damaged = original
            damaged[index] ^= 0x01
            fixture.tamper("UPDATE items SET sealed = ? WHERE key = '\(key.rawValue)'", blob: damaged)
            let lookup = vault.read(key, class: c)
            XCTAssertTrue(lookup.isUnavailable, "byte \(index)")
            if case .vaultUnavailable(let reason) = lookup { XCTAssertFalse(reason.contains("flip-me")) }
        }
        fixture.tamper("UPDATE items SET sealed = ? WHERE key = '\(key.rawValue)'", blob: original)
        XCTAssertEqual(text(vault.read(key, class: c)), "flip-me-canary", "the untouched blob still opens")
        fixture.tamper("UPDATE items SET sealed = ? WHERE key = '\(key.rawValue)'", blob: Array(original.prefix(30)))
        XCTAssertTrue(vault.read(key, class: c).isUnavailable, "truncated")
    }

    func testSwappingTwoItemsBlobsFailsClosed() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let a = ReferenceKey.hostPassword(UUID()), b = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("value-a"), for: a, class: c)
        try vault.write(secret("value-b"), for: b, class: c)
        let blobA = fixture.blob("SELECT sealed FROM items WHERE key = '\(a.rawValue)'")
        let blobB = fixture.blob("SELECT sealed FROM items WHERE key = '\(b.rawValue)'")
        fixture.tamper("UPDATE items SET sealed = ? WHERE key = '\(a.rawValue)'", blob: blobB)
        fixture.tamper("UPDATE items SET sealed = ? WHERE key = '\(b.rawValue)'", blob: blobA)
        XCTAssertTrue(vault.read(a, class: c).isUnavailable)
        XCTAssertTrue(vault.read(b, class: c).isUnavailable)
    }

    func testRelabellingAnItemsClassFailsClosed() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let key = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("relabel"), for: key, class: .whenUnlockedThisDeviceOnly)
        fixture.tamper("UPDATE items SET class = 'afterFirstUnlockThisDeviceOnly' WHERE key = '\(key.rawValue)'")
        XCTAssertTrue(vault.read(key, class: .afterFirstUnlockThisDeviceOnly).isUnavailable)
        // Relabelled as `always`, which has no class key: still nothing.
        fixture.tamper("UPDATE items SET class = 'always' WHERE key = '\(key.rawValue)'")
        XCTAssertTrue(vault.read(key, class: .always).isUnavailable)
    }

    func testSwappingWrappedClassKeysFailsClosed() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let key = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("swap-keys"), for: key, class: .whenUnlockedThisDeviceOnly)
        let one = fixture.blob("SELECT wrapped FROM class_keys WHERE class = 'whenUnlockedThisDeviceOnly'")
        let two = fixture.blob("SELECT wrapped FROM class_keys WHERE class = 'afterFirstUnlockThisDeviceOnly'")
        fixture.tamper("UPDATE class_keys SET wrapped = ? WHERE class = 'whenUnlockedThisDeviceOnly'", blob: two)
        fixture.tamper("UPDATE class_keys SET wrapped = ? WHERE class = 'afterFirstUnlockThisDeviceOnly'", blob: one)
        XCTAssertTrue(vault.read(key, class: .whenUnlockedThisDeviceOnly).isUnavailable)
        XCTAssertThrowsError(try vault.write(secret("x"), for: key, class: .afterFirstUnlockThisDeviceOnly))
    }

    func testSwappedPassphraseWrappedClassKeysFailClosed() throws {
        let fixture = VaultFixture()
        try fixture.open().setPassphrase(secret("pass"), current: nil)
        let one = fixture.blob("SELECT wrapped FROM class_keys WHERE class = 'whenUnlockedThisDeviceOnly'")
        let two = fixture.blob("SELECT wrapped FROM class_keys WHERE class = 'whenUnlocked'")
        fixture.tamper("UPDATE class_keys SET wrapped = ? WHERE class = 'whenUnlockedThisDeviceOnly'", blob: two)
        fixture.tamper("UPDATE class_keys SET wrapped = ? WHERE class = 'whenUnlocked'", blob: one)
        XCTAssertThrowsError(try fixture.open().unlock(passphrase: secret("pass"))) {
            XCTAssertEqual(
                ($0 as? VaultError)?.kind, .unavailable, "tampering is reported as damage, not as a wrong passphrase")
        }
    }

    func testWeakenedStretchParametersFailClosed() throws {
        let fixture = VaultFixture()
        try fixture.open().setPassphrase(secret("pass"), current: nil)
        fixture.tamper("UPDATE passphrase SET ops_limit = ops_limit + 1")
        XCTAssertThrowsError(try fixture.open().unlock(passphrase: secret("pass")), "the parameters are authenticated")
    }

    func testAnotherDeviceKeyOpensNothing() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.syncKey
        try fixture.open().write(secret("device-bound"), for: key, class: .afterFirstUnlockThisDeviceOnly)
        let other = VaultFixture()
        _ = try other.open()
        // The vault file without its own device key: copy the vault next to a different device key.
        try FileManager.default.removeItem(atPath: other.locations.vault)
        try FileManager.default.copyItem(atPath: fixture.locations.vault, toPath: other.locations.vault)
        let lookup = try other.open().read(key, class: .afterFirstUnlockThisDeviceOnly)
        XCTAssertTrue(lookup.isUnavailable)
    }
}

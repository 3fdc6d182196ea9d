// EnvelopeTests: the gated "remember this password" value and the load/save/clear triples — round trip,
// clear, overwrite, the self-healing branches, and failure isolation (a broken vault loads as empty).
import Foundation
import ShelfCore
@testable import ShelfVault
import XCTest

final class EnvelopeTests: XCTestCase {
    let accessibility = AccessibilityClass.whenUnlockedThisDeviceOnly

    func testRememberRoundTripOverwriteAndClear() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let host = UUID()
        XCTAssertEqual(vault.loadRememberedPassword(host, class: accessibility).enabled, false)
        try vault.saveRememberedPassword(secret("one"), enabled: true, hostID: host, class: accessibility)
        var loaded = vault.loadRememberedPassword(host, class: accessibility)
        XCTAssertTrue(loaded.enabled)
        XCTAssertEqual(loaded.credentials.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }, "one")
        try vault.saveRememberedPassword(secret("two"), enabled: true, hostID: host, class: accessibility)
        loaded = vault.loadRememberedPassword(host, class: accessibility)
        XCTAssertEqual(loaded.credentials.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }, "two")
        try vault.clearRememberedPassword(host, class: accessibility)
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "0")
        XCTAssertFalse(vault.loadRememberedPassword(host, class: accessibility).enabled)
    }

    func testGateOnWithMissingValueHealsAtOnce() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let host = UUID()
        try vault.saveRememberedPassword(secret("pw"), enabled: true, hostID: host, class: accessibility)
        try vault.clearHostPassword(host, class: accessibility)
        let loaded = vault.loadRememberedPassword(host, class: accessibility)
        XCTAssertFalse(loaded.enabled)
        XCTAssertNil(loaded.credentials)
        XCTAssertNil(loaded.problem)
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "0", "the gate left behind is cleared")
    }

    func testGateOnWithEmptyValueHealsAtOnce() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let host = UUID()
        try vault.saveRememberedPassword(secret("pw"), enabled: true, hostID: host, class: accessibility)
        try vault.saveHostPassword(SecretBytes(count: 0), hostID: host, class: accessibility)
        let loaded = vault.loadRememberedPassword(host, class: accessibility)
        XCTAssertFalse(loaded.enabled)
        XCTAssertNil(loaded.credentials)
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "0", "gate and empty value are cleared")
    }

    func testGateOffClearsNothing() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let host = UUID()
        try vault.saveRememberedPassword(nil, enabled: false, hostID: host, class: accessibility)
        // A password stored on its own (e.g. by `vault set-password`) is not the gate's to delete on load.
        try vault.saveHostPassword(secret("kept"), hostID: host, class: accessibility)
        let loaded = vault.loadRememberedPassword(host, class: accessibility)
        XCTAssertFalse(loaded.enabled)
        XCTAssertNil(loaded.credentials)
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "2", "gate off deletes nothing on load")
        XCTAssertEqual(text(vault.loadHostPassword(host, class: accessibility)), "kept")
    }

    func testLoadFromABrokenVaultReturnsEmptyAndWarns() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let host = UUID()
        try vault.saveRememberedPassword(secret("pw"), enabled: true, hostID: host, class: accessibility)
        fixture.tamper("UPDATE class_keys SET wrapped = zeroblob(72) WHERE class = '\(accessibility.rawValue)'")
        let loaded = vault.loadRememberedPassword(host, class: accessibility)  // does not throw: no `try`
        XCTAssertFalse(loaded.enabled)
        XCTAssertNil(loaded.credentials)
        guard case .vaultUnavailable = loaded.problem else {
            return XCTFail("expected vaultUnavailable, got \(String(describing: loaded.problem))")
        }
        XCTAssertFalse(fixture.warnings.all.isEmpty, "a broken vault is logged")
        XCTAssertEqual(
            fixture.rows("SELECT count(*) FROM items").first?.first, "2", "damage is not 'healed' by deleting")
        // The vault file itself gone bad: every load still answers.
        fixture.tamper("DROP TABLE items")
        XCTAssertTrue(vault.loadHostPassword(host, class: accessibility).isUnavailable)
        XCTAssertFalse(vault.loadRememberedPassword(host, class: accessibility).enabled)
    }

    func testLockedVaultLoadsAsLockedNotAsMissing() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let host = UUID()
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.saveRememberedPassword(secret("pw"), enabled: true, hostID: host, class: accessibility)
        let fresh = try fixture.open()
        XCTAssertEqual(fresh.loadRememberedPassword(host, class: accessibility).problem, .locked)
        XCTAssertTrue(fresh.loadHostPassword(host, class: accessibility).isLocked)
        XCTAssertEqual(
            fixture.rows("SELECT count(*) FROM items").first?.first, "2", "locked is not 'missing': nothing healed")
    }

    func testTriplesForEveryFamily() throws {
        let vault = try VaultFixture().open()
        let id = UUID()
        let c = AccessibilityClass.afterFirstUnlockThisDeviceOnly
        try vault.saveIdentityPrivateKey(secret("k"), identityID: id, class: c)
        try vault.saveIdentityPassphrase(secret("p"), identityID: id, class: c)
        try vault.saveSyncKey(secret("s"), class: c)
        XCTAssertEqual(text(vault.loadIdentityPrivateKey(id, class: c)), "k")
        XCTAssertEqual(text(vault.loadIdentityPassphrase(id, class: c)), "p")
        XCTAssertEqual(text(vault.loadSyncKey(class: c)), "s")
        XCTAssertTrue(try vault.clearIdentityPrivateKey(id, class: c))
        XCTAssertTrue(try vault.clearIdentityPassphrase(id, class: c))
        XCTAssertTrue(try vault.clearSyncKey(class: c))
        XCTAssertTrue(vault.loadSyncKey(class: c).isNotStored)
    }
}

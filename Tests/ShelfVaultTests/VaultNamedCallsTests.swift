// VaultNamedCallsTests: the calls that replaced raw reads outside the vault say what they are for and keep to it —
// `verify` and sync's digest and comparison hand no value out and write no release line; `sealForSync` hands out
// only a syncable item, never a device-only one or one of sync's own keys; `release` is still the one that logs.
import Foundation
import ShelfCore
import ShelfVault
import TestSupport
import XCTest

final class VaultNamedCallsTests: XCTestCase {
    func lines(_ fixture: VaultFixture) throws -> Int {
        let log = ReleaseLog(locations: fixture.locations)
        guard FileManager.default.fileExists(atPath: log.path) else { return 0 }
        return try log.entries().entries.count
    }

    func testVerifyOpensEachItemAndLogsNothing() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let good = ReferenceKey.hostPassword(UUID()), bad = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("intact-value"), for: good, class: .whenUnlockedThisDeviceOnly)
        try vault.write(secret("damaged-value"), for: bad, class: .whenUnlockedThisDeviceOnly)
        var sealed = fixture.blob("SELECT sealed FROM items WHERE key = '\(bad.rawValue)'")
        sealed[sealed.count - 1] ^= 0x01
        fixture.tamper("UPDATE items SET sealed = ? WHERE key = '\(bad.rawValue)'", blob: sealed)

        XCTAssertEqual(vault.verify(good, class: .whenUnlockedThisDeviceOnly), .intact)
        guard case .damaged(let reason) = vault.verify(bad, class: .whenUnlockedThisDeviceOnly) else {
            return XCTFail("a flipped byte passed verify")
        }
        XCTAssertFalse(reason.contains("damaged-value"), "the reason holds no value")
        XCTAssertEqual(
            vault.verify(good, class: .afterFirstUnlockThisDeviceOnly), .changed, "its class is the contract")
        XCTAssertEqual(try lines(fixture), 0, "verify releases nothing, so it logs nothing")
    }

    func testSyncReadsHandOutOnlySyncableValuesAndLogNothing() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let synced = ReferenceKey.hostPassword(UUID()), kept = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("travels"), for: synced, class: .whenUnlocked)
        try vault.write(secret("stays-here"), for: kept, class: .whenUnlockedThisDeviceOnly)
        try vault.saveSyncKey(secret("sync-own-key"), class: .afterFirstUnlockThisDeviceOnly)
        let digestKey = secret("digest-key-digest-key-digest-key")

        XCTAssertEqual(text(vault.sealForSync(synced, class: .whenUnlocked)), "travels")
        XCTAssertTrue(vault.sealForSync(kept, class: .whenUnlockedThisDeviceOnly).isUnavailable, "device-only")
        XCTAssertTrue(vault.sealForSync(.syncKey, class: .afterFirstUnlockThisDeviceOnly).isUnavailable, "sync's key")

        let expected = TextFormat.hex(bytes: SyncCrypto.keyedDigest(secret("travels"), key: digestKey))
        XCTAssertEqual(vault.syncDigest(synced, class: .whenUnlocked, keyedWith: digestKey), .digest(expected))
        XCTAssertEqual(vault.syncDigest(synced, class: .afterFirstUnlock, keyedWith: digestKey), .unreadable)
        XCTAssertTrue(vault.holds(synced, class: .whenUnlocked, value: secret("travels")))
        XCTAssertFalse(vault.holds(synced, class: .whenUnlocked, value: secret("other")))
        XCTAssertEqual(try lines(fixture), 0, "the credential track's reads write no release line")

        // The release, by contrast, is logged: one line naming the item.
        let purpose = ReleasePurpose(by: "connect", host: "web1", hostKey: "SHA256:abc")
        guard case .released = vault.release(synced, class: .whenUnlocked, for: purpose) else {
            return XCTFail("not released")
        }
        XCTAssertEqual(try ReleaseLog(locations: fixture.locations).entries().entries.map(\.item), [synced.rawValue])
    }

    func testLockedClassesAnswerLockedWithoutAValue() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let key = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("v"), for: key, class: .whenUnlocked)
        try vault.setPassphrase(secret("correct horse"), current: nil)
        let fresh = try fixture.open()
        XCTAssertEqual(fresh.verify(key, class: .whenUnlocked), .locked)
        XCTAssertEqual(fresh.syncDigest(key, class: .whenUnlocked, keyedWith: secret("k")), .locked)
        XCTAssertTrue(fresh.sealForSync(key, class: .whenUnlocked).isLocked)
    }
}

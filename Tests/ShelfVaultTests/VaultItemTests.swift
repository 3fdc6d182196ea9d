// VaultItemTests: round trip, overwrite, delete, the class named at every call, and the refused classes.
import Foundation
import ShelfCore
@testable import ShelfVault
import XCTest

final class VaultItemTests: XCTestCase {
    func testRoundTripOverwriteAndDelete() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let key = ReferenceKey.hostPassword(UUID())
        XCTAssertTrue(vault.read(key, class: .whenUnlockedThisDeviceOnly).isNotStored)
        try vault.write(secret("first"), for: key, class: .whenUnlockedThisDeviceOnly)
        XCTAssertEqual(text(vault.read(key, class: .whenUnlockedThisDeviceOnly)), "first")
        try vault.write(secret("second"), for: key, class: .whenUnlockedThisDeviceOnly)
        XCTAssertEqual(text(try fixture.open().read(key, class: .whenUnlockedThisDeviceOnly)), "second")
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "1")
        XCTAssertFalse(
            try vault.delete(key, class: .afterFirstUnlockThisDeviceOnly), "a delete names the class it deletes from")
        XCTAssertTrue(try vault.delete(key, class: .whenUnlockedThisDeviceOnly))
        XCTAssertTrue(vault.read(key, class: .whenUnlockedThisDeviceOnly).isNotStored)
    }

    func testReadInAnotherClassIsNotAnswered() throws {
        let vault = try VaultFixture().open()
        let key = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("pw"), for: key, class: .whenUnlockedThisDeviceOnly)
        guard case .storedInOtherClass(let stored) = vault.read(key, class: .afterFirstUnlockThisDeviceOnly) else {
            return XCTFail("a read must not return a value stored under another class")
        }
        XCTAssertEqual(stored, .whenUnlockedThisDeviceOnly)
    }

    func testAlwaysClassesAreRefusedWithAReason() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        for accessibility in [AccessibilityClass.always, .alwaysThisDeviceOnly] {
            XCTAssertThrowsError(try vault.write(secret("x"), for: .syncKey, class: accessibility)) { error in
                let error = error as? VaultError
                XCTAssertEqual(error?.kind, .refusedClass)
                XCTAssertTrue(error?.message.contains("no passphrase") == true, error?.message ?? "")
            }
        }
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM items").first?.first, "0")
        XCTAssertEqual(fixture.rows("SELECT count(*) FROM class_keys WHERE class LIKE 'always%'").first?.first, "0")
    }

    func testPasscodeClassNeedsAPassphrase() throws {
        let vault = try VaultFixture().open()
        XCTAssertThrowsError(try vault.write(secret("x"), for: .syncKey, class: .whenPasscodeSetThisDeviceOnly)) {
            XCTAssertEqual(($0 as? VaultError)?.kind, .refusedClass)
        }
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.write(secret("x"), for: .syncKey, class: .whenPasscodeSetThisDeviceOnly)
        XCTAssertEqual(text(vault.read(.syncKey, class: .whenPasscodeSetThisDeviceOnly)), "x")
    }

    func testListShowsKeysClassesAndFamiliesNeverValues() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        let id = UUID()
        try vault.write(secret("canary-list-value"), for: .identityPrivateKey(id), class: .whenUnlockedThisDeviceOnly)
        let items = try vault.items()
        XCTAssertEqual(items.map(\.key), [ReferenceKey.identityPrivateKey(id).rawValue])
        XCTAssertEqual(items.first?.family, "identity.privkey")
        XCTAssertEqual(items.first?.accessibility, "whenUnlockedThisDeviceOnly")
        let listed = try fixture.cli(["vault", "list", "--json"])
        XCTAssertFalse(listed.stdout.contains("canary-list-value"))
        XCTAssertTrue(listed.stdout.contains(ReferenceKey.identityPrivateKey(id).rawValue), "\(listed)")
    }
}

// AuditTests: each audit rule fires on the vault state it describes, and a vault that follows the policy
// with a passphrase is clean.
import Foundation
import ShelfCore
@testable import ShelfVault
import XCTest

final class AuditTests: XCTestCase {
    func rules(_ vault: Vault, needs: [ReferenceKey: ReadMoment] = [:], sync: Bool = false) throws -> [String] {
        try vault.audit(needs: needs, credentialSyncEnabled: sync).map(\.rule).sorted()
    }

    func testEachRuleFires() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open(keyring: false)
        XCTAssertEqual(try rules(vault), ["no-passphrase"])
        let host = UUID()
        try vault.write(secret("pw"), for: .hostPassword(host), class: .whenUnlockedThisDeviceOnly)
        XCTAssertEqual(
            try rules(vault, needs: [.hostPassword(host): .unattended]), ["no-passphrase", "weaker-than-use"])
        XCTAssertEqual(try rules(vault, needs: [.hostPassword(host): .interactive]), ["no-passphrase"])
        try vault.write(secret("s"), for: .syncKey, class: .afterFirstUnlock)
        XCTAssertEqual(try rules(vault), ["no-passphrase", "syncable-while-sync-off"])
        XCTAssertEqual(try rules(vault, sync: true), ["no-passphrase"])
        try vault.setPassphrase(secret("pass"), current: nil)
        XCTAssertEqual(try rules(vault, sync: true), ["weak-passphrase-stretch"], "tests stretch at the minimum")
        // An `always` item, as an old or foreign vault might hold: planted in the file directly.
        fixture.tamper(
            "INSERT INTO items(key, family, class, format, sealed, updated_at) VALUES "
                + "('identity.\(UUID().uuidString.lowercased()).privkey', 'identity.privkey', 'always', 1, x'00', 0)")
        fixture.tamper(
            "INSERT INTO items(key, family, class, format, sealed, updated_at) VALUES "
                + "('identity.\(UUID().uuidString.lowercased()).passphrase', 'identity.passphrase', "
                + "'whenPasscodeSetThisDeviceOnly', 1, x'00', 0)")
        fixture.tamper("DELETE FROM passphrase")
        let found = try rules(vault, sync: true)
        XCTAssertTrue(found.contains("always-class"), "\(found)")
        XCTAssertTrue(found.contains("passcode-class-without-passphrase"), "\(found)")
    }

    func testLooseFilesAreFoundWithoutOpeningTheVault() throws {
        let fixture = VaultFixture()
        _ = try fixture.open()
        XCTAssertEqual(VaultAudit.filePermissions(fixture.locations), [])
        chmod(fixture.locations.stateDirectory, 0o755)
        XCTAssertEqual(VaultAudit.filePermissions(fixture.locations).map(\.subject), [fixture.locations.stateDirectory])
    }

    func testVaultLookupWithoutAVaultIsNotStored() {
        let fixture = VaultFixture()
        let lookup = Vault.lookup(
            .hostPassword(UUID()), class: .whenUnlockedThisDeviceOnly, in: fixture.locations,
            options: fixture.options())
        XCTAssertTrue(lookup.isNotStored, "no vault on this device means 'not yet synced here', not an error")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.locations.vault), "a lookup creates nothing")
    }

    func testNulTerminatedCopyForCAPIs() {
        secret("abc").withNulTerminated { pointer, length in
            XCTAssertEqual(length, 3)
            XCTAssertEqual(String(cString: pointer), "abc")
        }
    }
}

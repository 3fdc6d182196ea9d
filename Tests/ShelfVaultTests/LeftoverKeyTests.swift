// LeftoverKeyTests: a test home that unlocked its vault locks it when it goes (TempHome's deinit), so a test run
// leaves no class keys of deleted vaults in the kernel user keyring (they would stay there 10–12 h). A copy of
// the vault — the same vault id, so the same keyring entries — shows what the keyring holds before and after.
import Foundation
import ShelfCore
@testable import ShelfVault
import TestSupport
import XCTest

final class LeftoverKeyTests: XCTestCase {
    func testAHomeThatUnlockedItsVaultLeavesNoKeyInTheKeyring() throws {
        let copy = TempHome()
        var fixture: VaultFixture? = VaultFixture()
        let vault = try XCTUnwrap(fixture).open(keyring: false)
        try vault.setPassphrase(secret("pass"), current: nil)
        try vault.write(secret("for-tunnels"), for: .syncKey, class: .afterFirstUnlockThisDeviceOnly)
        let unlocked = try XCTUnwrap(fixture).cli(
            ["vault", "unlock", "--passphrase-fd", "0"], stdin: "pass\n", keyring: true)
        XCTAssertEqual(unlocked.status, 0, "\(unlocked)")
        let home = try XCTUnwrap(fixture).home.sshelfHome
        try FileManager.default.copyItem(atPath: home, toPath: copy.sshelfHome)
        let copied = DataLocations.resolve(environment: ["SSHELF_HOME": copy.sshelfHome])
        let options = VaultOptions(useKernelKeyring: true, minimumStretch: true, warn: { _ in })
        func readCopy() throws -> CredentialLookup {
            try Vault.open(copied, options: options, createIfMissing: false)
                .read(.syncKey, class: .afterFirstUnlockThisDeviceOnly)
        }
        XCTAssertEqual(text(try readCopy()), "for-tunnels", "the unlock is in the kernel keyring")

        fixture = nil
        XCTAssertFalse(FileManager.default.fileExists(atPath: home), "the test home is gone")
        XCTAssertTrue(try readCopy().isLocked, "its keys went with it")
    }
}

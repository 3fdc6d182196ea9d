// OpenVaultCanaryTests: while a vault is open (its WAL and shared-memory files present and not yet
// checkpointed), and after a value is deleted, no file under SSHELF_HOME holds the secret in any form.
import Foundation
import ShelfCore
import ShelfVault
import XCTest

final class OpenVaultCanaryTests: XCTestCase {
    func needles(_ secret: String) -> [String: Data] {
        let bytes = Data(secret.utf8)
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        return [
            "raw": bytes, "hex": Data(hex.utf8), "HEX": Data(hex.uppercased().utf8),
            "base64": Data(bytes.base64EncodedString().dropLast(4).utf8),
        ]
    }

    func findings(_ root: String, _ secret: String) -> [String] {
        var found: [String] = []
        for path in FileManager.default.subpaths(atPath: root) ?? [] {
            guard let data = FileManager.default.contents(atPath: root + "/" + path) else { continue }
            for (form, needle) in needles(secret) where data.range(of: needle) != nil {
                found.append("\(form) in \(path)")
            }
        }
        return found
    }

    func testNothingInTheWALOrAfterDelete() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open(keyring: false)
        try vault.setPassphrase(secret("CANARY-open-passphrase-5521"), current: nil)
        let key = ReferenceKey.hostPassword(UUID())
        let canary = "CANARY-open-vault-secret-0e4d17"
        try vault.write(secret(canary), for: key, class: .whenUnlockedThisDeviceOnly)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: fixture.locations.vault + "-wal"), "the WAL is part of the scan")
        XCTAssertEqual(findings(fixture.home.sshelfHome, canary), [])
        XCTAssertEqual(findings(fixture.home.sshelfHome, "CANARY-open-passphrase-5521"), [])
        XCTAssertTrue(try vault.delete(key, class: .whenUnlockedThisDeviceOnly))
        XCTAssertEqual(findings(fixture.home.sshelfHome, canary), [])
        // The scan can see what is there: the reference key is stored in clear, so it must be found.
        try vault.write(secret("x"), for: key, class: .whenUnlockedThisDeviceOnly)
        XCTAssertFalse(findings(fixture.home.sshelfHome, key.rawValue).isEmpty)
    }
}

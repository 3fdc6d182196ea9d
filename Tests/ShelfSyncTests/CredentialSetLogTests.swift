// CredentialSetLogTests: the credential set a sync run seals for the remote leaves the vault through the release log
// like every other secret (docs/VAULT.md, "The release log"): one line when a set goes out, naming its keys and no
// byte of a value, none for a run that sends the same set again, and a log that cannot be written withholds the set
// (the config track goes on, and the set goes with the first run that can log it).
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
@testable import ShelfVault
import TestSupport
import XCTest

final class CredentialSetLogTests: XCTestCase {
    let password = "CANARY-SetLog-Pa55-41c7", newPassword = "CANARY-SetLog-N3w-9d02"

    func secret(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    func setLines(_ device: Device) throws -> [ReleaseEntry] {
        guard FileManager.default.fileExists(atPath: device.locations.releaseLog) else { return [] }
        return try ReleaseLog(locations: device.locations).entries().entries.filter { $0.what == "credential set" }
    }

    func testASealedSetIsLoggedOnceNamingItsKeysAndNoValue() throws {
        let remote = try makeFolder()
        let a = try Device("a")
        try a.enable(folder: remote)
        let host = try a.add("db")
        let identity = UUID()
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlocked)
        try a.vault.saveIdentityPrivateKey(secret("CANARY-SetLog-Key-77aa"), identityID: identity, class: .whenUnlocked)
        try SyncSettings.setCredentials(true, a.store)

        XCTAssertEqual(a.sync().credentialsSent, 2)
        var lines = try setLines(a)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        let line = try XCTUnwrap(lines.first)
        XCTAssertEqual(line.by, "sync")
        XCTAssertEqual(line.item, "sync.credentials")
        let keys = [ReferenceKey.hostPassword(host.id).rawValue, ReferenceKey.identityPrivateKey(identity).rawValue]
        XCTAssertEqual(line.detail, "2 items: " + keys.sorted().joined(separator: ", "))

        // The same set again: no line (a run rebuilds it every time; only a set that goes out is logged).
        XCTAssertEqual(a.sync().credentialsSent, 0)
        XCTAssertEqual(try setLines(a).count, 1)

        // A changed value goes out with a line of its own.
        try a.vault.saveHostPassword(secret(newPassword), hostID: host.id, class: .whenUnlocked)
        XCTAssertEqual(a.sync().credentialsSent, 2)
        lines = try setLines(a)
        XCTAssertEqual(lines.count, 2)

        // No byte of a value in the log, raw, in hex or in base64.
        let state = a.locations.stateDirectory
        for name in try FileManager.default.contentsOfDirectory(atPath: state) where name.hasPrefix("release.log") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: state + "/" + name))
            for canary in [password, newPassword, "CANARY-SetLog-Key-77aa"] {
                for form in [
                    Data(canary.utf8), Data(Data(canary.utf8).base64EncodedString().utf8),
                    Data(canary.utf8.map { String(format: "%02x", $0) }.joined().utf8),
                ] {
                    XCTAssertNil(bytes.range(of: form), "\(name) holds \(canary)")
                }
            }
        }
    }

    func testAnUnwritableLogWithholdsTheSet() throws {
        let remote = try makeFolder()
        let a = try Device("a")
        try a.enable(folder: remote)
        let host = try a.add("db")
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlocked)
        try SyncSettings.setCredentials(true, a.store)
        // release.log a directory: no line can be appended (as on a full disk).
        try FileManager.default.createDirectory(
            atPath: a.locations.releaseLog, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])

        let withheld = a.sync()
        XCTAssertEqual(withheld.credentialsSent, 0, "\(withheld)")
        XCTAssertTrue(
            withheld.warnings.contains { $0.hasPrefix("credentials not sent: their line could not be written") },
            "\(withheld.warnings)")
        // The remote holds no credential set: a device that joins now receives nothing.
        let b = try Device("b")
        try b.enable(folder: remote)
        let code = try a.invite()
        a.sync()
        XCTAssertTrue(try b.join(code).credentials)
        XCTAssertEqual(a.sync().credentialsSent, 0, "still withheld")
        XCTAssertEqual(b.sync().credentialsReceived, 0)
        XCTAssertNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret)

        // The log back: the next run logs the set and sends it.
        try FileManager.default.removeItem(atPath: a.locations.releaseLog)
        XCTAssertEqual(a.sync().credentialsSent, 1)
        XCTAssertEqual(try setLines(a).count, 1)
        XCTAssertEqual(b.sync().credentialsReceived, 1)
        XCTAssertTrue(
            try XCTUnwrap(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret).isEqual(to: secret(password)))
    }
}

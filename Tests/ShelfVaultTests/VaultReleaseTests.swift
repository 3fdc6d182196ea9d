// VaultReleaseTests: the vault's one release call — a secret comes back only with its line in the release log
// (what, item, by, host and the verified host key); a log that cannot be written withholds it; an item that is not
// read (locked) leaves no line; a value made from a secret (a signature) is withheld the same way.
import Foundation
import ShelfCore
import ShelfVault
import TestSupport
import XCTest

final class VaultReleaseTests: XCTestCase {
    var fixtures: [VaultFixture] = []
    let purpose = ReleasePurpose(by: "connect", host: "web1", hostKey: "SHA256:abc")

    func stored() throws -> (VaultFixture, Vault, ReferenceKey) {
        let fixture = VaultFixture()
        fixtures.append(fixture)
        let vault = try fixture.open()
        let reference = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("hunter2"), for: reference, class: .whenUnlockedThisDeviceOnly)
        return (fixture, vault, reference)
    }

    /// The log's own file made unwritable for real: a folder in its place.
    func breakLog(_ fixture: VaultFixture) throws {
        let log = ReleaseLog(locations: fixture.locations)
        try? FileManager.default.removeItem(atPath: log.path)
        try FileManager.default.createDirectory(atPath: log.path, withIntermediateDirectories: true)
    }

    func testAReleaseWritesItsLineAndReturnsTheSecret() throws {
        let (fixture, vault, reference) = try stored()
        guard case .released(let value) = vault.release(reference, class: .whenUnlockedThisDeviceOnly, for: purpose)
        else { return XCTFail("not released") }
        XCTAssertEqual(text(.found(value)), "hunter2")
        let entries = try ReleaseLog(locations: fixture.locations).entries().entries
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries.first?.what, "password")
        XCTAssertEqual(entries.first?.item, reference.rawValue)
        XCTAssertEqual(entries.first?.by, "connect")
        XCTAssertEqual(entries.first?.host, "web1")
        XCTAssertEqual(entries.first?.detail, "host key SHA256:abc")
        let log = try String(contentsOfFile: ReleaseLog(locations: fixture.locations).path, encoding: .utf8)
        XCTAssertFalse(log.contains("hunter2"), "the log holds no secret")
        XCTAssertTrue(try ReleaseLog(locations: fixture.locations).verify(vault: vault).intact)
    }

    /// Fails closed: a release that cannot be logged does not happen.
    func testAReleaseThatCannotBeLoggedReturnsNoSecret() throws {
        let (fixture, vault, reference) = try stored()
        try breakLog(fixture)
        guard case .notLogged(let error) = vault.release(reference, class: .whenUnlockedThisDeviceOnly, for: purpose)
        else { return XCTFail("a secret left the vault without its line") }
        XCTAssertFalse(error.message.isEmpty)
        let signature = ReleaseEntry(what: "signature", item: "x", by: "agent")
        XCTAssertThrowsError(try vault.release([1, 2, 3] as [UInt8], logging: signature), "a signature goes nowhere")
    }

    func testAnItemNotReadLeavesNoLine() throws {
        let (fixture, vault, reference) = try stored()
        guard
            case .unread(.storedInOtherClass) = vault.release(
                reference, class: .afterFirstUnlockThisDeviceOnly, for: purpose)
        else { return XCTFail("read under a class it is not stored in") }
        guard
            case .unread(.notStored) = vault.release(
                .hostPassword(UUID()), class: .whenUnlockedThisDeviceOnly, for: purpose)
        else { return XCTFail("released a secret that is not stored") }
        XCTAssertEqual(try ReleaseLog(locations: fixture.locations).entries().entries.count, 0)
    }

    func testAValueMadeFromASecretComesBackWithItsLine() throws {
        let (fixture, vault, _) = try stored()
        let entry = ReleaseEntry(what: "signature", item: "identity.x.privkey", by: "agent", process: "ssh[1]")
        XCTAssertEqual(try vault.release([1, 2, 3] as [UInt8], logging: entry), [1, 2, 3])
        XCTAssertEqual(try ReleaseLog(locations: fixture.locations).entries().entries.map(\.what), ["signature"])
    }
}

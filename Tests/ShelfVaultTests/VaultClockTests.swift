// VaultClockTests: the vault reads time only through its clock — items are stamped with the clock's time (whole
// seconds), the idle relock measures the clock's instants, and SSHELF_TEST_NOW sets the binary's item time — so
// tests about "later" and "idle" move a clock instead of waiting.
import Foundation
import ShelfCore
@testable import ShelfVault
import TestSupport
import XCTest

final class VaultClockTests: XCTestCase {
    func testItemsAreStampedWithTheClocksTime() throws {
        let fixture = VaultFixture()
        let clock = ManualVaultClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        var options = fixture.options()
        options.clock = clock.clock
        let vault = try Vault.open(fixture.locations, options: options, createIfMissing: true)
        let key = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("first"), for: key, class: .whenUnlockedThisDeviceOnly)
        XCTAssertEqual(try vault.items().first?.updatedAt, Date(timeIntervalSince1970: 1_800_000_000))
        clock.advance(by: .seconds(1))
        XCTAssertEqual(vault.now, Date(timeIntervalSince1970: 1_800_000_001))
        try vault.write(secret("second"), for: key, class: .whenUnlockedThisDeviceOnly)
        XCTAssertEqual(fixture.rows("SELECT updated_at FROM items").map { $0[0] }, ["1800000001"])
    }

    /// A vault with a passphrase, opened with a 600 s idle timeout on a clock the test moves, unlocked.
    private func unlockedVault(_ clock: ManualVaultClock) throws -> (VaultFixture, Vault) {
        let fixture = VaultFixture()
        try fixture.open().setPassphrase(secret("pass"), current: nil)
        var options = fixture.options()
        options.idleTimeout = .seconds(600)
        options.clock = clock.clock
        let vault = try Vault.open(fixture.locations, options: options, createIfMissing: false)
        try vault.unlock(passphrase: secret("pass"))
        return (fixture, vault)
    }

    func testIdleRelockFollowsTheClock() throws {
        let clock = ManualVaultClock()
        let (_, vault) = try unlockedVault(clock)
        let key = ReferenceKey.hostPassword(UUID())
        clock.advance(by: .seconds(599))
        try vault.write(secret("v"), for: key, class: .whenUnlockedThisDeviceOnly)
        clock.advance(by: .seconds(599))
        XCTAssertEqual(
            text(vault.read(key, class: .whenUnlockedThisDeviceOnly)), "v", "each use starts the idle time anew")
        clock.advance(by: .seconds(600))
        XCTAssertTrue(vault.read(key, class: .whenUnlockedThisDeviceOnly).isLocked, "600 idle seconds relock the class")
    }

    /// The TUI reads the vault's status every second for its status line: looking is not using, or the idle
    /// timeout would never come.
    func testAStatusReadDoesNotKeepTheVaultUnlocked() throws {
        let clock = ManualVaultClock()
        let (_, vault) = try unlockedVault(clock)
        for _ in 0..<5 {
            clock.advance(by: .seconds(150))
            XCTAssertNotNil(try vault.status())
        }
        let wanted = AccessibilityClass.whenUnlockedThisDeviceOnly.rawValue
        let state = try vault.status().classes.first { $0.accessibility == wanted }
        XCTAssertEqual(state?.state, "locked", "750 s with only status reads: relocked at 600")
    }

    func testTheBinaryStampsItemsWithTestNow() throws {
        let fixture = VaultFixture()
        XCTAssertEqual(try fixture.cli(["add", "web", "--host", "web.example"]).status, 0)
        let stored = try fixture.cli(
            ["vault", "set-password", "web", "--secret-fd", "0"], stdin: "pw\n",
            extra: [VaultClock.testNowVariable: "1234567890"])
        XCTAssertEqual(stored.status, 0, "\(stored)")
        XCTAssertEqual(fixture.rows("SELECT updated_at FROM items").map { $0[0] }, ["1234567890"])
    }
}

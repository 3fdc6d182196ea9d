// VaultSessionTests: "unlocked" belongs to the login session — an unlock in one Vault object (a process) opens
// whenUnlocked items for another, use refreshes the idle timeout, the idle timeout locks both (on an injected clock),
// and a lock anywhere locks everywhere. The kernel keyring is the real one; each test's vault id keeps it apart.
import Foundation
import ShelfCore
@testable import ShelfVault
import TestSupport
import XCTest

final class VaultSessionTests: XCTestCase {
    private func options(_ fixture: VaultFixture, _ clock: ManualVaultClock, idle: Int = 600) -> VaultOptions {
        var options = fixture.options(keyring: true)
        options.clock = clock.clock
        options.idleTimeout = .seconds(idle)
        return options
    }

    private func lockedVault(_ fixture: VaultFixture, _ clock: ManualVaultClock) throws -> (Vault, ReferenceKey) {
        let key = ReferenceKey.hostPassword(UUID())
        let setup = try Vault.open(fixture.locations, options: options(fixture, clock), createIfMissing: true)
        try setup.setPassphrase(secret("pass"), current: nil)
        try setup.write(secret("for-people"), for: key, class: .whenUnlockedThisDeviceOnly)
        setup.lock()
        return (setup, key)
    }

    func testAnUnlockInOneProcessOpensWhenUnlockedItemsForAnother() throws {
        let fixture = VaultFixture(), clock = ManualVaultClock()
        let (setup, key) = try lockedVault(fixture, clock)
        defer { setup.lock() }
        let first = try Vault.open(fixture.locations, options: options(fixture, clock), createIfMissing: false)
        let second = try Vault.open(fixture.locations, options: options(fixture, clock), createIfMissing: false)
        XCTAssertTrue(second.read(key, class: .whenUnlockedThisDeviceOnly).isLocked, "before any unlock")
        XCTAssertEqual(second.session().state, .locked)

        try first.unlock(passphrase: secret("pass"))
        XCTAssertEqual(text(second.read(key, class: .whenUnlockedThisDeviceOnly)), "for-people", "the other process")
        try second.write(secret("remembered"), for: .hostPassword(UUID()), class: .whenUnlockedThisDeviceOnly)
        let state = second.session()
        XCTAssertEqual(state.state, .unlocked)
        XCTAssertTrue(state.shared)
        XCTAssertEqual(state.secondsLeft, 600)
        XCTAssertEqual(try second.status().session.state, .unlocked)

        second.lock()
        XCTAssertTrue(first.read(key, class: .whenUnlockedThisDeviceOnly).isLocked, "a lock anywhere locks everywhere")
        XCTAssertEqual(first.session().state, .locked)
    }

    func testTheIdleTimeoutLocksEveryProcessAndUseRefreshesIt() throws {
        let fixture = VaultFixture(), clock = ManualVaultClock()
        let (setup, key) = try lockedVault(fixture, clock)
        defer { setup.lock() }
        let tui = try Vault.open(fixture.locations, options: options(fixture, clock, idle: 600), createIfMissing: false)
        let cli = try Vault.open(fixture.locations, options: options(fixture, clock, idle: 60), createIfMissing: false)
        try tui.unlock(passphrase: secret("pass"))

        clock.advance(by: .seconds(500))
        XCTAssertEqual(cli.session().secondsLeft, 100, "the session's idle timeout is the unlocking process's")
        XCTAssertEqual(cli.session().secondsLeft, 100, "looking is not using")
        XCTAssertEqual(text(cli.read(key, class: .whenUnlockedThisDeviceOnly)), "for-people")
        XCTAssertEqual(tui.session().secondsLeft, 600, "a read anywhere refreshes it for all")

        clock.advance(by: .seconds(599))
        XCTAssertEqual(tui.session().state, .unlocked)
        clock.advance(by: .seconds(1))
        XCTAssertTrue(cli.read(key, class: .whenUnlockedThisDeviceOnly).isLocked, "idle: locked")
        XCTAssertTrue(tui.read(key, class: .whenUnlockedThisDeviceOnly).isLocked, "for every process")
        XCTAssertEqual(tui.session().state, .afterFirstUnlockOnly, "afterFirstUnlock items outlast the idle timeout")
        XCTAssertEqual(try tui.status().session.summary, "afterFirstUnlock items only (idle)")
    }

    /// The keys themselves, asked of the kernel as any process asks (a search of the user keyring by name, then a
    /// read of that serial) — not /proc/keys, a listing of every process's keys that says nothing about whether a
    /// given key can still be found or read. The keys found right after the unlock are read again by serial after
    /// the idle lock: gone for everyone (invalidated), not only unlinked from the keyring.
    func testTheIdleLockWipesTheKeysFromTheKernelKeyring() throws {
        let fixture = VaultFixture(), clock = ManualVaultClock()
        let (setup, _) = try lockedVault(fixture, clock)
        defer { setup.lock() }
        let vault = try Vault.open(
            fixture.locations, options: options(fixture, clock, idle: 30), createIfMissing: false)
        XCTAssertEqual(reachable(vault), [:], "locked: nothing of this vault in the keyring")
        try vault.unlock(passphrase: secret("pass"))
        let unlocked = reachable(vault)
        let every: Set = [
            "afterFirstUnlock", "afterFirstUnlockThisDeviceOnly", "session",
            "whenPasscodeSetThisDeviceOnly", "whenUnlocked", "whenUnlockedThisDeviceOnly",
        ]
        XCTAssertEqual(
            Set(unlocked.keys), every, "the unlock put every class key and the session record in the keyring")
        let keyring = KernelKeyring(enabled: true)
        for (name, serial) in unlocked where name != "session" {
            XCTAssertEqual(keyring.payload(serial: serial, maximum: 64)?.count, 32, "\(name): a 32-byte key, readable")
        }

        clock.advance(by: .seconds(31))
        vault.relockIfIdle()  // a clock tick, as the TUI's
        XCTAssertEqual(
            Set(reachable(vault).keys), ["afterFirstUnlock", "afterFirstUnlockThisDeviceOnly"],
            "the idle lock took the whenUnlocked keys and the record out of the keyring")
        let whileActive = ["session", "whenPasscodeSetThisDeviceOnly", "whenUnlocked", "whenUnlockedThisDeviceOnly"]
        for name in whileActive {
            let serial = try XCTUnwrap(unlocked[name])
            XCTAssertNil(keyring.payload(serial: serial, maximum: 64), "\(name): no process can read it any more")
        }

        vault.lock()
        XCTAssertEqual(reachable(vault), [:], "a lock takes every class key")
        for (name, serial) in unlocked {
            XCTAssertNil(keyring.payload(serial: serial, maximum: 64), "\(name): unreadable after the lock")
        }
    }

    /// This vault's keys that a search of the user keyring finds now ("session" and the class names), by serial.
    private func reachable(_ vault: Vault) -> [String: Int] {
        let keyring = KernelKeyring(enabled: true)
        var found: [String: Int] = [:]
        for accessibility in AccessibilityClass.allCases {
            found[accessibility.rawValue] = keyring.serial(of: vault.keyringDescription(accessibility))
        }
        found["session"] = keyring.serial(of: vault.sessionDescription)
        return found
    }

    func testWithoutAPassphraseEveryClassOpensAndTheSessionSaysSo() throws {
        let fixture = VaultFixture(), clock = ManualVaultClock()
        let vault = try Vault.open(fixture.locations, options: options(fixture, clock), createIfMissing: true)
        XCTAssertEqual(vault.session().state, .noPassphrase)
        for accessibility in AccessibilityClass.writable where !accessibility.needsPassphrase {
            XCTAssertTrue(vault.canRead(accessibility), "\(accessibility)")
        }
    }

    func testTheSessionWatchTellsEachChangeOnce() throws {
        let fixture = VaultFixture(), clock = ManualVaultClock()
        let (setup, _) = try lockedVault(fixture, clock)
        defer { setup.lock() }
        let watched = try Vault.open(
            fixture.locations, options: options(fixture, clock, idle: 60), createIfMissing: false)
        let watch = VaultSessionWatch(vault: watched)
        XCTAssertEqual(watch.changed()?.state, .locked, "the first call says where things stand")
        XCTAssertNil(watch.changed())
        let other = try Vault.open(
            fixture.locations, options: options(fixture, clock, idle: 60), createIfMissing: false)
        try other.unlock(passphrase: secret("pass"))
        XCTAssertEqual(watch.changed()?.state, .unlocked, "an unlock in another process")
        clock.advance(by: .seconds(10))
        XCTAssertNil(watch.changed(), "time passing is not a change")
        clock.advance(by: .seconds(60))
        XCTAssertEqual(watch.changed()?.state, .afterFirstUnlockOnly, "the idle timeout")
        setup.lock()
        XCTAssertEqual(watch.changed()?.state, .locked)
    }
}

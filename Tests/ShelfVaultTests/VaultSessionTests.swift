// VaultSessionTests: "unlocked" belongs to the login session — an unlock in one Vault object (a process) opens
// whenUnlocked items for another, use refreshes the idle timeout, the idle timeout locks both (on an injected clock),
// and a lock anywhere locks everywhere. The kernel keyring is the real one; each test's vault id keeps it apart.
import Foundation
import ShelfCore
import ShelfVault
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

    func testTheIdleLockWipesTheKeysFromTheKernelKeyring() throws {
        let fixture = VaultFixture(), clock = ManualVaultClock()
        let (setup, _) = try lockedVault(fixture, clock)
        defer { setup.lock() }
        let vault = try Vault.open(fixture.locations, options: options(fixture, clock, idle: 30), createIfMissing: false)
        let id = fixture.blob("SELECT value FROM vault_meta WHERE name = 'vault_id'").map { String(format: "%02x", $0) }
            .joined()
        XCTAssertEqual(id.count, 32)
        try expectNoLiveKeys(id, ["afterFirstUnlock", "afterFirstUnlockThisDeviceOnly", "session",
                                  "whenPasscodeSetThisDeviceOnly", "whenUnlocked", "whenUnlockedThisDeviceOnly"],
                             "locked: nothing in the keyring")
        try vault.unlock(passphrase: secret("pass"))
        XCTAssertEqual(vault.session().state, .unlocked)
        XCTAssertTrue(vault.session().shared, "the session's keys are in the kernel keyring, not in this process")
        clock.advance(by: .seconds(31))
        vault.relockIfIdle()  // a clock tick, as the TUI's
        try expectNoLiveKeys(id, ["session", "whenPasscodeSetThisDeviceOnly", "whenUnlocked", "whenUnlockedThisDeviceOnly"],
                             "the idle lock removed the whenUnlocked keys and the record, not only hid them")
        vault.lock()
        try expectNoLiveKeys(id, ["afterFirstUnlock", "afterFirstUnlockThisDeviceOnly", "session",
                                  "whenPasscodeSetThisDeviceOnly", "whenUnlocked", "whenUnlockedThisDeviceOnly"],
                             "a lock wipes every class key")
    }

    /// None of these keys of this vault is alive in the kernel keyring (read from /proc/keys). Only absence is
    /// asserted from that listing: a read that races other test processes' key changes can skip entries, never add
    /// one, so a key it shows is really there.
    private func expectNoLiveKeys(_ vaultID: String, _ gone: [String], _ why: String,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let left = Set(liveKeys(vaultID)).intersection(gone)
        XCTAssertEqual(left, [], why, file: file, line: line)
    }

    /// The classes (and "session") of this vault's keys alive in the kernel user keyring, from /proc/keys.
    private func liveKeys(_ vaultID: String) -> [String] {
        guard let table = try? String(contentsOfFile: "/proc/keys", encoding: .utf8) else { return ["unreadable"] }
        let prefix = "sshelf:\(vaultID):"
        return table.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 8, !fields[1].contains(where: { "iDR".contains($0) }),
                let name = fields.dropFirst(8).first(where: { $0.hasPrefix(prefix) })
            else { return nil }
            return String(name.dropFirst(prefix.count).prefix { $0 != ":" })
        }.sorted()
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
        let watched = try Vault.open(fixture.locations, options: options(fixture, clock, idle: 60), createIfMissing: false)
        let watch = VaultSessionWatch(vault: watched)
        XCTAssertEqual(watch.changed()?.state, .locked, "the first call says where things stand")
        XCTAssertNil(watch.changed())
        let other = try Vault.open(fixture.locations, options: options(fixture, clock, idle: 60), createIfMissing: false)
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

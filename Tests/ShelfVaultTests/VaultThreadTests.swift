// VaultThreadTests: one Vault shared by several threads, as the TUI shares its own (login, store worker, main thread,
// unlock thread) — locking, unlocking, reading and writing at once against a real vault file, every answer either
// the right secret or the documented locked one; and an unlock's Argon2id that does not hold the others up.
import Foundation
import ShelfCore
@testable import ShelfVault
import XCTest

final class VaultThreadTests: XCTestCase {
    /// What a thread saw that it must not have: a wrong value, an empty one, any other answer than found/locked.
    private final class Faults: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { if lines.count < 20 { lines.append(line) } } }
        var all: [String] { lock.withLock { lines } }
    }

    private static func check(_ lookup: CredentialLookup, expected: String, _ faults: Faults, _ what: String) {
        switch lookup {
        case .found(let value):
            let seen = value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            if seen != expected { faults.add("\(what): read \(seen.isEmpty ? "an empty secret" : "a wrong value")") }
        case .locked: break
        default: faults.add("\(what): \(lookup)")
        }
    }

    func testSharedVaultUnderConcurrentLockUnlockReadAndWrite() throws {
        let fixture = VaultFixture()
        let vault = try fixture.open()
        try vault.setPassphrase(secret("pass"), current: nil)
        let whenUnlocked = ReferenceKey.hostPassword(UUID())
        let afterFirst = ReferenceKey.hostPassword(UUID())
        let written = ReferenceKey.hostPassword(UUID())
        try vault.write(secret("when-unlocked value"), for: whenUnlocked, class: .whenUnlockedThisDeviceOnly)
        try vault.write(secret("after-first value"), for: afterFirst, class: .afterFirstUnlockThisDeviceOnly)
        try vault.write(secret("written value"), for: written, class: .whenUnlockedThisDeviceOnly)

        let faults = Faults()
        let rounds = 150
        let group = DispatchGroup()
        func thread(_ name: String, _ body: @escaping @Sendable (Int) -> Void) {
            group.enter()
            let worker = Thread {
                for round in 0..<rounds { body(round) }
                group.leave()
            }
            worker.name = name
            worker.start()
        }
        for _ in 0..<2 {
            // The unlock threads and `V`: a lock may land at any point of an unlock.
            thread("unlocker") { round in
                do {
                    try vault.unlock(passphrase: secret("pass"))
                } catch {
                    faults.add("unlock: \(error)")
                }
                if round % 3 == 0 { vault.lock() }
            }
        }
        for index in 0..<3 {
            // The login thread and the store worker: reads, each the right secret or `locked`.
            thread("reader \(index)") { _ in
                Self.check(
                    vault.read(whenUnlocked, class: .whenUnlockedThisDeviceOnly), expected: "when-unlocked value",
                    faults, "whenUnlocked read")
                Self.check(
                    vault.read(afterFirst, class: .afterFirstUnlockThisDeviceOnly), expected: "after-first value",
                    faults, "afterFirstUnlock read")
            }
        }
        // A save from the host form: stored, or refused as locked — never half-stored.
        thread("writer") { _ in
            do {
                try vault.write(secret("written value"), for: written, class: .whenUnlockedThisDeviceOnly)
            } catch let error as VaultError where error.kind == .locked {
            } catch {
                faults.add("write: \(error)")
            }
            Self.check(
                vault.read(written, class: .whenUnlockedThisDeviceOnly), expected: "written value", faults,
                "read after write")
        }
        // The main thread's status line and the watcher's relock.
        thread("status") { _ in
            _ = vault.session()
            _ = vault.canRead(.whenUnlockedThisDeviceOnly)
            vault.relockIfIdle()
            do {
                _ = try vault.status()
            } catch {
                faults.add("status: \(error)")
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 600), .success, "every thread ends (no deadlock)")
        XCTAssertEqual(faults.all, [])
        XCTAssertEqual(fixture.warnings.all, [], "no read was answered 'vault unavailable'")

        vault.lock()
        XCTAssertTrue(vault.read(whenUnlocked, class: .whenUnlockedThisDeviceOnly).isLocked, "locked after the storm")
        XCTAssertTrue(vault.read(afterFirst, class: .afterFirstUnlockThisDeviceOnly).isLocked)
        try vault.unlock(passphrase: secret("pass"))
        XCTAssertEqual(text(vault.read(written, class: .whenUnlockedThisDeviceOnly)), "written value")
    }

    /// The unlock thread's Argon2id: while it runs, another thread reads, asks the session's state and locks — the
    /// TUI's main thread must not freeze for the second a moderate stretch takes.
    func testOtherThreadsAreServedWhileAnUnlockStretchesThePassphrase() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.hostPassword(UUID())
        try fixture.open().setPassphrase(secret("pass"), current: nil)
        let served = DispatchSemaphore(value: 0)
        let answered = Answered()
        var options = fixture.options()
        let reader = Box<Vault>()
        options.stretchingForTests = {
            guard let vault = reader.value, !answered.started else { return }
            answered.started = true
            let other = Thread {
                answered.state = vault.session().state
                answered.lookup = vault.read(key, class: .afterFirstUnlockThisDeviceOnly)
                served.signal()
            }
            other.start()
            // Waits for the other thread's answers while the stretch has begun; a mutex held here would keep them.
            answered.inTime = served.wait(timeout: .now() + 30) == .success
        }
        let vault = try Vault.open(fixture.locations, options: options, createIfMissing: false)
        reader.value = vault
        try vault.unlock(passphrase: secret("pass"))
        if !answered.inTime { _ = served.wait(timeout: .now() + 30) }
        XCTAssertTrue(answered.started, "the unlock stretched the passphrase")
        XCTAssertTrue(answered.inTime, "another thread was served while Argon2id ran")
        XCTAssertEqual(answered.state, .locked, "… and was told the state as it was before the unlock")
        XCTAssertTrue(answered.lookup?.isNotStored == true)
        XCTAssertEqual(vault.session().state, .unlocked)
    }

    func testAnUnlockRacingAPassphraseChangeUsesTheNewParametersOrSaysWrong() throws {
        let fixture = VaultFixture()
        let key = ReferenceKey.hostPassword(UUID())
        let setter = try fixture.open()
        try setter.setPassphrase(secret("old"), current: nil)
        try setter.write(secret("value"), for: key, class: .whenUnlockedThisDeviceOnly)
        let changedOnce = Answered()
        var options = fixture.options()
        // The first stretch of the unlock: meanwhile another process changes the passphrase (new salt too).
        options.stretchingForTests = {
            guard !changedOnce.started else { return }
            changedOnce.started = true
            do {
                try setter.setPassphrase(secret("new"), current: secret("old"))
            } catch {
                XCTFail("change: \(error)")
            }
        }
        let vault = try Vault.open(fixture.locations, options: options, createIfMissing: false)
        // Stretched with the old salt, checked against the new parameters: stretched again, with the new ones.
        try vault.unlock(passphrase: secret("new"))
        XCTAssertTrue(changedOnce.started)
        XCTAssertEqual(text(vault.read(key, class: .whenUnlockedThisDeviceOnly)), "value")
    }
}

/// What the helper thread saw, written before a semaphore signal and read after the wait.
private final class Answered: @unchecked Sendable {
    var started = false
    var inTime = false
    var state: VaultSessionState.State?
    var lookup: CredentialLookup?
}

private final class Box<T>: @unchecked Sendable {
    var value: T?
}

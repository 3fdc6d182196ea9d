// The credential track inside sealed entries: secrets reach the other enrolled devices and never the remote in
// any form; sync's own keys never travel; the flagless migration pass waits for the remote; a locked vault pauses
// only the credential track; a deletion travels and is not resurrected; a device with the track off says so.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
@testable import ShelfVault
import TestSupport
import XCTest

final class CredentialSyncTests: XCTestCase {
    let password = "CANARY-Pa55w0rd-7f3e9a"
    let privateKey =
        "-----BEGIN OPENSSH PRIVATE KEY-----\nCANARY-KEY-b3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"

    func secret(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    func testOldJoinCodeIsRecognisedAndInviteCodesCatchMistakes() throws {
        let code = InviteCode.generate()
        XCTAssertEqual(code.text.filter { $0 != "-" }.count, InviteCode.symbols)
        guard
            case .success(let parsed) = InviteCode.parse(
                code.text.lowercased().replacingOccurrences(of: "-", with: " "))
        else {
            return XCTFail("the code does not parse")
        }
        XCTAssertTrue(parsed.secret.isEqual(to: code.secret))
        XCTAssertEqual(parsed.id, code.id)
        var characters = Array(code.text)
        characters[7] = characters[7] == "A" ? "B" : "A"
        XCTAssertEqual(InviteCode.parse(String(characters)).failure, .checksum)
        XCTAssertEqual(InviteCode.parse(String(code.text.dropLast(2))).failure, .wrongLength(InviteCode.symbols - 2))
        XCTAssertEqual(InviteCode.parse("1" + code.text.dropFirst()).failure, .badCharacter)
        XCTAssertEqual(InviteCode.parse(SyncKey.joinCode(for: SyncKey.generate())).failure, .formatOneJoinCode)
        XCTAssertNotEqual(InviteCode.generate().id, code.id)
    }

    func testCredentialsTravelSealedAndNeverInTheClear() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        let host = try a.add("db")
        let identity = Identity(name: "laptop", privateKeyRef: .identityPrivateKey(UUID()))
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlockedThisDeviceOnly)
        try a.vault.saveIdentityPrivateKey(
            secret(privateKey), identityID: identity.id, class: .whenUnlockedThisDeviceOnly)
        try SyncSettings.setCredentials(true, a.store)
        let first = a.sync()
        XCTAssertEqual(first.migrated, 2)
        XCTAssertEqual(first.credentialsSent, 2)

        // B joins: the invite says the group syncs credentials, so B's credential track comes on with it.
        let code = try a.invite()
        a.sync()
        XCTAssertTrue(try b.join(code).credentials)
        a.sync()
        let joined = b.sync()
        XCTAssertEqual(joined.credentialsReceived, 2, "\(joined)")
        XCTAssertTrue(
            try XCTUnwrap(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret).isEqual(to: secret(password)))
        XCTAssertNotNil(b.vault.loadIdentityPrivateKey(identity.id, class: .whenUnlocked).secret)

        // Red line: no form of either secret anywhere in the remote.
        for canary in [password, privateKey, "CANARY-KEY-b3BlbnNzaC1rZXktdjEAAAAA"] {
            let forms = [
                Data(canary.utf8), Data(Data(canary.utf8).base64EncodedString().utf8),
                Data(canary.utf8.map { String(format: "%02x", $0) }.joined().utf8),
            ]
            for relative in files(under: remote) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: remote + "/" + relative))
                for form in forms { XCTAssertNil(bytes.range(of: form), "\(relative) holds the canary") }
            }
        }
        // Sync's own keys never leave their device: B holds its own signing key, not A's.
        let aSeed = try XCTUnwrap(a.vault.loadSigningSeed(class: .afterFirstUnlockThisDeviceOnly).secret)
        let bSeed = try XCTUnwrap(b.vault.loadSigningSeed(class: .afterFirstUnlockThisDeviceOnly).secret)
        XCTAssertFalse(aSeed.isEqual(to: bSeed))
        for item in try b.vault.items() where item.key.hasPrefix("sync.") {
            XCTAssertEqual(item.accessibility, "afterFirstUnlockThisDeviceOnly", item.key)
        }
        XCTAssertEqual(
            try b.vault.items().filter { $0.family == "host.password" }.map(\.accessibility), ["whenUnlocked"])
    }

    func testMigrationWaitsForTheRemoteAndNeedsNoMarker() throws {
        let base = try makeFolder()
        let a = try Device("a")
        try a.enable(folder: base + "/offline")
        let host = try a.add("db")
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlockedThisDeviceOnly)
        try SyncSettings.setCredentials(true, a.store)

        let offline = a.sync(expect: .localFallback)
        XCTAssertEqual(offline.reason, "sync folder \(base)/offline not found")
        XCTAssertEqual(
            try a.vault.items().first { $0.family == "host.password" }?.accessibility, "whenUnlockedThisDeviceOnly",
            "items stay device-only while the remote is away")

        try FileManager.default.createDirectory(atPath: base + "/offline", withIntermediateDirectories: true)
        let online = a.sync()
        XCTAssertEqual(online.migrated, 1)
        XCTAssertEqual(online.credentialsSent, 1)
        XCTAssertEqual(try a.vault.items().first { $0.family == "host.password" }?.accessibility, "whenUnlocked")

        let again = a.sync()
        XCTAssertEqual(again.migrated, 0)
        XCTAssertEqual(again.credentialsSent, 0, "nothing changed, nothing sent")
        XCTAssertEqual(
            try FolderRemote(path: base + "/offline").entries(of: a.id).count, 1,
            "no entry for a run with nothing to say")
        // No marker anywhere: not in the store's settings, not in the vault's items.
        XCTAssertNil(try a.store.setting("sync.migrated"))
        XCTAssertFalse(try a.vault.items().contains { $0.key.lowercased().contains("migrat") })
    }

    func testLockedVaultPausesOnlyTheCredentialTrack() throws {
        let remote = try makeFolder()
        let a = try Device("a")
        try a.enable(folder: remote)
        try a.vault.setPassphrase(secret("correct horse"), current: nil)
        let host = try a.add("db")
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlocked)
        try SyncSettings.setCredentials(true, a.store)

        // Like a later process after 'vault unlock': the afterFirstUnlock keys are there, whenUnlocked ones are not.
        a.vault = try Device.openVault(a.locations, idle: .zero)
        try a.vault.unlock(passphrase: secret("correct horse"))
        a.vault.relockIfIdle()
        let report = a.sync(expect: .localFallback)
        XCTAssertEqual(report.reason, "vault locked (credential track paused while config keeps syncing)")
        XCTAssertEqual(report.pushed, 1, "the config track still synced")
        XCTAssertEqual(report.membership, "member")

        // With every key locked (after a reboot, before 'vault unlock') nothing can be signed: sync says so.
        a.vault = try Device.openVault(a.locations)
        let locked = a.sync(expect: .localFallback)
        XCTAssertEqual(locked.reason, "vault locked: sync needs this device's keys")
    }

    /// A credential deleted on one device is deleted on the others, an older copy still in another device's set
    /// does not bring it back, and a value set after the deletion wins. Every time — the items' and the deletion's —
    /// comes from the vaults' injected clock, which runs years behind the wall clock: a deletion stamped with the
    /// wall clock instead would bury the later value too.
    func testDeletionTravelsAndIsNotResurrected() throws {
        let remote = try makeFolder()
        let clock = ManualVaultClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        let a = try Device("a", vaultClock: clock.clock), b = try Device("b", vaultClock: clock.clock)
        for device in [a, b] {
            try device.enable(folder: remote)
            try SyncSettings.setCredentials(true, device.store)
        }
        let host = try a.add("db")
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlocked)
        try formGroup([a, b])
        XCTAssertNotNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret)

        // Deleted on A ten seconds later (B's last set still holds the old copy).
        clock.advance(by: .seconds(10))
        XCTAssertTrue(try a.vault.clearHostPassword(host.id, class: .whenUnlocked))
        a.sync(); b.sync()
        XCTAssertNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret, "the deletion reached B")
        for _ in 0..<2 { a.sync(); b.sync() }
        XCTAssertNil(
            a.vault.loadHostPassword(host.id, class: .whenUnlocked).secret, "B's older copy did not come back to A")

        // Set again five seconds after the deletion: the new value wins over the tombstone everywhere.
        clock.advance(by: .seconds(5))
        try a.vault.saveHostPassword(secret("second-\(password)"), hostID: host.id, class: .whenUnlocked)
        a.sync(); b.sync()
        XCTAssertTrue(
            try XCTUnwrap(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret).isEqual(
                to: secret("second-\(password)")))
        XCTAssertTrue(
            try XCTUnwrap(a.vault.loadHostPassword(host.id, class: .whenUnlocked).secret).isEqual(
                to: secret("second-\(password)")))
    }

    /// A password set twice within one second (here: within one instant of the injected clock, which stands still)
    /// by the same device: its later value wins on every device, A included — the counter orders the two writes.
    /// Two devices writing at the same instant without seeing each other end with the same value everywhere: the
    /// author's id decides, not each receiver's own.
    func testALaterWriteBySameDeviceWinsWithinOneSecond() throws {
        let remote = try makeFolder()
        let clock = ManualVaultClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        let devices = try ["a", "b", "c", "d"].map { try Device($0, vaultClock: clock.clock) }
        for device in devices {
            try device.enable(folder: remote)
            try SyncSettings.setCredentials(true, device.store)
        }
        let a = devices[0]
        let host = try a.add("db")
        try formGroup(devices)
        func everyone(_ expected: String, _ why: String, file: StaticString = #filePath, line: UInt = #line) throws {
            for _ in 0..<2 { for device in devices { device.sync() } }
            for device in devices {
                let value = try XCTUnwrap(
                    device.vault.loadHostPassword(host.id, class: .whenUnlocked).secret, device.name, file: file,
                    line: line)
                XCTAssertTrue(value.isEqual(to: secret(expected)), "\(device.name): \(why)", file: file, line: line)
            }
        }
        try a.vault.saveHostPassword(secret("OLD"), hostID: host.id, class: .whenUnlocked)
        try everyone("OLD", "the first value reached everyone")
        try a.vault.saveHostPassword(secret("NEW"), hostID: host.id, class: .whenUnlocked)
        try everyone("NEW", "A's later write in the same instant wins")

        // B and C write at the same instant, each without the other's value.
        let b = devices[1], c = devices[2]
        try b.vault.saveHostPassword(secret("from-b"), hostID: host.id, class: .whenUnlocked)
        try c.vault.saveHostPassword(secret("from-c"), hostID: host.id, class: .whenUnlocked)
        b.sync(); c.sync()
        try everyone(b.id > c.id ? "from-b" : "from-c", "the same author wins on every device")
    }

    /// A class the user chose is a promise: the migration pass never moves it, and another device's sets never
    /// overwrite or delete it. Moving an item to a device-only class stops it travelling without deleting the
    /// copies the other devices already have.
    func testAnItemKeptOnThisDeviceIsNeverMovedOverwrittenOrDeleted() throws {
        let remote = try makeFolder()
        let clock = ManualVaultClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        let a = try Device("a", vaultClock: clock.clock), b = try Device("b", vaultClock: clock.clock)
        for device in [a, b] {
            try device.enable(folder: remote)
            try SyncSettings.setCredentials(true, device.store)
        }
        let host = try a.add("db"), kept = try a.add("vault-box")
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlockedThisDeviceOnly)
        try a.vault.saveHostPassword(secret("kept-\(password)"), hostID: kept.id, class: .whenUnlockedThisDeviceOnly)
        try ChosenClass.record(.hostPassword(kept.id), .whenUnlockedThisDeviceOnly, store: a.store)
        try formGroup([a, b])
        XCTAssertEqual(
            try a.vault.items().filter { $0.family == "host.password" }.map(\.accessibility).sorted(),
            ["whenUnlocked", "whenUnlockedThisDeviceOnly"], "only the default-class item moved")
        XCTAssertNil(b.vault.loadHostPassword(kept.id, class: .whenUnlocked).secret, "the chosen one never left A")
        XCTAssertNotNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret)

        // A keeps db's password on this device from now on: it stops travelling, B keeps the copy it had.
        XCTAssertTrue(
            try a.vault.reclassify(.hostPassword(host.id), from: .whenUnlocked, to: .whenUnlockedThisDeviceOnly))
        try ChosenClass.record(.hostPassword(host.id), .whenUnlockedThisDeviceOnly, store: a.store)
        for _ in 0..<2 { a.sync(); b.sync() }
        XCTAssertNotNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret, "no deletion was sent")

        // B sets a newer value, then deletes it: A's own copy stays as it is, and the run says why.
        clock.advance(by: .seconds(10))
        try b.vault.saveHostPassword(secret("from-b"), hostID: host.id, class: .whenUnlocked)
        b.sync()
        let received = a.sync()
        XCTAssertTrue(
            received.skipped.contains {
                $0.contains("vault item host.\(host.id.uuidString.lowercased()).password stays on this device")
            },
            "\(received.skipped)")
        clock.advance(by: .seconds(10))
        XCTAssertTrue(try b.vault.clearHostPassword(host.id, class: .whenUnlocked))
        for _ in 0..<2 { b.sync(); a.sync() }
        let stillThere = try XCTUnwrap(a.vault.loadHostPassword(host.id, class: .whenUnlockedThisDeviceOnly).secret)
        XCTAssertTrue(stillThere.isEqual(to: secret(password)))
        XCTAssertEqual(
            try a.vault.items().filter { $0.family == "host.password" }.map(\.accessibility),
            ["whenUnlockedThisDeviceOnly", "whenUnlockedThisDeviceOnly"])
    }

    /// A run asked for before another run started (the TUI's background sync waiting while `sync now` ran) is
    /// answered by that run: its report stands; a run asked for later runs and replaces it.
    func testAnOlderRunNeverReplacesANewerResult() throws {
        let remote = try makeFolder()
        let a = try Device("a")
        try a.enable(folder: remote)
        let asked = Date()
        let newer = a.sync()
        let broken: Result<Vault, VaultError> = .failure(
            VaultError(.unavailable, "test: this run could not open the vault"))
        let waited = SyncRunner.run(
            store: a.store, locations: a.locations, deviceName: "a", vault: broken, asked: asked)
        XCTAssertEqual(waited.state, .synced, "the waiting run answered with the newer report")
        XCTAssertEqual(waited.at.timeIntervalSince1970, newer.at.timeIntervalSince1970, accuracy: 0.001)
        let saved = try XCTUnwrap(SyncRunner.lastReport(a.locations))
        XCTAssertEqual(saved.state, .synced, "the saved status is still the newer run's")
        XCTAssertEqual(saved.at.timeIntervalSince1970, newer.at.timeIntervalSince1970, accuracy: 0.001)

        let later = SyncRunner.run(
            store: a.store, locations: a.locations, deviceName: "a", vault: broken, asked: Date())
        XCTAssertEqual(later.state, .localFallback)
        XCTAssertEqual(SyncRunner.lastReport(a.locations)?.reason, later.reason, "a run asked for later is saved")
        XCTAssertGreaterThan(later.at, newer.at)
    }

    /// A device whose credential track is off still syncs config, and says that other devices send credentials.
    func testCredentialsNotJoinedOnThisDevice() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        let host = try a.add("db")
        try a.vault.saveHostPassword(secret(password), hostID: host.id, class: .whenUnlockedThisDeviceOnly)
        try formGroup([a, b])
        XCTAssertNil(b.sync().notice, "nobody sends credentials yet")
        try SyncSettings.setCredentials(true, a.store)
        a.sync()
        let report = b.sync()
        XCTAssertEqual(report.notice, "credentials not joined on this device")
        XCTAssertNil(b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret)
        try SyncSettings.setCredentials(true, b.store)
        let joined = b.sync()
        XCTAssertNil(joined.notice)
        XCTAssertEqual(joined.credentialsReceived, 1)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}

// The credential track: join codes, end-to-end sealed batches that never show a secret to the remote,
// refusal of altered or misplaced batches, the flagless migration pass, and a locked vault pausing only
// the credential track.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class CredentialSyncTests: XCTestCase {
    func vault(_ device: Device) throws -> Vault {
        var options = VaultOptions(useKernelKeyring: false, minimumStretch: true)
        options.warn = { _ in }
        return try Vault.open(device.locations, options: options, createIfMissing: true)
    }

    func sync(_ device: Device, _ vault: Vault?) -> SyncReport {
        SyncRunner.run(store: device.store, locations: device.locations, deviceName: "t", credentials: vault.map(CredentialSync.init))
    }

    let password = "CANARY-Pa55w0rd-7f3e9a"
    let privateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nCANARY-KEY-b3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"

    func testJoinCodeRoundTripsAndRejectsMistakes() throws {
        let key = SyncKey.generate()
        let code = SyncKey.joinCode(for: key)
        XCTAssertEqual(code.count, 58 + 11)
        XCTAssertTrue(try SyncKey.parse(joinCode: code.lowercased().replacingOccurrences(of: "-", with: " ")).isEqual(to: key))
        var characters = Array(code)
        let original = characters[7]
        characters[7] = original == "A" ? "B" : "A"
        XCTAssertThrowsError(try SyncKey.parse(joinCode: String(characters))) { XCTAssertTrue("\($0)".contains("checksum")) }
        characters = Array(code)
        characters.swapAt(1, 2)
        if characters[1] != characters[2] { XCTAssertThrowsError(try SyncKey.parse(joinCode: String(characters))) }
        XCTAssertThrowsError(try SyncKey.parse(joinCode: String(code.dropLast(3))))
        XCTAssertThrowsError(try SyncKey.parse(joinCode: "1" + code.dropFirst())) { XCTAssertTrue("\($0)".contains("not in it"), "\($0)") }
    }

    func testCredentialsTravelSealedAndNeverInTheClear() throws {
        let remote = try makeFolder()
        let a = try Device(), b = try Device()
        try a.enable(folder: remote)
        try b.enable(folder: remote)
        let host = try a.add("db")
        let identity = Identity(name: "laptop", privateKeyRef: .identityPrivateKey(UUID()))
        let va = try vault(a), vb = try vault(b)
        let key = SyncKey.generate()
        try va.saveSyncKey(key, class: .afterFirstUnlockThisDeviceOnly)
        try va.saveHostPassword(SecretBytes(Array(password.utf8)), hostID: host.id, class: .whenUnlockedThisDeviceOnly)
        try va.saveIdentityPrivateKey(SecretBytes(Array(privateKey.utf8)), identityID: identity.id, class: .whenUnlockedThisDeviceOnly)
        // A device-only item that must never travel: a host's passcode-class secret is not eligible, and
        // afterFirstUnlockThisDeviceOnly sync.key stays too.
        try SyncSettings.setCredentials(true, a.store)
        let first = sync(a, va)
        XCTAssertEqual(first.state, .synced, first.reason ?? "")
        XCTAssertEqual(first.migrated, 2)
        XCTAssertEqual(first.credentialsSent, 2)

        // B has the config but not yet the key: the credential track says why; config synced anyway.
        let early = sync(b, vb)
        XCTAssertEqual(early.state, .localFallback)
        XCTAssertEqual(early.reason, "sync key missing on this device")
        XCTAssertNotNil(try b.host("db"), "the config track synced before the credential track stopped")
        XCTAssertEqual(vb.loadHostPassword(host.id, class: .whenUnlocked).secret == nil, true)

        try vb.saveSyncKey(try SyncKey.parse(joinCode: SyncKey.joinCode(for: key)), class: .afterFirstUnlockThisDeviceOnly)
        try SyncSettings.setCredentials(true, b.store)
        let joined = sync(b, vb)
        XCTAssertEqual(joined.state, .synced, joined.reason ?? "")
        XCTAssertEqual(joined.credentialsReceived, 2)
        let received = try XCTUnwrap(vb.loadHostPassword(host.id, class: .whenUnlocked).secret)
        XCTAssertTrue(received.isEqual(to: SecretBytes(Array(password.utf8))))
        XCTAssertNotNil(vb.loadIdentityPrivateKey(identity.id, class: .whenUnlocked).secret)

        // Red line: no form of either secret anywhere in the remote.
        for canary in [password, privateKey, "CANARY-KEY-b3BlbnNzaC1rZXktdjEAAAAA"] {
            let forms = [Data(canary.utf8), Data(Data(canary.utf8).base64EncodedString().utf8),
                         Data(canary.utf8.map { String(format: "%02x", $0) }.joined().utf8)]
            let enumerator = FileManager.default.enumerator(atPath: remote)
            while let relative = enumerator?.nextObject() as? String {
                guard let bytes = FileManager.default.contents(atPath: remote + "/" + relative) else { continue }
                for form in forms { XCTAssertNil(bytes.range(of: form), "\(relative) holds the canary") }
            }
        }
        // Opened with the sync key, the batches hold only syncable classes and never the sync key itself.
        let layout = RemoteLayout(root: remote)
        for device in [try a.store.deviceID, try b.store.deviceID] {
            for name in FolderRemote(path: remote).batches(of: device, in: .credentials) {
                let sealed = try Array(Data(contentsOf: URL(fileURLWithPath: layout.directory(device, .credentials) + "/" + name)))
                let plaintext = try XCTUnwrap(SyncKey.open(sealed, key: key, associatedData: Array("sshelf-sync-credentials\u{0}\(device)\u{0}\(name)".utf8)))
                let text = plaintext.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                XCTAssertFalse(text.contains("ThisDeviceOnly"), text)
                XCTAssertFalse(text.contains("sync.key"), text)
                XCTAssertTrue(text.contains("whenUnlocked"))
            }
        }
    }

    func testAlteredOrMisplacedBatchesAreRefused() throws {
        let remote = try makeFolder()
        let a = try Device(), b = try Device()
        try a.enable(folder: remote)
        try b.enable(folder: remote)
        let va = try vault(a), vb = try vault(b)
        let key = SyncKey.generate()
        try va.saveSyncKey(key, class: .afterFirstUnlockThisDeviceOnly)
        try vb.saveSyncKey(key, class: .afterFirstUnlockThisDeviceOnly)
        let host = try a.add("db")
        try va.saveHostPassword(SecretBytes(Array(password.utf8)), hostID: host.id, class: .whenUnlocked)
        for device in [a, b] { try SyncSettings.setCredentials(true, device.store) }
        XCTAssertEqual(sync(a, va).state, .synced)
        let layout = RemoteLayout(root: remote)
        let aDir = layout.directory(try a.store.deviceID, .credentials)
        let batch = aDir + "/00000001.box"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: batch))
        // A copy under another name (it is bound to its name), and the original with one flipped byte.
        try bytes.write(to: URL(fileURLWithPath: aDir + "/00000007.box"))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: batch))
        let report = sync(b, vb)
        XCTAssertEqual(report.state, .synced)
        XCTAssertEqual(report.credentialsReceived, 0)
        XCTAssertEqual(report.skipped.filter { $0.contains("cannot be opened with this device's sync key") }.count, 2, "\(report.skipped)")
        XCTAssertNil(vb.loadHostPassword(host.id, class: .whenUnlocked).secret)
        XCTAssertNotNil(try b.host("db"))
    }

    func testMigrationWaitsForTheRemoteAndNeedsNoMarker() throws {
        let base = try makeFolder()
        let a = try Device()
        try a.enable(folder: base + "/offline")
        let va = try vault(a)
        try va.saveSyncKey(SyncKey.generate(), class: .afterFirstUnlockThisDeviceOnly)
        let host = try a.add("db")
        try va.saveHostPassword(SecretBytes(Array(password.utf8)), hostID: host.id, class: .whenUnlockedThisDeviceOnly)
        try SyncSettings.setCredentials(true, a.store)

        let offline = sync(a, va)
        XCTAssertEqual(offline.state, .localFallback)
        XCTAssertEqual(offline.reason, "sync folder \(base)/offline not found")
        XCTAssertEqual(try va.items().first { $0.family == "host.password" }?.accessibility, "whenUnlockedThisDeviceOnly",
                       "items stay device-only while the remote is away")

        try FileManager.default.createDirectory(atPath: base + "/offline", withIntermediateDirectories: true)
        let online = sync(a, va)
        XCTAssertEqual(online.state, .synced, online.reason ?? "")
        XCTAssertEqual(online.migrated, 1)
        XCTAssertEqual(online.credentialsSent, 1)
        XCTAssertEqual(try va.items().first { $0.family == "host.password" }?.accessibility, "whenUnlocked")

        let again = sync(a, va)
        XCTAssertEqual(again.migrated, 0)
        XCTAssertEqual(again.credentialsSent, 0, "nothing changed, nothing uploaded")
        XCTAssertEqual(FolderRemote(path: base + "/offline").batches(of: try a.store.deviceID, in: .credentials).count, 1)
        // No marker anywhere: not in the store's settings, not in the vault's items.
        let settings = try ["sync.transport", "sync.location", "sync.exported", "sync.credentials", "sync.credentials.digest"]
            .compactMap { try a.store.setting($0) }
        XCTAssertEqual(settings.count, 5)
        XCTAssertFalse(try va.items().contains { $0.key.lowercased().contains("migrat") })
    }

    func testLockedVaultPausesOnlyTheCredentialTrack() throws {
        let remote = try makeFolder()
        let a = try Device()
        try a.enable(folder: remote)
        let va = try vault(a)
        try va.saveSyncKey(SyncKey.generate(), class: .afterFirstUnlockThisDeviceOnly)
        try va.setPassphrase(SecretBytes(Array("correct horse".utf8)), current: nil)
        let host = try a.add("db")
        try va.saveHostPassword(SecretBytes(Array(password.utf8)), hostID: host.id, class: .whenUnlocked)
        try SyncSettings.setCredentials(true, a.store)
        va.lock()
        let report = sync(a, va)
        XCTAssertEqual(report.state, .localFallback)
        XCTAssertEqual(report.reason, "vault locked (credential track paused while config keeps syncing)")
        XCTAssertEqual(report.pushed, 1, "the config track still synced")
    }

    /// A credential deleted on one device is deleted on the others, and an older copy still in another device's
    /// batch does not bring it back.
    func testDeletionTravelsAndIsNotResurrected() throws {
        let remote = try makeFolder()
        let a = try Device(), b = try Device()
        try a.enable(folder: remote)
        try b.enable(folder: remote)
        let va = try vault(a), vb = try vault(b)
        let key = SyncKey.generate()
        try va.saveSyncKey(key, class: .afterFirstUnlockThisDeviceOnly)
        try vb.saveSyncKey(key, class: .afterFirstUnlockThisDeviceOnly)
        for device in [a, b] { try SyncSettings.setCredentials(true, device.store) }
        let host = try a.add("db")
        try va.saveHostPassword(SecretBytes(Array(password.utf8)), hostID: host.id, class: .whenUnlocked)
        XCTAssertEqual(sync(a, va).state, .synced)
        XCTAssertEqual(sync(b, vb).credentialsReceived, 1)
        XCTAssertNotNil(vb.loadHostPassword(host.id, class: .whenUnlocked).secret)

        // Deleted on A (B's last batch still holds the old copy).
        XCTAssertTrue(try va.clearHostPassword(host.id, class: .whenUnlocked))
        XCTAssertEqual(sync(a, va).state, .synced)
        XCTAssertEqual(sync(b, vb).state, .synced)
        XCTAssertNil(vb.loadHostPassword(host.id, class: .whenUnlocked).secret, "the deletion reached B")
        for _ in 0..<2 {
            XCTAssertEqual(sync(a, va).state, .synced)
            XCTAssertEqual(sync(b, vb).state, .synced)
        }
        XCTAssertNil(va.loadHostPassword(host.id, class: .whenUnlocked).secret, "B's older copy did not come back to A")
        XCTAssertNil(vb.loadHostPassword(host.id, class: .whenUnlocked).secret)

        // Set again later: the new value wins over the tombstone everywhere. (Vault times have one-second
        // resolution; the new write must fall in a later second than the deletion.)
        Thread.sleep(forTimeInterval: 1.1)
        try va.saveHostPassword(SecretBytes(Array("second-\(password)".utf8)), hostID: host.id, class: .whenUnlocked)
        XCTAssertEqual(sync(a, va).state, .synced)
        XCTAssertEqual(sync(b, vb).state, .synced)
        XCTAssertTrue(try XCTUnwrap(vb.loadHostPassword(host.id, class: .whenUnlocked).secret)
            .isEqual(to: SecretBytes(Array("second-\(password)".utf8))))
    }
}

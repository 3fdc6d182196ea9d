// Revocation through a real folder remote: the revoking device signs the revocation and replaces the group key; the
// remaining devices take the new key and re-seal their state under it; the revoked device learns who revoked it,
// cannot open anything written after, and whatever it writes later is refused by everyone; the others converge.
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class RevocationTests: XCTestCase {
    func testRevokeRotatesTheKeyAndShutsTheDeviceOut() throws {
        let remote = try makeFolder()
        let a = try Device("laptop"), b = try Device("desktop"), lost = try Device("phone")
        for device in [a, b, lost] { try device.enable(folder: remote) }
        _ = try a.add("before-revocation")
        try formGroup([a, b, lost])
        XCTAssertNotNil(try lost.host("before-revocation"))
        let oldEpoch = try XCTUnwrap(try a.store.setting("sync.epoch.written"))

        let revoking = a.sync(revoke: lost.uuid)
        XCTAssertTrue(revoking.events.contains { $0.hasPrefix("revoked phone") }, "\(revoking.events)")
        let newEpoch = try XCTUnwrap(try a.store.setting("sync.epoch.written"))
        XCTAssertNotEqual(newEpoch, oldEpoch, "the group key was replaced")
        let revokedRow = try XCTUnwrap(try GroupInfo.devices(a.store).first { $0.name == "phone" })
        XCTAssertEqual(revokedRow.revokedBy, "laptop")

        // B takes the new key and re-seals everything under it (a snapshot).
        let bBefore = try b.store.peer(b.id).snapshot
        b.sync()
        XCTAssertEqual(try b.store.setting("sync.epoch.written"), newEpoch)
        XCTAssertGreaterThan(try b.store.peer(b.id).snapshot, bBefore)
        XCTAssertFalse(try lost.vault.epochKeyIDs().contains { $0.uuidString.lowercased() == newEpoch })

        // Written after the revocation: the revoked device cannot open it.
        _ = try a.add("after-revocation")
        a.sync()
        let status = lost.sync(expect: .localFallback)
        XCTAssertEqual(status.membership, "revoked")
        XCTAssertTrue(status.reason?.hasPrefix("revoked by laptop on ") == true, status.reason ?? "")
        XCTAssertNil(try lost.host("after-revocation"))
        let forger = try Forger(a)
        let latest = try Entry(
            parsing: try forger.existing(a.id, try FolderRemote(path: remote).entries(of: a.id).last ?? 0),
            limit: RemoteLayout.maxEntryBytes)
        for id in try lost.vault.epochKeyIDs() {
            let key = try XCTUnwrap(lost.vault.loadEpochKey(id, class: .afterFirstUnlockThisDeviceOnly).secret)
            XCTAssertNil(latest.openContent(SyncKeys.content(key)), "no key the revoked device holds opens new entries")
        }
        XCTAssertEqual(
            try FolderRemote(path: remote).entries(of: lost.id).count, 1, "a revoked device writes nothing more")

        // Its writes after the revocation (signed with its real key, sealed under a key it still has) are refused.
        var writer = try Forger(lost)
        writer.keys = try lost.keys()
        let seqs = try FolderRemote(path: remote).entries(of: lost.id)
        let previous = SyncCrypto.digest(try writer.existing(lost.id, seqs.last ?? 1))
        let evil = ShelfCore.Host(name: "after-revoked", hostname: "evil.example")
        try writer.write(
            records: [Forger.record(evil, by: lost.id)], seq: (seqs.last ?? 0) + 1, device: lost.id, previous: previous)
        for device in [a, b] {
            let report = device.sync()
            XCTAssertTrue(
                report.skipped.contains(
                    "phone (\(lost.id.prefix(8))) was revoked; its entries after \(seqs.last ?? 0) are refused"),
                "\(device.name): \(report.skipped)")
            XCTAssertNil(try device.host("after-revoked"))
        }
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertNotNil(try b.host("after-revocation"))
        XCTAssertNotNil(try b.host("before-revocation"))
    }

    /// A device took a change from the lost device before anybody knew it was lost; the revoker had not seen that
    /// change. Once the revocation arrives, the change is undone there and the value from before comes back.
    func testValuesWrittenAfterTheRevocationPointAreUndone() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), lost = try Device("lost")
        for device in [a, b, lost] { try device.enable(folder: remote) }
        let host = try a.add("web", hostname: "real.example")
        try formGroup([a, b, lost])
        // The lost device changes the address; B applies it before anybody knows the device is lost, A does not.
        try lost.edit(host.id) { $0.hostname = "evil.example" }
        lost.sync()
        let change = RemoteLayout(root: remote).entryPath(
            lost.id, try FolderRemote(path: remote).entries(of: lost.id).last ?? 0)
        b.sync()
        XCTAssertEqual(try b.store.host(id: host.id)?.hostname, "evil.example")
        // A revokes with what it had verified, which is before that change (the remote had not shown A the entry).
        try FileManager.default.moveItem(atPath: change, toPath: change + ".aside")
        a.sync(revoke: lost.uuid)
        try FileManager.default.moveItem(atPath: change + ".aside", toPath: change)
        let report = b.sync()
        XCTAssertTrue(report.warnings.contains { $0.contains("written after its revocation") }, "\(report.warnings)")
        XCTAssertEqual(
            try b.store.host(id: host.id)?.hostname, "real.example",
            "the address from before the revocation point is back")
        a.sync()
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertTrue(try b.store.conflicts().contains { $0.why == "revoked" && $0.field == "endpoint" })
    }
}

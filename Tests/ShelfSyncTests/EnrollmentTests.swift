// Enrollment through real folder remotes: invite → join → the inviter enrolls the new device on its next run →
// first sync; a code works once; an expired code is refused (the clock is injected, nothing waits); a device that
// joined but was never enrolled sends nothing, and what it writes anyway is refused; two claims on one invite
// enroll nobody; a device that never joined is told how to.
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class EnrollmentTests: XCTestCase {
    func testInviteJoinEnrollFirstSync() throws {
        let remote = try makeFolder()
        let a = try Device("laptop"), b = try Device("desktop")
        for device in [a, b] { try device.enable(folder: remote) }
        let web = try a.add("web")
        let db = try b.add("db")
        XCTAssertEqual(a.sync().membership, "member", "the first device creates the group")

        // Before joining, B is told it is not enrolled, and how to be.
        let outsider = b.sync(expect: .localFallback)
        XCTAssertEqual(outsider.reason, "this device is not enrolled in the sync group on this remote")
        XCTAssertEqual(outsider.hint, "run 'sshelf sync invite' on an enrolled device, then 'sshelf sync join' here")
        XCTAssertNil(outsider.membership, "a device that never joined is not waiting for anything")

        let code = try a.invite()
        a.sync()
        XCTAssertTrue(FileManager.default.fileExists(atPath: RemoteLayout(root: remote).inviteBox(code.id)))
        let joined = try b.join(code)
        XCTAssertEqual(joined.inviter, "laptop")
        let waiting = b.sync(expect: .localFallback)
        XCTAssertEqual(waiting.reason, "waiting to be enrolled (invited by laptop)")
        XCTAssertEqual(waiting.membership, "waiting")
        XCTAssertNil(try b.store.host(id: web.id), "a waiting device holds no key of the group: it reads nothing")
        try assertHoldsNoGroupKey(b)
        XCTAssertEqual(try FolderRemote(path: remote).entries(of: b.id), [], "a waiting device writes no entry")

        let enrolling = a.sync()
        XCTAssertEqual(
            enrolling.events,
            ["enrolled desktop (\(b.id.prefix(8))) with invite \(code.id.uuidString.lowercased().prefix(8))"])
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: RemoteLayout(root: remote).inviteBox(code.id)),
            "a used invite is removed")
        XCTAssertEqual(b.sync().membership, "member")
        XCTAssertNotNil(try b.store.host(id: web.id), "enrolled, it reads the group")
        XCTAssertTrue(
            try b.vault.items().allSatisfy { !$0.key.hasSuffix(".invite") },
            "the joiner's invite secret is wiped at enrollment")
        XCTAssertTrue(try a.vault.items().allSatisfy { !$0.key.hasSuffix(".invite") }, "and the inviter's")
        XCTAssertEqual(
            files(under: remote).filter { $0.hasPrefix("invites/") && !$0.hasSuffix("/") }, [],
            "the welcome went with its use")
        a.sync()
        XCTAssertNotNil(try a.store.host(id: db.id), "the new device's own hosts reach the group")
        XCTAssertEqual(try a.state(), try b.state())
        let devices = try GroupInfo.devices(a.store)
        XCTAssertEqual(devices.map(\.name), ["laptop", "desktop"])
        XCTAssertEqual(devices.last?.enrolledBy, "laptop")
        XCTAssertTrue(devices.first?.thisDevice == true)
    }

    func testACodeWorksOnce() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        a.sync()
        let code = try a.invite()
        a.sync()
        try b.join(code)
        XCTAssertThrowsError(try c.join(code)) { error in
            XCTAssertEqual((error as? SyncFailure)?.reason, "this invite was already used by another device")
        }
        a.sync()
        XCTAssertThrowsError(try c.join(code)) { error in
            XCTAssertEqual((error as? SyncFailure)?.reason, "no invite for this code on the remote")
        }
        XCTAssertNil(try GroupInfo.devices(c.store).first, "a refused join writes nothing")
        XCTAssertEqual(
            c.sync(expect: .localFallback).reason, "this device is not enrolled in the sync group on this remote")
        XCTAssertEqual(b.sync().membership, "member")
    }

    /// A used invite's box put back on the remote (git history and folder versions keep it): a device with the code
    /// gets no key from it, nobody enrolls it, every member removes the files, and `sync devices` lists only the
    /// devices enrolled. No device can hold the group's keys without being in the roster.
    func testAUsedInviteBoxPutBackOnTheRemoteGivesNothing() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), e = try Device("e")
        for device in [a, b, e] { try device.enable(folder: remote) }
        let web = try a.add("web")
        a.sync()
        let code = try a.invite()
        a.sync()
        let boxPath = RemoteLayout(root: remote).inviteBox(code.id)
        let kept = try Data(contentsOf: URL(fileURLWithPath: boxPath))
        try b.join(code)
        a.sync()
        XCTAssertEqual(b.sync().membership, "member")

        try kept.write(to: URL(fileURLWithPath: boxPath))
        // E cannot tell a replayed box from a fresh one: its claim is written, and answered by nobody.
        try e.join(code)
        XCTAssertEqual(e.sync(expect: .localFallback).membership, "waiting")
        let refusing = a.sync()
        XCTAssertTrue(refusing.skipped.contains { $0.contains("was used already") }, "\(refusing.skipped)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: boxPath), "a member removes a spent invite's box")
        XCTAssertTrue(
            files(under: remote).filter { $0.hasPrefix("invites/") && $0.contains(e.id) }.isEmpty, "and the claim on it"
        )
        b.sync()
        XCTAssertEqual(e.sync(expect: .localFallback).membership, "waiting")
        XCTAssertNil(try e.store.host(id: web.id), "nothing of the group is readable on E")
        try assertHoldsNoGroupKey(e)
        XCTAssertEqual(try GroupInfo.devices(a.store).map(\.name), ["a", "b"])
        XCTAssertEqual(try GroupInfo.devices(b.store).map(\.name).sorted(), ["a", "b"])

        // Put back again after the members removed it, and tried by a third device: the same.
        try kept.write(to: URL(fileURLWithPath: boxPath))
        let f = try Device("f")
        try f.enable(folder: remote)
        try f.join(code)
        a.sync()
        f.sync(expect: .localFallback)
        try assertHoldsNoGroupKey(f)
        XCTAssertEqual(try GroupInfo.devices(a.store).count, 2)
    }

    /// A garbage claim, and a claim from another invite renamed onto this one, are not claims: the real device's
    /// join and enrollment go through.
    func testAGarbageOrForeignClaimIsIgnored() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        a.sync()
        let code = try a.invite(), other = try a.invite()
        a.sync()
        let layout = RemoteLayout(root: remote)
        try Data("not a claim".utf8).write(
            to: URL(fileURLWithPath: layout.claim(code.id, device: UUID().uuidString.lowercased())))
        try c.join(other)
        try FileManager.default.copyItem(
            atPath: layout.claim(other.id, device: c.id), toPath: layout.claim(code.id, device: c.id))
        XCTAssertEqual(try b.join(code).inviter, "a")
        let enrolling = a.sync()
        XCTAssertTrue(
            enrolling.events.contains { $0.hasPrefix("enrolled b (") }, "\(enrolling.events) \(enrolling.warnings)")
        XCTAssertEqual(b.sync().membership, "member")
    }

    func testAnExpiredCodeIsRefused() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        let start = Date()
        a.clock = start
        a.sync()
        let code = try a.invite(lifetime: 3600)
        a.sync()
        b.clock = start.addingTimeInterval(3601)
        XCTAssertThrowsError(try b.join(code)) { error in
            XCTAssertTrue((error as? SyncFailure)?.reason.hasPrefix("this invite expired at") == true, "\(error)")
        }
        XCTAssertNil(try GroupInfo.devices(b.store).first, "nothing written")

        // Joined in time, but the inviter ran only after the expiry: nobody is enrolled, and the joiner says why.
        let late = try a.invite(lifetime: 3600)
        a.sync()
        c.clock = start.addingTimeInterval(60)
        try c.join(late)
        a.clock = start.addingTimeInterval(7200)
        let expired = a.sync()
        XCTAssertTrue(expired.skipped.contains { $0.contains("expired unused") }, "\(expired.skipped)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: RemoteLayout(root: remote).inviteBox(late.id)))
        c.clock = start.addingTimeInterval(7200)
        XCTAssertEqual(c.sync(expect: .localFallback).reason, "the invite expired before a enrolled this device")
        XCTAssertEqual(try GroupInfo.devices(a.store).count, 1)
    }

    /// A device that joined but was never enrolled sends nothing; an entry it (or anyone) writes anyway is refused.
    func testJoinedButNeverEnrolledCannotWrite() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        a.sync()
        let code = try a.invite()
        a.sync()
        try b.join(code)
        // The remote drops B's claim, so A never enrolls B; B forges an entry anyway, with the group keys (as if
        // they had leaked from A: B never received any) and its own (unenrolled) key.
        try FileManager.default.removeItem(atPath: RemoteLayout(root: remote).claim(code.id, device: b.id))
        var forger = try Forger(a)
        forger.keys = try b.keys()
        let host = ShelfCore.Host(name: "from-unenrolled", hostname: "evil.example")
        try forger.write(records: [Forger.record(host, by: b.id)], seq: 1, device: b.id)
        let report = a.sync(expect: .localFallback)
        XCTAssertEqual(report.reason, "entries from device \(b.id.prefix(8)), which is not an enrolled device, refused")
        XCTAssertNil(try a.host("from-unenrolled"))
    }

    func testTwoClaimsOnOneInviteEnrollNobody() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        a.sync()
        let code = try a.invite()
        a.sync()
        try b.join(code)
        // C got the code too and claims it before seeing B's claim (a copy of the box, as a slow sync tool would show).
        let layout = RemoteLayout(root: remote)
        let claimB = layout.claim(code.id, device: b.id)
        try FileManager.default.moveItem(atPath: claimB, toPath: claimB + ".hidden")
        try c.join(code)
        try FileManager.default.moveItem(atPath: claimB + ".hidden", toPath: claimB)
        let report = a.sync()
        XCTAssertTrue(report.warnings.contains { $0.hasPrefix("2 devices claimed invite") }, "\(report.warnings)")
        XCTAssertEqual(try GroupInfo.devices(a.store).count, 1)
        XCTAssertEqual(b.sync(expect: .localFallback).membership, "waiting")
    }

    /// Two devices that set sync up on an empty remote at the same moment make two groups; each says so until one
    /// joins the other, which then leaves no trace of its old group on the remote.
    func testTwoGroupsOnOneRemoteAreReportedUntilOneJoinsTheOther() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        // Both see an empty remote (B's run does not see A's files yet).
        let aside = remote + ".a"
        a.sync()
        try FileManager.default.moveItem(atPath: remote, toPath: aside)
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        _ = try b.add("b-before")
        b.sync()
        try FileManager.default.moveItem(atPath: aside + "/devices/" + a.id, toPath: remote + "/devices/" + a.id)
        for device in [a, b] {
            let report = device.sync(expect: .localFallback)
            XCTAssertTrue(
                report.reason?.hasPrefix("the remote also holds another sync group") == true,
                "\(device.name): \(report.reason ?? "")")
        }
        let code = try a.invite()
        a.sync(expect: .localFallback)
        try b.join(code)
        a.sync(expect: .localFallback)
        let joined = b.sync()
        XCTAssertTrue(joined.warnings.contains { $0.contains("did not write it in this group") }, "\(joined.warnings)")
        XCTAssertEqual(a.sync().state, .synced)
        XCTAssertNotNil(try a.host("b-before"), "what B had before joins the group with it")
        XCTAssertEqual(try a.state(), try b.state())
    }

    /// No group secret and no epoch key in the device's vault.
    func assertHoldsNoGroupKey(_ device: Device, file: StaticString = #filePath, line: UInt = #line) throws {
        let keys = try device.vault.items().map(\.key).filter {
            $0.hasPrefix("sync.") && ($0.hasSuffix(".group") || $0.hasSuffix(".epoch"))
        }
        XCTAssertEqual(keys, [], "\(device.name) holds group keys without being enrolled", file: file, line: line)
    }
}

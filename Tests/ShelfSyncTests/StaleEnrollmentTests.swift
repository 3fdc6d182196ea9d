// A device enrolled by an already-revoked device (issue 31, hole 10): A, B and C sync credentials; A revokes C while
// B is offline; the stale C, shown the remote as it was before the revocation, enrolls E, and E points h1 at another
// port and pinned key and adds a host. When B next syncs, E's entries are refused and named, h1 is unchanged and
// nothing of E reaches A through B — for every order of the three device ids (device folders are read sorted).
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
@testable import ShelfVault
import TestSupport
import XCTest

final class StaleEnrollmentTests: XCTestCase {
    /// Ids whose order is forced by their first digit.
    static func id(_ digit: Int) -> UUID {
        UUID(uuidString: "\(digit)0000000-0000-4000-8000-\(String(format: "%012d", Int.random(in: 0..<999_999)))")
            ?? UUID()
    }

    func testADeviceEnrolledByARevokedDeviceIsRefusedForEveryOrderOfIds() throws {
        let digits = [2, 4, 6]
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        for order in orders {
            // order[i] is the rank of A, C and E in turn.
            try scenario(a: Self.id(digits[order[0]]), c: Self.id(digits[order[1]]), e: Self.id(digits[order[2]]))
        }
    }

    /// The same when B took E's values in an earlier run, before the revocation reached it: they are undone there
    /// and never sent on.
    func testValuesFromADeviceEnrolledByARevokedDeviceAreUndoneWhenTheRevocationArrivesLate() throws {
        let digits = [2, 4, 6]
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        for order in orders {
            try scenario(
                a: Self.id(digits[order[0]]), c: Self.id(digits[order[1]]), e: Self.id(digits[order[2]]),
                lateRevocation: true)
        }
    }

    func scenario(a aID: UUID, c cID: UUID, e eID: UUID, lateRevocation: Bool = false) throws {
        let ranks = [("A", aID), ("C", cID), ("E", eID)].sorted { $0.1.lowerText < $1.1.lowerText }.map(\.0)
        let label = "ids sorted " + ranks.joined(separator: "<")
        let remote = try makeFolder()
        let a = try Device("a", id: aID), b = try Device("b"), c = try Device("c", id: cID)
        for device in [a, b, c] { try device.enable(folder: remote) }
        let h1 = try a.add("h1", hostname: "real.example")
        try a.edit(h1.id) {
            $0.port = 22
            $0.pinnedHostKey = PinnedHostKey(type: "ssh-ed25519", key: "UmVhbEtleQ==")
        }
        try a.vault.saveHostPassword(
            SecretBytes(Array("CANARY-h1-password".utf8)), hostID: h1.id, class: .whenUnlockedThisDeviceOnly)
        try SyncSettings.setCredentials(true, a.store)
        try formGroup([a, b, c])
        let before = try XCTUnwrap(try b.host("h1"), label)
        XCTAssertNotNil(b.vault.loadHostPassword(h1.id, class: .whenUnlocked).secret, "\(label): B has the password")

        // The remote as it was before the revocation: what the stale C (its keys in an attacker's hands) is shown.
        let stale = try makeFolder("stale")
        try FileManager.default.removeItem(atPath: stale)
        try FileManager.default.copyItem(atPath: remote, toPath: stale)

        // A revokes C while B is offline.
        a.sync(revoke: c.uuid)

        // The stale C invites and enrolls E (an id of the attacker's choosing); E repoints h1 and adds a host.
        try c.enable(folder: stale)
        let e = try Device("e", id: eID)
        try e.enable(folder: stale)
        let code = try c.invite()
        c.sync()
        try e.join(code)
        c.sync()
        e.sync()
        XCTAssertNotNil(try e.host("h1"), "\(label): E took the group's hosts")
        try e.edit(h1.id) {
            $0.port = 2222
            $0.pinnedHostKey = PinnedHostKey(type: "ssh-ed25519", key: "QXR0YWNrZXJLZXk=")
        }
        _ = try e.add("e-added", hostname: "attacker.example")
        e.sync()
        c.sync()

        // The attacker puts C's and E's folders onto the real remote.
        for device in [c.id, e.id] {
            let from = RemoteLayout(root: stale).deviceDirectory(device)
            let to = RemoteLayout(root: remote).deviceDirectory(device)
            try FileManager.default.createDirectory(atPath: to, withIntermediateDirectories: true)
            for file in try FileManager.default.contentsOfDirectory(atPath: from)
            where !FileManager.default.fileExists(atPath: to + "/" + file) {
                try FileManager.default.copyItem(atPath: from + "/" + file, toPath: to + "/" + file)
            }
        }

        if lateRevocation {
            // B is shown the remote without A's folder first: it takes E's values, believing C still a member.
            let aFolder = RemoteLayout(root: remote).deviceDirectory(a.id)
            try FileManager.default.moveItem(atPath: aFolder, toPath: aFolder + ".aside")
            b.sync(expect: nil)
            XCTAssertEqual(try b.host("h1")?.port, 2222, "\(label): B took E's change before it knew")
            try FileManager.default.moveItem(atPath: aFolder + ".aside", toPath: aFolder)
        }

        // B syncs, learning of C's revocation in this run: E is refused and named, h1 is unchanged.
        let report = b.sync(expect: nil)
        let words = ([report.reason ?? ""] + report.warnings + report.skipped).joined(separator: "\n")
        if lateRevocation {
            XCTAssertTrue(
                words.contains("held values from e (\(e.id.prefix(8))), which c enrolled after its revocation"),
                "\(label): \(words)")
            XCTAssertTrue(try b.store.conflicts().contains { $0.why == "revoked" && $0.field == "endpoint" }, label)
        } else {
            XCTAssertTrue(
                words.contains("entries from device \(e.id.prefix(8)), which is not an enrolled device, refused"),
                "\(label): \(words)")
        }
        let after = try XCTUnwrap(try b.host("h1"), label)
        XCTAssertEqual(after.port, before.port, label)
        XCTAssertEqual(after.pinnedHostKey, before.pinnedHostKey, label)
        XCTAssertEqual(after.hostname, "real.example", label)
        XCTAssertNil(try b.host("e-added"), label)
        XCTAssertFalse(try GroupInfo.devices(b.store).contains { $0.name == "e" && $0.revokedBy == nil }, label)

        // Nothing of E is republished: A takes B's entries and holds what it held.
        b.sync(expect: nil)
        a.sync(expect: nil)
        let onA = try XCTUnwrap(try a.host("h1"), label)
        XCTAssertEqual(onA.port, 22, label)
        XCTAssertEqual(onA.pinnedHostKey, before.pinnedHostKey, label)
        XCTAssertNil(try a.host("e-added"), label)
        XCTAssertEqual(try a.state(), try b.state(), label)
    }
}

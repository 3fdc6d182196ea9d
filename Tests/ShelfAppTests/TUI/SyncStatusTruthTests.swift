// What the status line and `sync status` say, produced by real sync runs of the binary (no hand-written status
// file): a device that never joined, one waiting to be enrolled, unseen conflicts until they are marked seen, the
// credential track's notice, a revoked device naming who revoked it, and a tampered entry refused with its reason —
// read by the TUI's own reader of the status file, and once on a real TUI's status line.
import Foundation
@testable import ShelfTUIApp
import ShelfCore
import ShelfUI
import TestSupport
import XCTest

final class SyncStatusTruthTests: XCTestCase {
    /// The name sshelf gives this device in the roster: the host name.
    let deviceName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    func notes(_ home: TempHome) -> [SyncNote] {
        SyncFileNotes.read(DataLocations.resolve(environment: home.environment))
    }

    func status(_ home: TempHome) throws -> [String: Any] {
        try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("sync", "status", "--json").stdout.utf8))
                as? [String: Any])
    }

    func testTheStatusLinesNotesComeFromRealRuns() throws {
        let remote = try syncRemote("truth")
        let a = syncHome(), b = syncHome(), c = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertEqual(notes(a), [])

        // Never joined: told so, and nothing on the line claims it waits for anyone.
        XCTAssertExit(try c.run("sync", "enable", "--folder", remote), 0)
        XCTAssertEqual(notes(c), [])
        XCTAssertNil(try status(c)["membership"])
        XCTAssertTrue(
            try c.run("sync", "status").stdout.contains(
                "▲ local fallback: this device is not enrolled in the sync group on this remote"))

        // Joined, not enrolled yet: waiting, on the line and in status.
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        let code = try inviteCode(try a.run("sync", "invite"))
        XCTAssertExit(try b.run(["sync", "join", "--code-fd", "3"], fd3: code), 0)
        XCTAssertEqual(notes(b), [SyncNote("waiting to be enrolled by another device", .warning)])
        XCTAssertEqual(try status(b)["membership"] as? String, "waiting")
        XCTAssertTrue(
            try b.run("sync", "status").stdout.contains("▲ local fallback: waiting to be enrolled (invited by "))
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertEqual(notes(b), [])

        // A conflict: on the line until marked seen — at once, without another run.
        XCTAssertExit(try a.run("edit", "web", "--user", "alice"), 0)
        XCTAssertExit(try b.run("edit", "web", "--user", "bob"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertEqual(notes(b), [SyncNote("1 merge conflict: C lists them", .warning)])
        // The remote goes away: the reason changes, the unseen conflict stays on the line.
        try FileManager.default.moveItem(atPath: remote, toPath: remote + ".away")
        XCTAssertExit(try b.run("sync", "now"), 1)
        XCTAssertEqual(notes(b), [SyncNote("1 merge conflict: C lists them", .warning)])
        try FileManager.default.moveItem(atPath: remote + ".away", toPath: remote)
        XCTAssertExit(try b.run("sync", "conflicts", "--seen"), 0)
        XCTAssertEqual(notes(b), [])

        // Credentials sent by A, not taken by B: the notice.
        XCTAssertExit(try a.run(["vault", "set-password", "web", "--secret-fd", "3"], fd3: "CANARY-web-password"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--credentials", "--yes", "--accept-no-passphrase"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertEqual(notes(b), [SyncNote("credentials not joined on this device", .info)])

        // Revoked: the device says so, and by whom.
        try enroll(c, by: a)
        let cID = try XCTUnwrap(try status(c)["device"] as? String)
        XCTAssertExit(try a.run("sync", "revoke", String(cID.prefix(8)), "--yes"), 0)
        XCTAssertExit(try c.run("sync", "now"), 1)
        // (C, enrolled after the conflict, may list it too: it saw both values arrive.)
        XCTAssertEqual(notes(c).first, SyncNote("this device was revoked from the sync group", .error))
        XCTAssertEqual(try status(c)["membership"] as? String, "revoked")
        XCTAssertTrue(try c.run("sync", "status").stdout.contains("▲ local fallback: revoked by \(deviceName) on "))
        // It stays revoked on the line when the remote is gone too.
        try FileManager.default.moveItem(atPath: remote, toPath: remote + ".away")
        XCTAssertExit(try c.run("sync", "now"), 1)
        XCTAssertEqual(notes(c).first, SyncNote("this device was revoked from the sync group", .error))
    }

    /// A real TUI: a tampered entry from the other device is refused by the TUI's own background run, with its
    /// reason in orange on the status line next to the unseen conflict, which goes when `sync conflicts --seen`
    /// runs in another terminal; `sync status` says the same.
    func testTheStatusLineShowsATamperedEntryAndAConflictUntilSeen() throws {
        let remote = try syncRemote("truth-tui")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        try enroll(b, by: a)
        XCTAssertExit(try a.run("edit", "web", "--user", "alice"), 0)
        XCTAssertExit(try b.run("edit", "web", "--user", "bob"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)

        // A's next entry, altered on the remote (its last byte: the signature).
        XCTAssertExit(try a.run("edit", "web", "--port", "2222"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        let aID = try XCTUnwrap(try status(a)["device"] as? String)
        let folder = remote + "/devices/" + aID
        let newest = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".entry") }.max())
        var bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + newest))
        bytes[bytes.count - 1] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: folder + "/" + newest))
        let seq = try XCTUnwrap(Int(newest.dropLast(6)))
        let reason =
            "▲ local fallback: tampered entry \(seq) from \(deviceName) (\(aID.prefix(8))): its "
            + "signature does not verify"

        let tui = try Tmux(home: b, columns: 240, environment: ["TERM": "tmux-256color"])
        let screen = try tui.waitFor("the tampered entry's reason", escapes: true) {
            $0.contains(reason) && $0.contains("1 merge conflict: C lists them")
        }
        let line = try XCTUnwrap(screen.split(separator: "\n").last { $0.contains(reason) })
        XCTAssertTrue(
            line[..<(line.range(of: reason)?.lowerBound ?? line.endIndex)].contains("38;5;208"),
            "orange expected: \(line)")
        XCTAssertTrue(try b.run("sync", "status").stdout.contains(reason))
        XCTAssertEqual(
            try b.run("show", "web").stdout.contains(":2222"), false, "nothing of the tampered entry was applied")

        XCTAssertExit(try b.run("sync", "conflicts", "--seen"), 0)
        try tui.waitFor("the conflict to leave the line") { $0.contains(reason) && !$0.contains("merge conflict") }
        try tui.send("q")
    }
}

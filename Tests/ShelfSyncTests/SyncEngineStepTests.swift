// SyncEngine.run's steps, each on its own: a joined device waits for its welcome; the chains are read and what
// stopped one is the report's reason; membership ends the run for a revoked or unenrolled device; the credential
// step gives the notice when others send credentials; the write step publishes this device's entry; what format 1
// left is removed with a warning.
import Foundation
import ShelfCore
import ShelfStore
@testable import ShelfSync
import ShelfVault
import TestSupport
import XCTest

final class SyncEngineStepTests: XCTestCase {
    func engine(_ device: Device, remote: String) -> SyncEngine {
        SyncEngine(
            store: device.store, remote: FolderRemote(path: remote), vault: device.vault, deviceName: device.name)
    }

    func session(_ device: Device) throws -> SyncSession {
        let state = try XCTUnwrap(try GroupState.load(device.store))
        return try SyncSession(
            store: device.store, vault: device.vault, keys: try device.keys(), me: device.uuid, deviceName: device.name,
            now: Date(), state: state)
    }

    func group() throws -> (remote: String, a: Device, b: Device) {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        return (remote, a, b)
    }

    func testWelcome() throws {
        let remote = try makeFolder()
        let a = try Device("a"), c = try Device("c")
        for device in [a, c] { try device.enable(folder: remote) }
        a.sync()
        let code = try a.invite()
        a.sync()
        try c.join(code)
        var report = SyncReport(state: .synced, at: Date())
        XCTAssertFalse(try engine(c, remote: remote).welcome(report: &report), "no welcome yet: the run ends")
        XCTAssertEqual(report.membership, "waiting")
        XCTAssertEqual(report.reason, "waiting to be enrolled (invited by a)")
        a.sync()
        var enrolled = SyncReport(state: .synced, at: Date())
        XCTAssertTrue(try engine(c, remote: remote).welcome(report: &enrolled))
        XCTAssertEqual(enrolled.events, ["enrolled in the sync group by a"])
        var member = SyncReport(state: .synced, at: Date())
        XCTAssertTrue(try engine(a, remote: remote).welcome(report: &member), "a member goes on at once")
    }

    func testReadChains() throws {
        let (remote, a, b) = try group()
        _ = try b.add("web")
        b.sync()
        var report = SyncReport(state: .synced, at: Date())
        try engine(a, remote: remote).readChains(try session(a), report: &report)
        XCTAssertEqual(report.pulled, 1)
        XCTAssertNotNil(try a.host("web"))
        let next = (try FolderRemote(path: remote).entries(of: b.id).last ?? 0) + 1
        try Forger(b).place(Array("garbage".utf8), device: b.id, seq: next)
        var stopped = SyncReport(state: .synced, at: Date())
        try engine(a, remote: remote).readChains(try session(a), report: &stopped)
        XCTAssertEqual(stopped.state, .localFallback)
        XCTAssertTrue(
            stopped.reason?.hasPrefix("entry \(next) from b (\(b.id.prefix(8))) is damaged") == true,
            stopped.reason ?? "")
    }

    func testMembership() throws {
        let (remote, a, b) = try group()
        var member = SyncReport(state: .synced, at: Date())
        XCTAssertTrue(try engine(a, remote: remote).membership(try session(a), report: &member))
        XCTAssertEqual(member.membership, "member")
        a.sync(revoke: b.uuid)
        b.sync(expect: .localFallback)
        var revoked = SyncReport(state: .synced, at: Date())
        XCTAssertFalse(try engine(b, remote: remote).membership(try session(b), report: &revoked))
        XCTAssertEqual(revoked.membership, "revoked")
        XCTAssertTrue(revoked.reason?.hasPrefix("revoked by a on ") == true, revoked.reason ?? "")
    }

    func testCredentialsNotice() throws {
        let (remote, a, b) = try group()
        var peer = try a.store.peer(b.id)
        peer.credentials = peer.head
        try a.store.write { try $0.savePeer(peer) }
        var report = SyncReport(state: .synced, at: Date())
        let (own, failure) = try engine(a, remote: remote).credentials(try session(a), report: &report)
        XCTAssertNil(own)
        XCTAssertNil(failure)
        XCTAssertEqual(report.notice, "credentials not joined on this device")
    }

    func testWriteAndRemoveFormatOne() throws {
        let (remote, a, _) = try group()
        _ = try a.add("new")
        let before = try FolderRemote(path: remote).entries(of: a.id).last ?? 0
        var report = SyncReport(state: .synced, at: Date())
        try engine(a, remote: remote).write(try session(a), ownSet: nil, format: 2, report: &report)
        XCTAssertEqual(try FolderRemote(path: remote).entries(of: a.id).last, before + 1)
        XCTAssertEqual(report.pushed, 1)

        let layout = RemoteLayout(root: remote)
        try FileManager.default.createDirectory(
            atPath: layout.deviceDirectory(a.id) + "/config", withIntermediateDirectories: true)
        try "{}".write(
            toFile: layout.deviceDirectory(a.id) + "/config/00000001.jsonl", atomically: true, encoding: .utf8)
        var cleaned = SyncReport(state: .synced, at: Date())
        engine(a, remote: remote).removeFormatOne(report: &cleaned)
        XCTAssertEqual(cleaned.removedFormatOne, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: layout.deviceDirectory(a.id) + "/config/00000001.jsonl"))
    }
}

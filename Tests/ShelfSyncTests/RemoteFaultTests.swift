// Broken remotes: every fallback reason produced for real, and bad files in the remote skipped with a reason
// while the rest still syncs and nothing local is lost.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class RemoteFaultTests: XCTestCase {
    func fallback(_ device: Device) -> String {
        let report = SyncRunner.run(store: device.store, locations: device.locations, deviceName: "t")
        XCTAssertEqual(report.state, .localFallback)
        XCTAssertEqual(SyncRunner.lastReport(device.locations)?.reason, report.reason, "the status is saved for sync status and the TUI")
        return report.reason ?? ""
    }

    func testFolderFallbackReasons() throws {
        let device = try Device()
        _ = try device.add("kept")
        let base = try makeFolder()
        try device.enable(folder: base + "/missing")
        XCTAssertEqual(fallback(device), "sync folder \(base)/missing not found")

        XCTAssertTrue(FileManager.default.createFile(atPath: base + "/file", contents: Data("x".utf8)))
        try device.enable(folder: base + "/file")
        XCTAssertEqual(fallback(device), "sync folder \(base)/file is not a directory")

        try FileManager.default.createDirectory(atPath: base + "/newer", withIntermediateDirectories: true)
        try #"{"format":99}"#.write(toFile: base + "/newer/format.json", atomically: true, encoding: .utf8)
        try device.enable(folder: base + "/newer")
        XCTAssertEqual(fallback(device), "remote format 99 is newer than this program (1)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/newer/devices"), "nothing written to a newer remote")
        XCTAssertNotNil(try device.host("kept"), "the local store is untouched")
    }

    func testReadOnlyFolderFallsBack() throws {
        // Root ignores permission bits, so a read-only file system is the honest way to get "not writable".
        let mountPoint = try makeFolder("ro")
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", mountPoint]
        try mount.run()
        mount.waitUntilExit()
        try XCTSkipIf(mount.terminationStatus != 0, "cannot mount a read-only tmpfs here")
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [mountPoint]
            try? umount.run()
            umount.waitUntilExit()
        }
        let device = try Device()
        try device.enable(folder: mountPoint)
        XCTAssertEqual(fallback(device), "sync folder \(mountPoint) is not writable")
    }

    func testBadRemoteFilesAreSkippedWithReasonsAndTheRestSyncs() throws {
        let remote = try makeFolder()
        let a = try Device(), b = try Device()
        try a.enable(folder: remote)
        try b.enable(folder: remote)
        let good = try a.add("good")
        a.sync()
        let aID = try a.store.deviceID
        let layout = RemoteLayout(root: remote)
        let dir = layout.configDirectory(aID)
        // Truncated (a sync tool still copying), garbage, oversized, a record claiming another device, a newer
        // record format; and a folder impersonating device A.
        try Data(#"{"v":1,"kind":"host","id":"#.utf8).write(to: URL(fileURLWithPath: dir + "/00000010.jsonl"))
        try Data([0xff, 0x00, 0x13, 0x37, 0x0a]).write(to: URL(fileURLWithPath: dir + "/00000011.jsonl"))
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/00000012.jsonl", contents: nil))
        let oversized = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/00000012.jsonl"))
        try oversized.truncate(atOffset: UInt64(RemoteLayout.maxBatchBytes + 1))
        try oversized.close()
        let other = UUID().uuidString.lowercased()
        try #"{"v":1,"kind":"host","id":"\#(UUID().uuidString.lowercased())","wall":9999999999999,"counter":0,"device":"\#(other)","body":{"name":"forged","hostname":"f"}}"#
            .appending("\n").write(toFile: dir + "/00000013.jsonl", atomically: true, encoding: .utf8)
        try #"{"v":7,"kind":"host","id":"\#(UUID().uuidString.lowercased())","wall":1,"counter":0,"device":"\#(aID)"}"#
            .appending("\n").write(toFile: dir + "/00000014.jsonl", atomically: true, encoding: .utf8)
        let impostor = UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: layout.configDirectory(impostor), withIntermediateDirectories: true)
        try #"{"id":"\#(aID)","name":"evil","format":1}"#.write(toFile: layout.deviceFile(impostor), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: dir + "/00000001.jsonl", toPath: layout.configDirectory(impostor) + "/00000001.jsonl")
        // And one more good change after all of that.
        let later = try a.add("later")
        a.sync()

        let _ = try b.add("mine")
        let report = b.sync()
        let skipped = report.skipped.joined(separator: "\n")
        XCTAssertTrue(skipped.contains("00000010.jsonl: truncated"), skipped)
        XCTAssertTrue(skipped.contains("00000011.jsonl: truncated") || skipped.contains("00000011.jsonl: line 1 is not a valid record"), skipped)
        XCTAssertTrue(skipped.contains("00000012.jsonl: larger than 64 MiB"), skipped)
        XCTAssertTrue(skipped.contains("00000013.jsonl: line 1 claims device \(other)"), skipped)
        XCTAssertTrue(skipped.contains("00000014.jsonl: line 1 is not a valid record (record format 7 is newer"), skipped)
        XCTAssertTrue(skipped.contains("claims to be device \(aID)"), skipped)
        XCTAssertNotNil(try b.store.host(id: good.id))
        XCTAssertNotNil(try b.store.host(id: later.id))
        XCTAssertNil(try b.host("forged"))
        XCTAssertNotNil(try b.host("mine"))
        XCTAssertEqual(try b.store.hosts().count, 3)
    }

    func testGitRemoteTwoDevicesAndFailures() throws {
        let base = try makeFolder("git")
        let bare = base + "/remote.git"
        XCTAssertEqual(try git(["init", "--quiet", "--bare", bare], in: base), 0)
        let a = try Device(), b = try Device()
        try SyncSettings(transport: .git, location: "file://" + bare).save(to: a.store)
        try SyncSettings(transport: .git, location: "file://" + bare).save(to: b.store)
        _ = try a.add("from-a")
        a.sync()
        _ = try b.add("from-b")
        b.sync()
        a.sync()
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertEqual(try a.store.hosts().map(\.name).sorted(), ["from-a", "from-b"])
        // Concurrent pushes: both devices change, each push has to pull first.
        _ = try a.add("a2")
        _ = try b.add("b2")
        a.sync(); b.sync(); a.sync()
        XCTAssertEqual(try a.state(), try b.state())

        // A server that rejects pushes: the reason names git's refusal.
        let hook = bare + "/hooks/pre-receive"
        try "#!/bin/sh\necho 'pushes are frozen' >&2\nexit 1\n".write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        _ = try a.add("a3")
        XCTAssertTrue(fallback(a).hasPrefix("git push rejected after 3 attempts:"))

        let c = try Device()
        try SyncSettings(transport: .git, location: "file://" + base + "/nowhere.git").save(to: c.store)
        XCTAssertTrue(fallback(c).hasPrefix("git remote unreachable:"))
    }

    @discardableResult
    func git(_ arguments: [String], in directory: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

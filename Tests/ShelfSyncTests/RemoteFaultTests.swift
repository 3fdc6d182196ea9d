// Broken remotes: every fallback reason produced for real, and damaged files in one device's chain reported with
// that device's name while the other chains still sync and nothing local is lost.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import TestSupport
import XCTest

final class RemoteFaultTests: XCTestCase {
    func fallback(_ device: Device) -> String {
        let report = device.sync(expect: .localFallback)
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
        XCTAssertEqual(fallback(device), "remote format 99 is newer than this program (2)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/newer/devices"), "nothing written to a newer remote")

        try FileManager.default.createDirectory(atPath: base + "/odd", withIntermediateDirectories: true)
        try "not json".write(toFile: base + "/odd/format.json", atomically: true, encoding: .utf8)
        try device.enable(folder: base + "/odd")
        XCTAssertEqual(fallback(device), "sync folder \(base)/odd has an unreadable format.json")
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

    /// Damage in A's chain — a half-copied file, garbage, an oversized file, a symlink — is reported naming A; B
    /// still syncs with C, and nothing is lost.
    func testDamagedEntriesAreReportedWithTheirDeviceAndTheRestSyncs() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b"), c = try Device("c")
        for device in [a, b, c] { try device.enable(folder: remote) }
        try formGroup([a, b, c])
        let layout = RemoteLayout(root: remote)
        _ = try a.add("from-a")
        a.sync()
        let next = (FolderRemote(path: remote).entries(of: a.id).last ?? 0) + 1
        let good = try Data(contentsOf: URL(fileURLWithPath: layout.entryPath(a.id, next - 1)))

        func check(_ damage: () throws -> Void, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
            try damage()
            _ = try c.add("from-c-\(UUID().uuidString.prefix(4))")
            c.sync(expect: .localFallback)
            let report = b.sync(expect: .localFallback, file: file, line: line)
            XCTAssertTrue(report.reason?.contains(expected) == true, "\(report.reason ?? "") lacks \(expected)", file: file, line: line)
            XCTAssertTrue(report.reason?.contains("(\(a.id.prefix(8)))") == true, "the reason names device A", file: file, line: line)
            XCTAssertEqual(try b.store.hosts().count, try c.store.hosts().count, "C's chain still syncs", file: file, line: line)
            try? FileManager.default.removeItem(atPath: layout.entryPath(a.id, next))
        }
        try check({ try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: layout.entryPath(a.id, next))) }, "is damaged")
        try check({ try Data([0xff, 0, 0x13, 0x37]).write(to: URL(fileURLWithPath: layout.entryPath(a.id, next))) }, "is damaged")
        try check({
            XCTAssertTrue(FileManager.default.createFile(atPath: layout.entryPath(a.id, next), contents: nil))
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: layout.entryPath(a.id, next)))
            try handle.truncate(atOffset: UInt64(RemoteLayout.maxEntryBytes + 1))
            try handle.close()
        }, "larger than 128 MiB")
        try check({ try FileManager.default.createSymbolicLink(atPath: layout.entryPath(a.id, next), withDestinationPath: "/etc/passwd") },
                  "not a regular file")
        // Once the damage is gone, A's chain goes on where it stopped.
        _ = try a.add("later")
        a.sync()
        b.sync()
        XCTAssertNotNil(try b.host("later"))
        XCTAssertNotNil(try b.host("from-a"))
    }

    func testGitRemoteTwoDevicesAndFailures() throws {
        let repository = try makeBareRepository()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(git: repository.url) }
        _ = try a.add("from-a")
        _ = try b.add("from-b")
        try formGroup([a, b])
        a.sync()
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertEqual(try a.store.hosts().map(\.name).sorted(), ["from-a", "from-b"])
        // Concurrent pushes: both devices change, each push has to pull first.
        _ = try a.add("a2")
        _ = try b.add("b2")
        a.sync(); b.sync(); a.sync()
        XCTAssertEqual(try a.state(), try b.state())

        // A server that rejects pushes: the reason names git's refusal.
        let hook = repository.path + "/hooks/pre-receive"
        try "#!/bin/sh\necho 'pushes are frozen' >&2\nexit 1\n".write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        _ = try a.add("a3")
        XCTAssertTrue(fallback(a).hasPrefix("git push rejected after 3 attempts:"))

        let c = try Device("c")
        try c.enable(git: "file://" + (repository.path as NSString).deletingLastPathComponent + "/nowhere.git")
        XCTAssertTrue(fallback(c).hasPrefix("git remote unreachable:"))
    }
}

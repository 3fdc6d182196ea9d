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
        XCTAssertEqual(
            SyncRunner.lastReport(device.locations)?.reason, report.reason,
            "the status is saved for sync status and the TUI")
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
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: base + "/newer/devices"), "nothing written to a newer remote")

        try FileManager.default.createDirectory(atPath: base + "/odd", withIntermediateDirectories: true)
        try "not json".write(toFile: base + "/odd/format.json", atomically: true, encoding: .utf8)
        try device.enable(folder: base + "/odd")
        XCTAssertEqual(fallback(device), "sync folder \(base)/odd has an unreadable format.json")
        XCTAssertNotNil(try device.host("kept"), "the local store is untouched")
    }

    /// A sync folder that goes away after a run checked it (a share unmounted, the folder renamed) is never made
    /// again by the run's writes: they fail with "not found", and nothing appears under the old name (an empty
    /// local folder there would be taken for the remote next time, and would fill a mount point).
    func testAFolderThatGoesAwayDuringARunIsNeverMadeAgain() throws {
        let base = try makeFolder()
        let root = base + "/share"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let remote = FolderRemote(path: root)
        XCTAssertEqual(try remote.check(), 0, "usable when the run looked")
        try FileManager.default.moveItem(atPath: root, toPath: root + "-renamed")
        let device = UUID().uuidString.lowercased()
        XCTAssertThrowsError(try remote.writeEntry(device, 1, Array("entry".utf8))) { error in
            XCTAssertEqual((error as? SyncFailure)?.reason, "sync folder \(root) not found", "\(error)")
        }
        XCTAssertThrowsError(try remote.writeInviteBox(UUID(), Array("box".utf8)))
        XCTAssertThrowsError(try remote.writeClaim(UUID(), device: device, Array("claim".utf8)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root), "the old name stays empty")
        // Back under its name: the writes go in below it, as before.
        try FileManager.default.moveItem(atPath: root + "-renamed", toPath: root)
        try remote.writeEntry(device, 1, Array("entry".utf8))
        XCTAssertTrue(FileManager.default.fileExists(atPath: remote.layout.entryPath(device, 1)))
    }

    /// A remote flooded with empty device folders stops the run with a reason saying so, at once, instead of a
    /// run that lists and looks into every one of them (100,000 once took 13.6 s a run).
    func testAFloodOfDeviceFoldersIsAFallbackNotAWait() throws {
        let remote = try makeFolder()
        let a = try Device("a")
        try a.enable(folder: remote)
        _ = try a.add("kept")
        a.sync()
        let devices = RemoteLayout(root: remote).devicesDirectory
        for _ in 0..<(RemoteLayout.maxDeviceFolders + 10) {
            XCTAssertEqual(mkdir(devices + "/" + UUID().uuidString.lowercased(), 0o700), 0)
        }
        let report = a.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "\(devices) on the remote holds more than 1000 device folders; sync stops rather than read them all")
        XCTAssertNotNil(try a.host("kept"))
    }

    func testReadOnlyFolderFallsBack() throws {
        // Root ignores permission bits, so a read-only file system is the honest way to get "not writable".
        let mountPoint = try makeFolder("ro")
        let mount = Process()
        mount.executableURL = TestTool.mount.url
        mount.arguments = ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", mountPoint]
        try mount.run()
        mount.waitUntilExit()
        try skip(if: mount.terminationStatus != 0, "cannot mount a read-only tmpfs here")
        defer {
            let umount = Process()
            umount.executableURL = TestTool.umount.url
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
        let next = (try FolderRemote(path: remote).entries(of: a.id).last ?? 0) + 1
        let good = try Data(contentsOf: URL(fileURLWithPath: layout.entryPath(a.id, next - 1)))

        func check(_ damage: () throws -> Void, _ expected: String, file: StaticString = #filePath, line: UInt = #line)
            throws
        {
            try damage()
            _ = try c.add("from-c-\(UUID().uuidString.prefix(4))")
            c.sync(expect: .localFallback)
            let report = b.sync(expect: .localFallback, file: file, line: line)
            XCTAssertTrue(
                report.reason?.contains(expected) == true, "\(report.reason ?? "") lacks \(expected)", file: file,
                line: line)
            XCTAssertTrue(
                report.reason?.contains("(\(a.id.prefix(8)))") == true, "the reason names device A", file: file,
                line: line)
            XCTAssertEqual(
                try b.store.hosts().count, try c.store.hosts().count, "C's chain still syncs", file: file, line: line)
            try? FileManager.default.removeItem(atPath: layout.entryPath(a.id, next))
        }
        try check(
            { try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: layout.entryPath(a.id, next))) },
            "is damaged")
        try check(
            { try Data([0xff, 0, 0x13, 0x37]).write(to: URL(fileURLWithPath: layout.entryPath(a.id, next))) },
            "is damaged")
        try check(
            {
                XCTAssertTrue(FileManager.default.createFile(atPath: layout.entryPath(a.id, next), contents: nil))
                let handle = try XCTUnwrap(FileHandle(forWritingAtPath: layout.entryPath(a.id, next)))
                try handle.truncate(atOffset: UInt64(RemoteLayout.maxEntryBytes + 1))
                try handle.close()
            }, "larger than 64 MiB")
        // 120 MB (the size that once cost 359 MiB to read): refused on its size, before a byte is read.
        try check(
            {
                XCTAssertTrue(FileManager.default.createFile(atPath: layout.entryPath(a.id, next), contents: nil))
                let handle = try XCTUnwrap(FileHandle(forWritingAtPath: layout.entryPath(a.id, next)))
                try handle.truncate(atOffset: 120_000_000)
                try handle.close()
            }, "larger than 64 MiB")
        try check(
            {
                try FileManager.default.createSymbolicLink(
                    atPath: layout.entryPath(a.id, next), withDestinationPath: "/etc/passwd")
            },
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

        // A server that rejects pushes (hooks never run, so by its own setting): the reason names git's refusal.
        try Shell.run(TestTool.git.path, ["-C", repository.path, "config", "receive.maxInputSize", "1"])
        _ = try a.add("a3")
        XCTAssertTrue(fallback(a).hasPrefix("git push rejected after 3 attempts:"))

        let c = try Device("c")
        try c.enable(git: "file://" + (repository.path as NSString).deletingLastPathComponent + "/nowhere.git")
        XCTAssertTrue(fallback(c).hasPrefix("git remote unreachable:"))
    }
}

/// Links and special files the remote plants where sync expects its own folders and files: sync never follows a
/// link out of the remote (a `devices/ID -> ~/.ssh` link once made the format-1 clean-up delete `~/.ssh/config`), never
/// changes a mode or writes a file outside it, never blocks on a FIFO, and says what it found.
final class RemoteLinkTests: XCTestCase {
    /// A folder outside the remote holding files with the names sync writes or removes, and its mode.
    func victim() throws -> (path: String, files: [String: Data]) {
        let path = try makeFolder("victim")
        chmod(path, 0o755)
        let files = [
            "config": "Host keep-me\n", "credentials": "[default]\n", "device.json": "{}\n",
            "0000000001.entry": "not sync's", "0000000002.entry": "not sync's either",
        ].mapValues { Data($0.utf8) }
        for (name, data) in files { try data.write(to: URL(fileURLWithPath: path + "/" + name)) }
        return (path, files)
    }

    func assertUntouched(
        _ victim: (path: String, files: [String: Data]), file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: victim.path).sorted(), victim.files.keys.sorted(),
            "nothing removed or added outside the remote", file: file, line: line)
        for (name, data) in victim.files {
            XCTAssertEqual(
                FileManager.default.contents(atPath: victim.path + "/" + name), data, name, file: file, line: line)
        }
        var info = stat()
        XCTAssertEqual(stat(victim.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o755, "the folder's mode was not changed", file: file, line: line)
    }

    /// A writer of the remote swapping a format-1 device folder with a link to another folder, over and over
    /// (`renameat2(RENAME_EXCHANGE)` in a loop on its own thread), while the clean-up runs: the folder outside the
    /// remote keeps every file. (Checked by path, the check and the removal could meet different folders: the
    /// victim's `config`, `device.json` and `credentials/aws` went in up to half of the runs.)
    func testTheFormatOneCleanUpCannotBeSwappedOntoAnotherFolder() throws {
        typealias Exchange = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        let exchange = unsafeBitCast(try XCTUnwrap(dlsym(nil, "renameat2"), "glibc's renameat2"), to: Exchange.self)
        let renameExchange: UInt32 = 2
        let remote = try makeFolder()
        let layout = RemoteLayout(root: remote)
        let victim = try makeFolder("victim")
        let kept: [String: Data] = [
            "config": Data("Host keep-me\n".utf8), "device.json": Data("{}\n".utf8),
            "credentials/aws": Data("[default]\n".utf8),
        ]
        try FileManager.default.createDirectory(atPath: victim + "/credentials", withIntermediateDirectories: true)
        for (name, data) in kept { try data.write(to: URL(fileURLWithPath: victim + "/" + name)) }
        let device = UUID().uuidString.lowercased(), swap = UUID().uuidString.lowercased()
        let real = layout.deviceDirectory(device), link = layout.deviceDirectory(swap)
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)

        final class Swapper: @unchecked Sendable {
            private let lock = NSLock()
            private var stop = false
            var stopped: Bool { lock.withLock { stop } }
            func finish() { lock.withLock { stop = true } }
        }
        var removed = 0
        for _ in 0..<300 {
            // The real folder under the device's name again, holding what format 1 wrote (and one file it did not,
            // so the folder itself stays).
            var info = stat()
            if lstat(real, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                XCTAssertEqual(exchange(AT_FDCWD, real, AT_FDCWD, link, renameExchange), 0)
            }
            try FileManager.default.createDirectory(atPath: real + "/config", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: real + "/credentials", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: real + "/config/hosts.jsonl"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: real + "/credentials/batch"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: real + "/device.json"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: real + "/keep"))
            let swapper = Swapper()
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                for _ in 0..<200_000 where !swapper.stopped {
                    _ = exchange(AT_FDCWD, real, AT_FDCWD, link, renameExchange)
                }
                done.signal()
            }
            removed += FolderRemote(path: remote).removeFormatOneFiles()
            swapper.finish()
            done.wait()
        }
        for (name, data) in kept {
            XCTAssertEqual(
                FileManager.default.contents(atPath: victim + "/" + name), data,
                "\(name) outside the remote was removed")
        }
        XCTAssertGreaterThan(removed, 0, "the clean-up ran on the real folder")
    }

    func testLinksToFoldersOutsideTheRemoteAreNeverFollowed() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        let layout = RemoteLayout(root: remote)
        let target = try victim()

        // A device folder that is a link (under a format-1 device's name, and under a device id nobody enrolled): the
        // format-1 clean-up does not reach through it, and the folder is reported, not read.
        let planted = UUID().uuidString.lowercased()
        try FileManager.default.createSymbolicLink(
            atPath: layout.deviceDirectory(planted), withDestinationPath: target.path)
        try FileManager.default.createSymbolicLink(
            atPath: layout.devicesDirectory + "/evil", withDestinationPath: target.path)
        let linked = b.sync(expect: .localFallback)
        XCTAssertEqual(
            linked.reason, "devices/\(planted) on the remote is a symbolic link, not a folder; sync does not follow it")
        XCTAssertEqual(linked.removedFormatOne, 0)
        try assertUntouched(target)
        try FileManager.default.removeItem(atPath: layout.deviceDirectory(planted))
        // A real format-1 device folder whose `config` folder holds a link, and whose `credentials` is one: the
        // links go, their targets stay.
        let old = layout.deviceDirectory(UUID().uuidString.lowercased())
        try FileManager.default.createDirectory(atPath: old + "/config", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: old + "/config/00000001.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: old + "/config/inner", withDestinationPath: target.path)
        try FileManager.default.createSymbolicLink(
            atPath: old + "/credentials", withDestinationPath: target.path + "/credentials")
        XCTAssertEqual(b.sync().removedFormatOne, 1, "the one real format-1 file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        try assertUntouched(target)

        // This device's own folder replaced by a link: the link goes (never what it points to), the chain is
        // published again in a real folder, and the other device reads it.
        _ = try a.add("after-the-link")
        try FileManager.default.removeItem(atPath: layout.deviceDirectory(a.id))
        try FileManager.default.createSymbolicLink(
            atPath: layout.deviceDirectory(a.id), withDestinationPath: target.path)
        let healed = a.sync()
        XCTAssertTrue(
            healed.warnings.contains { $0.hasPrefix("the remote lost this device's entries") }, "\(healed.warnings)")
        try assertUntouched(target)
        XCTAssertEqual(
            FileManager.default.destinationOfSymbolicLinkOrNil(layout.deviceDirectory(a.id)), nil, "a real folder again"
        )
        b.sync()
        XCTAssertNotNil(try b.host("after-the-link"))

        // `devices` or `invites` itself a link: nothing is read through it, nothing written; the reason says what.
        for name in ["devices", "invites"] {
            let path = remote + "/" + name
            let aside = remote + "/" + name + ".real"
            if FileManager.default.fileExists(atPath: path) {
                try FileManager.default.moveItem(atPath: path, toPath: aside)
            }
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target.path)
            _ = try a.invite()
            let report = a.sync(expect: .localFallback)
            XCTAssertEqual(
                report.reason,
                "sync folder \(remote) holds '\(name)' as a symbolic link, not a folder; sync does not follow it")
            try assertUntouched(target)
            try FileManager.default.removeItem(atPath: path)
            if FileManager.default.fileExists(atPath: aside) {
                try FileManager.default.moveItem(atPath: aside, toPath: path)
            }
        }
        a.sync()
        b.sync()
        XCTAssertEqual(try a.state(), try b.state())
        try assertUntouched(target)
    }

    /// format.json as a FIFO (an open that would wait forever for a writer), as a link to an endless device, or
    /// huge: refused at once with the same reason; a FIFO where an entry should be is refused like any special file.
    func testSpecialFilesNeverBlockOrExhaustTheRun() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        let format = remote + "/format.json"
        let reason = "sync folder \(remote) has an unreadable format.json"

        try FileManager.default.removeItem(atPath: format)
        XCTAssertEqual(mkfifo(format, 0o600), 0)
        final class Run: @unchecked Sendable {
            let device: Device
            var report: SyncReport?
            let done = DispatchSemaphore(value: 0)
            init(_ device: Device) { self.device = device }
        }
        let run = Run(a)
        Thread.detachNewThread {
            run.report = run.device.sync(expect: nil)
            run.done.signal()
        }
        if run.done.wait(timeout: .now() + Deadline.scaled(Deadline.standard)) == .timedOut {
            // Let the blocked open go, so the test ends and says why.
            let writer = open(format, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            _ = run.done.wait(timeout: .now() + 10)
            XCTFail("a FIFO as format.json blocked the sync run")
        }
        XCTAssertEqual(run.report?.reason, reason)

        try FileManager.default.removeItem(atPath: format)
        try FileManager.default.createSymbolicLink(atPath: format, withDestinationPath: "/dev/zero")
        XCTAssertEqual(a.sync(expect: .localFallback).reason, reason)
        try FileManager.default.removeItem(atPath: format)
        try Data(repeating: 0x20, count: 1024 * 1024).write(to: URL(fileURLWithPath: format))
        XCTAssertEqual(a.sync(expect: .localFallback).reason, reason)
        try FileManager.default.removeItem(atPath: format)
        try Data("{\"format\":2}\n".utf8).write(to: URL(fileURLWithPath: format))

        let next = (try FolderRemote(path: remote).entries(of: a.id).last ?? 0) + 1
        XCTAssertEqual(mkfifo(RemoteLayout(root: remote).entryPath(a.id, next), 0o600), 0)
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "entry \(next) from a (\(a.id.prefix(8))) is unreadable: devices/\(a.id)/\(RemoteLayout.entryName(next)) "
                + "is not a regular file")
    }

    /// A remote that removes a device's whole folder rolled that device back to nothing: said so, not "synced".
    func testAWholeDeviceFolderRemovedIsARollback() throws {
        let remote = try makeFolder()
        let a = try Device("a"), b = try Device("b")
        for device in [a, b] { try device.enable(folder: remote) }
        try formGroup([a, b])
        _ = try a.add("web")
        a.sync()
        b.sync()
        let verified = try b.store.peer(a.id).head
        try FileManager.default.removeItem(atPath: RemoteLayout(root: remote).deviceDirectory(a.id))
        let report = b.sync(expect: .localFallback)
        XCTAssertEqual(
            report.reason,
            "rollback detected: a (\(a.id.prefix(8)))'s entries end at 0, this device has verified \(verified)")
        a.sync()
        XCTAssertEqual(b.sync().state, .synced, "the writer republished its chain")
    }
}

extension FileManager {
    /// Where a symbolic link points, or nil when `path` is not one.
    func destinationOfSymbolicLinkOrNil(_ path: String) -> String? { try? destinationOfSymbolicLink(atPath: path) }
}

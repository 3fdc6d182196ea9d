// CopyInterruptTests: a copy that does not end well leaves nothing behind — the first Ctrl-C stops a copy (one host
// or many), each host removing its temporary file; a host that stops answering is cut off after the connect timeout
// and its temporary file named with its path; a lost connection and a full disk likewise, both ways. The sources are
// large sparse files (free to make and to read; their copy takes a while), checked over SSH where the host's side
// is asked about.
import Foundation
import TestSupport
import XCTest

final class CopyInterruptTests: XCTestCase {
    /// One Ctrl-C stops a single-host upload: the process ends, and neither the file nor its temporary is left.
    func testTheFirstCtrlCStopsAnUpload() throws {
        let world = try FleetWorld(["a"])
        let big = world.home.root + "/big"
        CopyFiles.sparse(big, size: 16 << 30)
        let copy = try BackgroundSshelf(world.home, ["cp", big, "a:\(world.shared)/final.bin"])
        defer { if copy.process.isRunning { kill(copy.process.pid, SIGKILL) } }
        try eventually("a partial file under the temporary name", context: { copy.stdout + copy.stderr }) {
            CopyFiles.parts(world.shared).contains { CopyFiles.size(world.shared + "/" + $0) > 0 }
        }
        copy.interrupt()
        try eventually("sshelf ended after one Ctrl-C", context: { copy.stdout + copy.stderr }) {
            !copy.process.isRunning
        }
        XCTAssertEqual(copy.process.wait(), 1, copy.stdout + copy.stderr)
        XCTAssertTrue(copy.stderr.contains("running copies stop and remove their temporary files"), copy.stderr)
        XCTAssertTrue(copy.stdout.contains("a: killed: stopped by Ctrl-C"), copy.stdout)
        XCTAssertFalse(copy.stdout.contains("left behind"), copy.stdout)
        XCTAssertEqual(try CopyFiles.remoteParts(world, "a", world.shared), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.shared + "/final.bin"))
    }

    /// The same for a download: its temporary file here is removed.
    func testTheFirstCtrlCStopsADownload() throws {
        let world = try FleetWorld(["a"])
        let big = world.shared + "/big"
        CopyFiles.sparse(big, size: 16 << 30)
        let target = world.home.root + "/incoming"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let copy = try BackgroundSshelf(world.home, ["cp", "a:\(big)", target + "/final.bin"])
        defer { if copy.process.isRunning { kill(copy.process.pid, SIGKILL) } }
        try eventually("a partial file under the temporary name", context: { copy.stdout + copy.stderr }) {
            !CopyFiles.parts(target).isEmpty
        }
        copy.interrupt()
        try eventually("sshelf ended after one Ctrl-C", context: { copy.stdout + copy.stderr }) {
            !copy.process.isRunning
        }
        XCTAssertEqual(copy.process.wait(), 1, copy.stdout + copy.stderr)
        XCTAssertTrue(copy.stdout.contains("a: killed: stopped by Ctrl-C"), copy.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [])
    }

    /// An upload to three hosts, two Ctrl-Cs: a and b remove their temporary files (checked over SSH); c, whose
    /// server stopped answering before the Ctrl-C (its session processes stopped), is cut off after the connect
    /// timeout, and its line names the temporary file it left, with its path — the one .part file still there.
    func testAGroupUploadInterruptedTwiceLeavesNothingOnHostsItCanReachAndNamesTheRest() throws {
        let world = try FleetWorld(["a", "b"])
        let silent = try world.secondServer(["c"])
        let big = world.home.root + "/big"
        CopyFiles.sparse(big, size: 16 << 30)
        let dest = world.shared + "/dest"
        try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: true)
        chmod(dest, 0o777)
        let timeout = Int(Deadline.scaled(6))
        let copy = try BackgroundSshelf(world.home, ["cp", "--timeout", "\(timeout)", big, "@prod:\(dest)/"])
        var stopped: [pid_t] = []
        defer {
            for pid in stopped { kill(pid, SIGCONT) }
            if copy.process.isRunning { kill(copy.process.pid, SIGKILL) }
        }
        try eventually("three partial files", context: { copy.stdout + copy.stderr }) {
            CopyFiles.parts(dest).filter { CopyFiles.size(dest + "/" + $0) > 0 }.count == 3
        }
        stopped = try silent.sessionPIDs()
        XCTAssertFalse(stopped.isEmpty)
        for pid in stopped { kill(pid, SIGSTOP) }
        copy.interrupt()
        try eventually("sshelf said it stops", context: { copy.stderr }) { copy.stderr.contains("stopping:") }
        copy.interrupt()
        try eventually("sshelf ended", context: { copy.stdout + copy.stderr }) { !copy.process.isRunning }
        XCTAssertEqual(copy.process.wait(), 1, copy.stdout + copy.stderr)
        let output = copy.stdout
        XCTAssertTrue(output.contains("a: killed: stopped by Ctrl-C"), output)
        XCTAssertTrue(output.contains("b: killed: stopped by Ctrl-C"), output)
        XCTAssertEqual(output.components(separatedBy: "left behind").count - 1, 1, "only c left one: \(output)")
        let line = try XCTUnwrap(output.split(separator: "\n").first { $0.hasPrefix("c: ") }, output)
        XCTAssertTrue(
            line.contains("left behind on the host (it could not be reached to remove it): \(dest)/.big.sshelf-"),
            String(line))
        let parts = CopyFiles.parts(dest)
        XCTAssertEqual(parts.count, 1, "c's alone: \(parts)")
        XCTAssertTrue(line.contains("\(dest)/\(parts.first ?? "?")"), "the path named is the file left: \(line)")
        for pid in stopped { kill(pid, SIGCONT) }
        stopped = []
        // What a and b show over SSH: only c's file, which the report named (and the test now removes).
        XCTAssertEqual(try CopyFiles.remoteParts(world, "a", dest), parts)
        try FileManager.default.removeItem(atPath: dest + "/" + parts[0])
        XCTAssertEqual(try CopyFiles.remoteParts(world, "b", dest), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dest + "/big"))
    }

    /// The connection lost mid-copy (the server's session killed): the upload names the temporary file it could not
    /// remove on the host; the download removes its own here.
    func testALostConnectionNamesWhatItLeftOnTheHost() throws {
        let world = try FleetWorld(["a"])
        let big = world.home.root + "/big"
        CopyFiles.sparse(big, size: 16 << 30)
        let up = try BackgroundSshelf(world.home, ["cp", big, "a:\(world.shared)/final.bin"])
        defer { if up.process.isRunning { kill(up.process.pid, SIGKILL) } }
        try eventually("a partial file on the host", context: { up.stdout + up.stderr }) {
            CopyFiles.parts(world.shared).contains { CopyFiles.size(world.shared + "/" + $0) > 0 }
        }
        XCTAssertGreaterThan(try world.sshd.killSessions(), 0)
        try eventually("sshelf ended", context: { up.stdout + up.stderr }) { !up.process.isRunning }
        XCTAssertEqual(up.process.wait(), 1, up.stdout + up.stderr)
        let parts = CopyFiles.parts(world.shared)
        XCTAssertEqual(parts.count, 1)
        XCTAssertTrue(
            up.stdout.contains(
                "left behind on the host (it could not be reached to remove it): "
                    + "\(world.shared)/\(parts.first ?? "?")"),
            up.stdout)

        let remote = world.shared + "/remote-big"
        CopyFiles.sparse(remote, size: 16 << 30)
        let target = world.home.root + "/incoming"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let down = try BackgroundSshelf(world.home, ["cp", "a:\(remote)", target + "/final.bin"])
        defer { if down.process.isRunning { kill(down.process.pid, SIGKILL) } }
        try eventually("a partial file here", context: { down.stdout + down.stderr }) {
            CopyFiles.parts(target).contains { CopyFiles.size(target + "/" + $0) > 0 }
        }
        XCTAssertGreaterThan(try world.sshd.killSessions(), 0)
        try eventually("sshelf ended", context: { down.stdout + down.stderr }) { !down.process.isRunning }
        XCTAssertEqual(down.process.wait(), 1, down.stdout + down.stderr)
        XCTAssertFalse(down.stdout.contains("left behind"), down.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [])
    }

    /// A full disk (a 1 MiB tmpfs) on either side: the copy fails saying so, and no temporary file stays.
    func testAFullDiskLeavesNothingBehind() throws {
        let world = try FleetWorld(["a"])
        let small = world.home.root + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        let mounted = try? Shell.run(TestTool.mount.path, ["-t", "tmpfs", "-o", "size=1m,mode=0777", "tmpfs", small])
        try skip(if: mounted == nil, "cannot mount a tmpfs here")
        defer { _ = try? Shell.run(TestTool.umount.path, [small]) }
        let data = world.home.root + "/data"
        try CopyFiles.make(data, count: 4 << 20)
        let up = try world.home.run("cp", data, "a:\(small)/up.bin")
        XCTAssertExit(up, 1)
        XCTAssertTrue(up.stdout.contains("a: failed: "), up.stdout)
        XCTAssertEqual(try CopyFiles.remoteParts(world, "a", small), [])

        try CopyFiles.make(world.shared + "/remote.bin", count: 4 << 20)
        let down = try world.home.run("cp", "a:\(world.shared)/remote.bin", small + "/down.bin")
        XCTAssertExit(down, 1)
        XCTAssertTrue(down.stdout.contains("No space left on device"), down.stdout)
        XCTAssertFalse(down.stdout.contains("left behind"), down.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: small), [])
    }
}

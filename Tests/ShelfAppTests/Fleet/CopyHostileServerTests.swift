// CopyHostileServerTests: `sshelf cp` against what a hostile server (or a careless local tree) offers, all made in the
// real sshd's tree by the test — setuid/setgid/sticky files (never carried, with or without -p, either way), a link
// to /dev/zero, a FIFO, a link to a directory, a file that gives more than its size (refused with the reason, the
// rest of a tree copied), names of 255 bytes (copied through a short temporary name), and host names that would
// share a download folder (each host gets its own, the report says which).
import Foundation
import TestSupport
import XCTest

final class CopyHostileServerTests: XCTestCase {
    /// A 4755 file on the host (a setuid binary the server plants) comes down 0755 less the umask without -p, and
    /// 0755 with -p: scp drops setuid, setgid and sticky both ways (sftp's `perm & 0777`). Trees too.
    func testDownloadsNeverKeepSetuidSetgidOrSticky() throws {
        let world = try FleetWorld(["a"])
        let modes: [String: mode_t] = ["suid": 0o4755, "sgid": 0o2755, "sticky": 0o1755, "all": 0o7755]
        for (name, mode) in modes { try CopyFiles.make(world.shared + "/" + name, count: 300, mode: mode) }
        XCTAssertEqual(CopyFiles.mode(world.shared + "/suid"), 0o4755, "the server's file is setuid")
        let plain = world.home.root + "/plain", kept = world.home.root + "/kept"
        for folder in [plain, kept] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let names = modes.keys.sorted().map { "a:\(world.shared)/\($0)" }
        XCTAssertExit(try world.home.run(["cp"] + names + [plain], umask: 0o022), 0)
        XCTAssertExit(try world.home.run(["cp", "-p"] + names + [kept], umask: 0o022), 0)
        for name in modes.keys {
            XCTAssertEqual(CopyFiles.mode(plain + "/" + name), 0o755, "\(name) without -p")
            XCTAssertEqual(CopyFiles.mode(kept + "/" + name), 0o755, "\(name) with -p")
        }
        // Without -p the umask still applies.
        let masked = world.home.root + "/masked"
        XCTAssertExit(try world.home.run(["cp", "a:\(world.shared)/suid", masked], umask: 0o027), 0)
        XCTAssertEqual(CopyFiles.mode(masked), 0o750)

        // A tree with -r -p: a setgid directory and a setuid file in it.
        let tree = world.shared + "/tree"
        try CopyFiles.make(tree + "/inner", count: 10, mode: 0o6755)
        XCTAssertEqual(chmod(tree, 0o3775), 0)
        let back = world.home.root + "/back"
        XCTAssertExit(try world.home.run(["cp", "-r", "-p", "a:\(tree)", back], umask: 0o022), 0)
        XCTAssertEqual(CopyFiles.mode(back), 0o775)
        XCTAssertEqual(CopyFiles.mode(back + "/inner"), 0o755)
    }

    /// A local 4755 file owned by another user than the remote login becomes, with or without -p, a file without
    /// setuid on the host (stat over SSH); a setgid directory copied with -r -p likewise.
    func testUploadsNeverCarrySetuidSetgidOrSticky() throws {
        let world = try FleetWorld(["a"])
        let source = world.home.root + "/src"
        for (name, mode) in [("suid", 0o4755), ("sgid", 0o2755), ("sticky", 0o1755)] as [(String, mode_t)] {
            try CopyFiles.make(source + "/" + name, count: 200, mode: mode)
        }
        XCTAssertEqual(chmod(source, 0o2775), 0)
        XCTAssertNotEqual(try CopyFiles.remote(world, "a", "id -u"), "0\n", "the login is another user than the owner")
        let plain = world.shared + "/plain", kept = world.shared + "/kept"
        XCTAssertExit(try world.home.run("cp", "-r", source, "a:\(plain)"), 0)
        XCTAssertExit(try world.home.run("cp", "-r", "-p", source, "a:\(kept)"), 0)
        for name in ["suid", "sgid", "sticky"] {
            XCTAssertEqual(try CopyFiles.remoteMode(world, "a", "\(kept)/\(name)"), "755", "\(name) with -p")
            XCTAssertEqual(CopyFiles.mode("\(plain)/\(name)") & 0o7000, 0, "\(name) without -p")
        }
        XCTAssertEqual(try CopyFiles.remoteMode(world, "a", kept), "775", "a setgid directory with -p")
        XCTAssertExit(try world.home.run("cp", "-p", source + "/suid", "a:\(world.shared)/one"), 0)
        XCTAssertEqual(try CopyFiles.remoteMode(world, "a", world.shared + "/one"), "755")
    }

    /// A link to /dev/zero, a FIFO, a link to a directory on the host: each refused with what it is (as scp's "not
    /// a regular file"), never read; in a -r tree the rest is copied (a link to a regular file as that file) and the
    /// host's line lists what was left out. Nothing is left under a temporary name.
    func testOnlyRegularFilesAndDirectoriesComeDown() throws {
        let world = try FleetWorld(["a"])
        let tree = world.shared + "/tree"
        let data = try CopyFiles.make(tree + "/ok.txt", count: 5000)
        let deep = try CopyFiles.make(tree + "/sub/deep.txt", count: 700)
        try FileManager.default.createSymbolicLink(atPath: tree + "/zero", withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(atPath: tree + "/same.txt", withDestinationPath: "ok.txt")
        try FileManager.default.createSymbolicLink(atPath: tree + "/up", withDestinationPath: "..")
        XCTAssertEqual(mkfifo(tree + "/fifo", 0o644), 0)
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)

        let zero = try world.home.run("cp", "a:\(tree)/zero", here)
        XCTAssertExit(zero, 1)
        XCTAssertTrue(zero.stdout.contains("\(tree)/zero is a character device, not a regular file"), zero.stdout)
        let fifo = try world.home.run("cp", "a:\(tree)/fifo", here)
        XCTAssertExit(fifo, 1)
        XCTAssertTrue(fifo.stdout.contains("\(tree)/fifo is a FIFO (named pipe), not a regular file"), fifo.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: here), [])

        let copy = try world.home.run("cp", "-r", "a:\(tree)", here + "/tree")
        XCTAssertExit(copy, 1)
        for refused in [
            "\(tree)/zero is a character device, not a regular file",
            "\(tree)/fifo is a FIFO (named pipe), not a regular file",
            "\(tree)/up is a link to a directory, not followed inside a tree",
            "copied 3 files",
        ] {
            XCTAssertTrue(copy.stdout.contains(refused), "\(refused)\n\(copy.stdout)")
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: here + "/tree").sorted(), ["ok.txt", "same.txt", "sub"])
        XCTAssertEqual(FileManager.default.contents(atPath: here + "/tree/same.txt"), data)
        XCTAssertEqual(FileManager.default.contents(atPath: here + "/tree/sub/deep.txt"), deep)
        XCTAssertEqual(CopyFiles.mode(here + "/tree/same.txt") & 0o170000, 0, "a regular file, not a link")
    }

    /// A regular file that gives more than its size when opened (here /proc/version: size 0, bytes to read — as a
    /// file that grows without end would) is refused once more bytes than announced arrive, and leaves nothing.
    func testAFileGivingMoreThanItsSizeIsRefused() throws {
        let world = try FleetWorld(["a"])
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let result = try world.home.run("cp", "a:/proc/version", here)
        XCTAssertExit(result, 1)
        XCTAssertTrue(
            result.stdout.contains("/proc/version gave more than the 0 bytes it had when opened"), result.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: here), [])
    }

    /// Given as a source here, a FIFO, /dev/zero or a link to it is refused at once, saying what it is; nothing is
    /// made on the host.
    func testOnlyRegularFilesGoUp() throws {
        let world = try FleetWorld(["a"])
        let fifo = world.home.root + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = world.home.root + "/zero-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        let target = world.shared + "/up"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        chmod(target, 0o777)
        for (source, what) in [
            (fifo, "a FIFO (named pipe)"), ("/dev/zero", "a character device"), (link, "a character device"),
        ] {
            let result = try world.home.run("cp", source, "a:\(target)/")
            XCTAssertExit(result, 1)
            XCTAssertTrue(result.stdout.contains("\(source) is \(what), not a regular file"), result.stdout)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [])

        // In a -r tree: the FIFO and the link to a directory are left out and named, the rest goes up.
        let tree = world.home.root + "/tree"
        let data = try CopyFiles.make(tree + "/ok", count: 900)
        XCTAssertEqual(mkfifo(tree + "/fifo", 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: tree + "/loop", withDestinationPath: ".")
        let copy = try world.home.run("cp", "-r", tree, "a:\(target)/tree")
        XCTAssertExit(copy, 1)
        XCTAssertTrue(copy.stdout.contains("\(tree)/fifo is a FIFO (named pipe), not a regular file"), copy.stdout)
        XCTAssertTrue(copy.stdout.contains("\(tree)/loop is a link to a directory, not followed"), copy.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target + "/tree"), ["ok"])
        XCTAssertEqual(FileManager.default.contents(atPath: target + "/tree/ok"), data)
    }

    /// A name of 255 bytes (the most a Linux file system takes) is copied both ways, alone and inside a -r tree:
    /// its temporary name is cut to fit. A name that cannot be written where it goes never stops the rest of a tree.
    func testNamesOf255BytesAreCopied() throws {
        let world = try FleetWorld(["a"])
        let long = String(repeating: "n", count: 241) + "-é-" + String(repeating: "z", count: 10)  // 255 bytes
        XCTAssertEqual(long.utf8.count, 255)
        let tree = world.shared + "/tree"
        let data = try CopyFiles.make(tree + "/" + long, count: 3000)
        let other = try CopyFiles.make(tree + "/short", count: 100)
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let one = try world.home.run("cp", "a:\(tree)/\(long)", here)
        XCTAssertExit(one, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: here + "/" + long), data)
        XCTAssertExit(try world.home.run("cp", "-r", "a:\(tree)", here + "/tree"), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: here + "/tree/" + long), data)
        XCTAssertEqual(FileManager.default.contents(atPath: here + "/tree/short"), other)

        let up = world.shared + "/up"
        XCTAssertExit(try world.home.run("cp", "-r", here + "/tree", "a:\(up)"), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: up + "/" + long), data)
        XCTAssertEqual(CopyFiles.parts(up) + CopyFiles.parts(here) + CopyFiles.parts(here + "/tree"), [])

        // Where the long name cannot be written (its whole path here would pass PATH_MAX), that file is reported and
        // the rest of the tree is copied.
        var deepest = world.home.root + "/deep"
        while deepest.utf8.count < 3900 { deepest += "/" + String(repeating: "d", count: 200) }
        try FileManager.default.createDirectory(atPath: deepest, withIntermediateDirectories: true)
        XCTAssertGreaterThan(deepest.utf8.count + "/tree/".utf8.count + long.utf8.count, Int(PATH_MAX) - 1)
        let cut = try world.home.run("cp", "-r", "a:\(tree)", deepest + "/tree")
        XCTAssertExit(cut, 1)
        XCTAssertTrue(cut.stdout.contains("File name too long"), cut.stdout)
        XCTAssertTrue(cut.stdout.contains("copied 1 file"), cut.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: deepest + "/tree"), ["short"])
        XCTAssertEqual(FileManager.default.contents(atPath: deepest + "/tree/short"), other)
    }

    /// Hosts `g/x` and `g_x`, `.gy` and `_gy` would share a folder (DST/g_x/, DST/_gy/): each gets its own,
    /// NAME@ID-PREFIX, the same on every run, and the report says which host went where.
    func testHostsThatWouldShareADownloadFolderGetTheirOwn() throws {
        let world = try FleetWorld(["g/x", "g_x", ".gy", "_gy", "a"])
        try CopyFiles.make(world.shared + "/app.log", count: 64)
        let list = try world.home.run("list", "--json")
        let hosts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        var ids: [String: String] = [:]
        for host in hosts { ids[try XCTUnwrap(host["name"] as? String)] = try XCTUnwrap(host["id"] as? String) }
        func prefix(_ name: String) -> String { String((ids[name] ?? "").lowercased().prefix(8)) }
        let expected = [
            "g/x": "g_x@\(prefix("g/x"))", "g_x": "g_x@\(prefix("g_x"))", ".gy": "_gy@\(prefix(".gy"))",
            "_gy": "_gy@\(prefix("_gy"))", "a": "a",
        ]
        let logs = world.home.root + "/logs/"
        for round in 1...2 {
            let result = try world.home.run("cp", "@prod:\(world.shared)/app.log", logs)
            XCTAssertExit(result, 0)
            for (host, folder) in expected {
                XCTAssertTrue(
                    result.stdout.contains("\(host): copied 1 file, 64 B into \(logs)\(folder)\n"),
                    "round \(round): \(host) -> \(folder)\n\(result.stdout)")
            }
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: logs).sorted(), expected.values.sorted(),
            "five hosts, five folders")
        for folder in expected.values {
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: logs + folder), ["app.log"], folder)
        }
    }
}

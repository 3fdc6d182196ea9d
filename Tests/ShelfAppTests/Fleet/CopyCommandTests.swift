// CopyCommandTests: `sshelf cp` end to end over a real sshd's SFTP — a file both ways, a tree with -r and -p (modes
// and times), a copy to every host of a group (a group path too), directory destinations, and interrupted copies
// (the process killed mid-upload) that leave nothing under the final name; Ctrl-C, lost connections and full disks are
// CopyInterruptTests, what a hostile server offers CopyHostileServerTests.
import Foundation
import TestSupport
import XCTest

final class CopyCommandTests: XCTestCase {
    /// A local file of `count` bytes that are not all the same, so a misplaced block shows.
    func makeFile(_ path: String, count: Int, mode: mode_t = 0o644) throws -> Data {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return data
    }

    func mode(_ path: String) throws -> Int {
        try XCTUnwrap(
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    func modified(_ path: String) throws -> Date {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    func leftovers(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".part") }
    }

    func testAFileGoesUpAndComesBackTheSame() throws {
        let world = try FleetWorld(["a"])
        let source = world.home.root + "/src/hello.bin"
        let data = try makeFile(source, count: 3 << 20 | 123)
        let up = try world.home.run("cp", source, "a:\(world.shared)/")
        XCTAssertExit(up, 0)
        XCTAssertTrue(up.stdout.contains("a: copied 1 file, 3.0 MiB"), up.stdout)
        XCTAssertEqual(FileManager.default.contents(atPath: world.shared + "/hello.bin"), data)
        XCTAssertEqual(leftovers(world.shared), [])

        let back = world.home.root + "/back.bin"
        XCTAssertExit(try world.home.run("cp", "a:\(world.shared)/hello.bin", back), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: back), data)
        XCTAssertEqual(leftovers(world.home.root), [])

        let missing = try world.home.run("cp", "a:\(world.shared)/nope", back)
        XCTAssertExit(missing, 1)
        XCTAssertTrue(missing.stdout.contains("no such file"), missing.stdout)
        XCTAssertEqual(FileManager.default.contents(atPath: back), data, "a failed copy leaves the old file alone")
    }

    /// A host's path as scp takes it: wildcards matched on the host (hidden names only by a dot), `~/` the login's
    /// home; a pattern that matches nothing is an error that names it.
    func testWildcardsAndTheHomeOnTheHost() throws {
        let world = try FleetWorld(["a"])
        var made: [String: Data] = [:]
        for name in ["x1.log", "x2.log", "y.txt", ".hidden.log", "sub/x3.log"] {
            made[name] = try makeFile(world.shared + "/" + name, count: 100 + name.count)
        }
        let local = world.home.root + "/got"
        try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
        let logs = try world.home.run("cp", "a:\(world.shared)/*.log", local)
        XCTAssertExit(logs, 0)
        XCTAssertTrue(logs.stdout.contains("a: copied 2 files"), logs.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: local).sorted(), ["x1.log", "x2.log"])
        XCTAssertEqual(FileManager.default.contents(atPath: local + "/x2.log"), made["x2.log"])
        let deeper = try world.home.run("cp", "a:\(world.shared)/s*/x?.log", local)
        XCTAssertExit(deeper, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: local + "/x3.log"), made["sub/x3.log"])

        let none = try world.home.run("cp", "a:\(world.shared)/*.nothing", local)
        XCTAssertExit(none, 1)
        XCTAssertTrue(none.stdout.contains("*.nothing: no match on the host"), none.stdout)

        // ~/ is the login's home.
        let folder = "sshelf-cp-\(UUID().uuidString.prefix(8))"
        let home = "/home/\(TestAccount.name)/\(folder)"
        let inHome = try makeFile(home + "/notes.txt", count: 321)
        defer { try? FileManager.default.removeItem(atPath: home) }
        XCTAssertExit(try world.home.run("cp", "a:~/\(folder)/notes.txt", local), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: local + "/notes.txt"), inHome)
        let other = try world.home.run("cp", "a:~root/x", local)
        XCTAssertTrue(other.stdout.contains("another account's home"), other.stdout)
    }

    func testATreeWithRecursiveAndPreserveKeepsModesAndTimes() throws {
        let world = try FleetWorld(["a"])
        let tree = world.home.root + "/tree"
        let x = try makeFile(tree + "/x.txt", count: 1000, mode: 0o600)
        let y = try makeFile(tree + "/sub/y.sh", count: 70_000, mode: 0o750)
        let then = Date(timeIntervalSince1970: 978_307_200)  // 2001-01-01
        for path in [tree + "/x.txt", tree + "/sub/y.sh"] {
            try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: path)
        }
        let refused = try world.home.run("cp", tree, "a:\(world.shared)/up")
        XCTAssertExit(refused, 1)
        XCTAssertTrue(refused.stdout.contains("is a directory (copy it with -r)"), refused.stdout)

        XCTAssertExit(try world.home.run("cp", "-r", "-p", tree, "a:\(world.shared)/up"), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: world.shared + "/up/x.txt"), x)
        XCTAssertEqual(FileManager.default.contents(atPath: world.shared + "/up/sub/y.sh"), y)
        XCTAssertEqual(try mode(world.shared + "/up/sub/y.sh"), 0o750)
        XCTAssertEqual(try mode(world.shared + "/up/x.txt"), 0o600)
        XCTAssertEqual(try modified(world.shared + "/up/sub/y.sh"), then)

        let back = world.home.root + "/back"
        XCTAssertExit(try world.home.run("cp", "-rp", "a:\(world.shared)/up", back), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: back + "/sub/y.sh"), y)
        XCTAssertEqual(try mode(back + "/sub/y.sh"), 0o750)
        XCTAssertEqual(try modified(back + "/x.txt"), then)

        // Without -p the file gets today's time.
        XCTAssertExit(try world.home.run("cp", tree + "/x.txt", "a:\(world.shared)/fresh.txt"), 0)
        XCTAssertGreaterThan(try modified(world.shared + "/fresh.txt"), then)
    }

    func testACopyToAGroupReachesEveryHost() throws {
        let world = try FleetWorld(["a", "b"])
        for name in ["a", "b"] {
            try FileManager.default.createDirectory(
                atPath: world.shared + "/" + name, withIntermediateDirectories: true)
            chmod(world.shared + "/" + name, 0o777)
        }
        let source = world.home.root + "/conf"
        let data = try makeFile(source, count: 4096)
        // Each host's login directory differs only in name here: one shared tree, a folder per host via a search.
        let result = try world.home.run("cp", source, "@prod:\(world.shared)/a/")
        XCTAssertExit(result, 0)
        XCTAssertTrue(result.stdout.contains("2 hosts: 2 succeeded"), result.stdout)
        XCTAssertEqual(FileManager.default.contents(atPath: world.shared + "/a/conf"), data)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, world.sshd.log)
    }

    /// A group path holds slashes, yet `@prod/eu:PATH` is a host target, not a local path; a destination ending in
    /// / must be a directory that exists (unless a tree is copied to it with -r), either way; a failure names the
    /// file asked for, never the temporary name beside it.
    func testGroupPathsAndDirectoryDestinations() throws {
        let world = try FleetWorld(["a"], group: "prod/eu")
        let source = world.home.root + "/conf"
        let data = try makeFile(source, count: 512)
        let missing = world.shared + "/missing/"
        let toGroup = try world.home.run("cp", source, "@prod/eu:\(missing)")
        XCTAssertExit(toGroup, 1)
        XCTAssertTrue(toGroup.stdout.contains("a: failed: \(missing): no such directory on the host"), toGroup.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "nothing was made in its place")
        XCTAssertExit(try world.home.run("cp", source, "@prod/eu:\(world.shared)/"), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: world.shared + "/conf"), data)

        let deep = world.shared + "/no/such/conf"
        let parentless = try world.home.run("cp", source, "a:\(deep)")
        XCTAssertExit(parentless, 1)
        XCTAssertTrue(
            parentless.stdout.contains("cannot create \(deep): no such file or directory"), parentless.stdout)

        let down = try world.home.run("cp", "a:\(world.shared)/conf", world.home.root + "/nowhere/")
        XCTAssertExit(down, 1)
        XCTAssertTrue(down.stdout.contains("\(world.home.root)/nowhere/: no such directory here"), down.stdout)

        // A tree copied with -r to DIR/ makes DIR, as scp -r does.
        _ = try makeFile(world.home.root + "/tree/sub/f", count: 64)
        XCTAssertExit(try world.home.run("cp", "-r", world.home.root + "/tree", "a:\(world.shared)/made/"), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: world.shared + "/made/sub/f"))
        XCTAssertExit(try world.home.run("cp", "-r", "a:\(world.shared)/made", world.home.root + "/back/"), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: world.home.root + "/back/sub/f"))
    }

    /// From a group, as pslurp does: each host's files in DST/HOST/ — a name that would reach outside DST (`../x`)
    /// or hide (`.x`) is written with '_'; DST must be a directory, or end in / to be made.
    func testACopyFromAGroupPutsEachHostsFilesInItsOwnFolder() throws {
        let world = try FleetWorld(["a", "../up", ".dot"])
        let data = try makeFile(world.shared + "/app.log", count: 2048)
        let logs = world.home.root + "/logs"
        let refused = try world.home.run("cp", "@prod:\(world.shared)/app.log", logs)
        XCTAssertExit(refused, 3)
        XCTAssertTrue(refused.stderr.contains("\(logs): no such directory; from several hosts"), refused.stderr)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 0, "refused before connecting")

        let result = try world.home.run("cp", "@prod:\(world.shared)/app.log", logs + "/")
        XCTAssertExit(result, 0)
        XCTAssertTrue(result.stdout.contains("3 hosts: 3 succeeded"), result.stdout)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: logs).sorted(), ["_._up", "_dot", "a"])
        for folder in ["a", "_._up", "_dot"] {
            XCTAssertEqual(FileManager.default.contents(atPath: "\(logs)/\(folder)/app.log"), data, folder)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.home.root + "/up"), "nothing outside DST")
    }

    /// The upload's source is a large sparse file, so the copy is mid-way for a while; then the process is killed
    /// outright.
    func testAKilledUploadLeavesNoFileUnderTheFinalName() throws {
        let world = try FleetWorld(["a"])
        let big = world.home.root + "/big"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        XCTAssertEqual(truncate(big, 16 << 30), 0)
        let copy = try BackgroundSshelf(world.home, ["cp", big, "a:\(world.shared)/final.bin"])
        defer { if copy.process.isRunning { kill(copy.process.pid, SIGKILL) } }
        try eventually("a partial file under the temporary name", context: { copy.stderr }) {
            leftovers(world.shared).contains { name in
                name.hasPrefix(".final.bin.sshelf-")
                    && ((try? FileManager.default.attributesOfItem(atPath: world.shared + "/" + name)[.size]
                        as? NSNumber)??.intValue ?? 0) > 0
            }
        }
        kill(copy.process.pid, SIGKILL)
        XCTAssertEqual(copy.process.wait(), 128 + SIGKILL)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.shared + "/final.bin"))
    }
}

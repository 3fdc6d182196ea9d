// CopyLanesTests: `sshelf cp -r` copies several files at once (FleetCopyLanes: SFTP channels of their own on the one
// connection, the connection taken in turn) and every byte still arrives where it should: the server's log shows one
// login and several SFTP sessions on it, both ways; a server that allows a single channel (MaxSessions 1) still gets
// every file, on the copy's own channel; a file the server refuses is named while the rest arrive. (The pane's copies
// are the same engine: TUIFilesTests.) A lane sleeps until something comes for its own channel: with one large file
// among many small ones, no lane is left to the fallback wake (SSHELF_TEST_SFTP_WAKES: every wake a step owed it was
// given). That files overlap in time is what bench/files.bench measures.
import Foundation
import TestSupport
import XCTest

final class CopyLanesTests: XCTestCase {
    func world(_ extraConfig: [String] = []) throws -> FleetWorld {
        var options = SSHD.Options()
        options.extraConfig = extraConfig
        return try FleetWorld(["a"], options: options)
    }

    /// How many times the server's log says `text`.
    func count(_ text: String, in log: String) -> Int {
        log.components(separatedBy: text).count - 1
    }

    /// One login, and more than one SFTP session on its connection.
    func assertSeveralChannelsOnOneLogin(_ sshd: SSHD, file: StaticString = #filePath, line: UInt = #line) {
        _ = sshd.waitForConnectionsEnded()
        let log = sshd.log
        XCTAssertEqual(count("Accepted publickey", in: log), 1, log, file: file, line: line)
        XCTAssertGreaterThan(count("subsystem 'sftp'", in: log), 1, log, file: file, line: line)
    }

    /// `count` files of different sizes (an empty one, some over one read) in three folders under `root`.
    func makeTree(_ root: String, count: Int) throws -> [String: Data] {
        var made: [String: Data] = [:]
        var generator = SystemRandomNumberGenerator()
        for index in 0..<count {
            let name = "part\(index % 3)/file-\(index).bin"
            let size = index == 0 ? 0 : (index * 7919) % (80 * 1024)
            let data = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let path = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path))
            made[name] = data
        }
        return made
    }

    /// Every file of `made` under `root` with its bytes, and nothing else (no temporary file left anywhere).
    func assertTree(_ root: String, _ made: [String: Data], file: StaticString = #filePath, line: UInt = #line) {
        let found = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter {
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &directory)
                && !directory.boolValue
        }
        XCTAssertEqual(Set(found), Set(made.keys), file: file, line: line)
        for (name, data) in made {
            XCTAssertEqual(
                FileManager.default.contents(atPath: root + "/" + name), data, name, file: file, line: line)
        }
    }

    func testATreeComesDownSeveralFilesAtATime() throws {
        let world = try world()
        let made = try makeTree(world.shared + "/tree", count: 60)
        let local = world.home.root + "/got"
        let copy = try world.home.run("cp", "-r", "a:\(world.shared)/tree", local)
        XCTAssertExit(copy, 0)
        XCTAssertTrue(copy.stdout.contains("a: copied 60 files"), copy.stdout)
        assertTree(local, made)
        assertSeveralChannelsOnOneLogin(world.sshd)
    }

    func testATreeGoesUpSeveralFilesAtATime() throws {
        let world = try world()
        let made = try makeTree(world.home.root + "/tree", count: 60)
        let copy = try world.home.run("cp", "-r", world.home.root + "/tree", "a:\(world.shared)/up")
        XCTAssertExit(copy, 0)
        XCTAssertTrue(copy.stdout.contains("a: copied 60 files"), copy.stdout)
        assertTree(world.shared + "/up", made)
        assertSeveralChannelsOnOneLogin(world.sshd)
    }

    /// sshd refuses a second session channel: the copy goes on, on its own channel, one file at a time.
    func testAServerAllowingOneChannelGetsEveryFileOneAtATime() throws {
        let world = try world(["MaxSessions 1"])
        let made = try makeTree(world.shared + "/tree", count: 20)
        let local = world.home.root + "/got"
        let down = try world.home.run("cp", "-r", "a:\(world.shared)/tree", local)
        XCTAssertExit(down, 0)
        assertTree(local, made)
        let up = try world.home.run("cp", "-r", local, "a:\(world.shared)/up")
        XCTAssertExit(up, 0)
        assertTree(world.shared + "/up", made)
        _ = world.sshd.waitForConnectionsEnded(2)
        // Each copy's own channel, and the refused ones.
        XCTAssertEqual(count("subsystem 'sftp'", in: world.sshd.log), 2, world.sshd.log)
        XCTAssertGreaterThan(count("session open failed", in: world.sshd.log), 0, world.sshd.log)
    }

    /// One file the login cannot read, among many copied at once: named, and every other file arrives.
    func testARefusedFileIsNamedAndTheRestArrive() throws {
        let world = try world()
        var made = try makeTree(world.shared + "/tree", count: 30)
        let secret = world.shared + "/tree/part1/file-10.bin"
        chmod(secret, 0o000)
        made["part1/file-10.bin"] = nil
        let local = world.home.root + "/got"
        let copy = try world.home.run("cp", "-r", "a:\(world.shared)/tree", local)
        XCTAssertExit(copy, 1)
        XCTAssertTrue(copy.stdout.contains("copied 29 files"), copy.stdout)
        XCTAssertTrue(copy.stdout.contains("file-10.bin") && copy.stdout.contains("permission denied"), copy.stdout)
        assertTree(local, made)
    }

    /// Many small files and one large one (several reads in flight, the server's window refilled) come down and go
    /// back up intact, each lane woken by the step that read its answer: none waited for the fallback.
    func testEveryLaneIsWokenForItsOwnAnswers() throws {
        let world = try world()
        world.home.extraEnvironment["SSHELF_TEST_SFTP_WAKES"] = "1"
        var made = try makeTree(world.shared + "/tree", count: 80)
        // Bytes that differ from block to block, so a block written at the wrong offset shows.
        let large = Data((0..<(6 * 1024 * 1024 + 4321)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        try large.write(to: URL(fileURLWithPath: world.shared + "/tree/part1/large.bin"))
        made["part1/large.bin"] = large
        let local = world.home.root + "/got"
        let down = try world.home.run("cp", "-r", "a:\(world.shared)/tree", local)
        XCTAssertExit(down, 0)
        assertTree(local, made)
        assertEveryWakeGiven(down)
        let up = try world.home.run("cp", "-r", local, "a:\(world.shared)/up")
        XCTAssertExit(up, 0)
        assertTree(world.shared + "/up", made)
        assertEveryWakeGiven(up)
    }

    /// The copy ran on several channels (it reported its wakes), and no sleeping lane had to wake itself.
    func assertEveryWakeGiven(_ copy: CLIResult, file: StaticString = #filePath, line: UInt = #line) {
        let reports = copy.stderr.split(separator: "\n").filter { $0.hasPrefix("sftp turns: ") }
        XCTAssertEqual(reports.count, 1, copy.description, file: file, line: line)
        XCTAssertTrue(reports.first?.hasSuffix(" wakes, 0 missed") ?? false, copy.description, file: file, line: line)
    }
}

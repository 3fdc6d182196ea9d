// RunLoggedFirstTests: issue 31's hole 9 — a run's release-log line is written before any command is sent, warm
// or cold: with release.log a directory (so no line can be written, as on a full disk), `run H -- touch X` exits 5
// (storage) saying why, and X is not made, through a warm session and on a new login alike. A logged run leaves its
// "run started" line before the line with the outcomes.
import Foundation
import TestSupport
import XCTest

final class RunLoggedFirstTests: XCTestCase {
    private func world() throws -> (SSHCLIWorld, String) {
        let world = try SSHCLIWorld()
        addTeardown { _ = try? world.home.run("warm", "stop") }
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "-n", "--", "true"), 0)
        let folder = world.home.root + "/shared"
        XCTAssertEqual(mkdir(folder, 0o777), 0)
        XCTAssertEqual(chmod(folder, 0o777), 0)
        XCTAssertEqual(chmod(world.home.root, 0o755), 0)
        return (world, folder + "/X")
    }

    /// release.log replaced by a directory: nothing can be appended to it.
    private func breakTheLog(_ home: TempHome) throws {
        let log = home.sshelfHome + "/state/release.log"
        try? FileManager.default.removeItem(atPath: log)
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: true)
    }

    private func assertNotRun(_ world: SSHCLIWorld, _ mark: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let result = try world.home.run("run", "t", "--", "touch \(mark)")
        XCTAssertExit(result, 5, file: file, line: line)
        XCTAssertTrue(
            result.stderr.contains("could not be written to the release log"), "\(result)", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mark), "the command never ran", file: file, line: line)
    }

    func testAWarmRunThatCannotBeLoggedDoesNotRun() throws {
        let (world, mark) = try world()
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        // A logged run first: it goes through the warm session and leaves its two lines, the first one first.
        XCTAssertExit(try world.home.run("run", "t", "--", "true"), 0)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, "the run went warm: \(world.sshd.log)")
        let log = try world.home.run("log", "--json")
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        let runs = entries.filter { $0["by"] as? String == "run" }.compactMap { $0["what"] as? String }
        XCTAssertEqual(runs.suffix(2), ["run started", "run"], log.stdout)

        try breakTheLog(world.home)
        try assertNotRun(world, mark)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 2, "no login either: \(world.sshd.log)")
    }

    func testAColdRunThatCannotBeLoggedDoesNotRun() throws {
        let (world, mark) = try world()
        try breakTheLog(world.home)
        try assertNotRun(world, mark)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 1, "no login: \(world.sshd.log)")
    }
}

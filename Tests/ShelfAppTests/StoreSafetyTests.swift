// The store under stress through the real binary: two processes writing at once lose no update, and every
// file and folder is private whatever the umask.
import Foundation
import TestSupport
import XCTest

final class StoreSafetyTests: XCTestCase {
    func testTwoProcessesEditingTheSameHostLoseNoUpdate() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "shared", "--host", "h"), 0)
        let rounds = 15
        let group = DispatchGroup()
        final class Failures: @unchecked Sendable {
            let lock = NSLock()
            var items: [String] = []
            func add(_ text: String) { lock.lock(); items.append(text); lock.unlock() }
        }
        let failures = Failures()
        for writer in ["a", "b"] {
            group.enter()
            let environment = home.environment
            DispatchQueue.global().async {
                for i in 0..<rounds {
                    // Each process reads the host, adds a tag, and writes it back: a lost update would drop a tag.
                    let edit = try? CLI.run(["edit", "shared", "--tag", "\(writer)\(i)"], environment: environment)
                    if edit?.status != 0 { failures.add("edit \(writer)\(i): \(String(describing: edit))") }
                    let add = try? CLI.run(["add", "\(writer)-host-\(i)", "--host", "x"], environment: environment)
                    if add?.status != 0 { failures.add("add \(writer)\(i): \(String(describing: add))") }
                }
                group.leave()
            }
        }
        group.wait()
        XCTAssertEqual(failures.items, [])
        let show = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("show", "shared", "--json").stdout.utf8))
                as? [String: Any])
        let tags = Set(show["tags"] as? [String] ?? [])
        XCTAssertEqual(
            tags.count, 2 * rounds, "lost tags: \(Set((0..<rounds).flatMap { ["a\($0)", "b\($0)"] }).subtracting(tags))"
        )
        let hosts = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("list", "--json").stdout.utf8)) as? [Any])
        XCTAssertEqual(hosts.count, 1 + 2 * rounds)
    }

    func testFilesArePrivateUnderUmaskZero() throws {
        let home = TempHome()
        XCTAssertExit(try home.run(["add", "web", "--host", "h"], umask: 0), 0)
        XCTAssertExit(try home.run(["export", "ssh-config", "--output", home.root + "/out.conf"], umask: 0), 0)
        var checked = 0
        let enumerator = FileManager.default.enumerator(atPath: home.sshelfHome)
        var paths = [home.sshelfHome]
        while let relative = enumerator?.nextObject() as? String { paths.append(home.sshelfHome + "/" + relative) }
        paths.append(home.root + "/out.conf")
        for path in paths {
            var info = stat()
            XCTAssertEqual(lstat(path, &info), 0, path)
            let mode = info.st_mode & 0o777
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            XCTAssertEqual(mode, isDirectory ? 0o700 : 0o600, "\(path) has mode \(String(mode, radix: 8))")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 4)  // the home, data/, store.sqlite, the export
    }

    func testLooseStoreIsRefusedByTheCLI() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "h"), 0)
        chmod(home.sshelfHome + "/data/store.sqlite", 0o644)
        let result = try home.run("list")
        XCTAssertExit(result, 5)
        XCTAssertTrue(result.stderr.contains("readable by other users"), result.stderr)
        XCTAssertTrue(result.stderr.contains("chmod 600"), result.stderr)
    }
}

// PrivateFolderLinkTests: issue 31's hole 7 end to end — another uid's link or folder where sshelf keeps its runtime,
// state and config folders (the runtime folder itself, its `warm` and `agent`, the state folder, `config/keys`) is
// refused with a message naming it, the root-owned folder a link points at keeps its mode, and no socket, log or
// key file is made outside sshelf's own folders; also with XDG_RUNTIME_DIR in a folder everyone may write. The
// suite runs as root; `nobody` is the other uid.
import Foundation
import TestSupport
import XCTest

final class PrivateFolderLinkTests: XCTestCase {
    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    private func otherUID() throws -> uid_t {
        guard geteuid() == 0 else { throw skipped("needs root to make a link owned by another uid") }
        guard let entry = getpwnam("nobody") else { throw skipped("no user nobody to own the planted link") }
        return entry.pointee.pw_uid
    }

    /// A root-owned 0755 folder with one file in it: what the planted link points at.
    private func victim(_ home: TempHome) throws -> String {
        let path = home.root + "/victim-\(UUID().uuidString.prefix(6))"
        XCTAssertEqual(mkdir(path, 0o755), 0)
        XCTAssertEqual(chmod(path, 0o755), 0)
        _ = FileManager.default.createFile(atPath: path + "/keep", contents: Data("x".utf8))
        return path
    }

    /// `link` made a symbolic link to `target`, owned by another uid (its folder made first when missing).
    private func plant(_ link: String, to target: String) throws {
        let other = try otherUID()
        try FileManager.default.createDirectory(
            atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: link)
        XCTAssertEqual(symlink(target, link), 0)
        XCTAssertEqual(lchown(link, other, gid_t.max), 0)
    }

    private func assertUntouched(_ target: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(mode(target), 0o755, "the folder the link points at keeps its mode", file: file, line: line)
        XCTAssertEqual(
            (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? [], ["keep"],
            "nothing made in (or removed from) the folder the link points at", file: file, line: line)
    }

    private func pinnedWorld() throws -> SSHCLIWorld {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "-n", "--", "true"), 0)
        return world
    }

    func testAWarmSessionRefusesALinkedRuntimeOrWarmFolder() throws {
        _ = try otherUID()
        let world = try pinnedWorld()
        defer { _ = try? world.home.run("warm", "stop") }
        let runtime = world.home.sshelfHome + "/run"
        for link in [runtime, runtime + "/warm"] {
            let target = try victim(world.home)
            try? FileManager.default.removeItem(atPath: runtime)
            try plant(link, to: target)
            let result = try world.home.run("exec", "t", "--persist", "-n", "--", "echo cold")
            // The command still runs, on a login of its own; only the warm session is refused.
            XCTAssertExit(result, 0)
            XCTAssertEqual(result.stdout, "cold\n")
            XCTAssertTrue(result.stderr.contains("could not keep a warm session"), result.stderr)
            XCTAssertTrue(result.stderr.contains("\(link) is a symbolic link"), result.stderr)
            assertUntouched(target)
        }
    }

    func testAWarmSessionRefusesARuntimeFolderOfAnotherUid() throws {
        let other = try otherUID()
        let world = try pinnedWorld()
        defer { _ = try? world.home.run("warm", "stop") }
        let runtime = world.home.sshelfHome + "/run"
        try FileManager.default.createDirectory(atPath: runtime + "/warm", withIntermediateDirectories: true)
        XCTAssertEqual(chmod(runtime + "/warm", 0o755), 0)
        XCTAssertEqual(chown(runtime + "/warm", other, gid_t.max), 0)
        let result = try world.home.run("exec", "t", "--persist", "-n", "--", "true")
        XCTAssertExit(result, 0)
        XCTAssertTrue(result.stderr.contains("\(runtime)/warm is owned by uid \(other)"), result.stderr)
        XCTAssertEqual(mode(runtime + "/warm"), 0o755)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: runtime + "/warm"), [], "no socket in it")
    }

    func testTheAgentRefusesALinkedAgentFolder() throws {
        _ = try otherUID()
        let home = TempHome()
        let target = try victim(home)
        try plant(home.sshelfHome + "/run/agent", to: target)
        let result = try home.run("agent", "start")
        defer { _ = try? home.run("agent", "stop") }
        XCTAssertNotEqual(result.status, 0, "\(result)")
        XCTAssertTrue(result.stderr.contains("\(home.sshelfHome)/run/agent is a symbolic link"), "\(result)")
        assertUntouched(target)
    }

    /// The case: XDG_RUNTIME_DIR in a folder everyone may write (as /tmp), where another uid made `sshelf/`
    /// with `agent` a link to a folder of root's.
    func testAnotherUidsSshelfFolderInASharedRuntimeDirIsRefused() throws {
        let other = try otherUID()
        let home = TempHome()
        let shared = home.root + "/tmp"
        XCTAssertEqual(mkdir(shared, 0o1777), 0)
        XCTAssertEqual(chmod(shared, 0o1777), 0)
        let target = try victim(home)
        XCTAssertEqual(mkdir(shared + "/sshelf", 0o755), 0)
        XCTAssertEqual(chown(shared + "/sshelf", other, gid_t.max), 0)
        try plant(shared + "/sshelf/agent", to: target)
        var environment = home.environment
        environment["SSHELF_HOME"] = nil
        environment["XDG_RUNTIME_DIR"] = shared
        let result = try CLI.run(["agent", "start"], environment: environment)
        defer { _ = try? CLI.run(["agent", "stop"], environment: environment) }
        XCTAssertNotEqual(result.status, 0, "\(result)")
        XCTAssertTrue(result.stderr.contains("\(shared)/sshelf is owned by uid \(other)"), "\(result)")
        assertUntouched(target)
        XCTAssertEqual(mode(shared + "/sshelf"), 0o755, "another uid's folder is not touched")
    }

    func testTheAgentRefusesALinkedStateFolder() throws {
        _ = try otherUID()
        let home = TempHome()
        let target = try victim(home)
        try plant(home.sshelfHome + "/state", to: target)
        let result = try home.run("agent", "start")
        defer { _ = try? home.run("agent", "stop") }
        XCTAssertNotEqual(result.status, 0, "\(result)")
        XCTAssertTrue(result.stderr.contains("\(home.sshelfHome)/state is a symbolic link"), "\(result)")
        assertUntouched(target)
    }

    /// A `config/keys` link: followed, the bridge's clean-up would delete every file of the folder it points at.
    func testTheBridgeRefusesALinkedKeysFolder() throws {
        _ = try otherUID()
        let home = TempHome()
        let target = try victim(home)
        for owner in ["nobody", "root"] {
            try plant(home.sshelfHome + "/config/keys", to: target)
            if owner == "root" { XCTAssertEqual(lchown(home.sshelfHome + "/config/keys", 0, 0), 0) }
            let result = try home.run("ssh-config", "write")
            XCTAssertNotEqual(result.status, 0, "\(result)")
            XCTAssertTrue(result.stderr.contains("\(home.sshelfHome)/config/keys is a symbolic link"), "\(result)")
            assertUntouched(target)
        }
    }
}

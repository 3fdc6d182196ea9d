// PrivateDirectoryTests: sshelf's private folders made and opened without following links, on real folders — a
// link below where sshelf's part starts refused whoever owns it, one where it starts unless it is the user's own,
// a folder of another uid refused with its owner named, another uid's link above sshelf's part refused and the
// user's own followed, the folder a refused link points at left as it was (mode asserted), folders made 0700
// whatever the umask.
import Foundation
import ShelfSystem
import TestSupport
import XCTest

final class PrivateDirectoryTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "private-dir-\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(mkdir(root, 0o755), 0)
        XCTAssertEqual(chmod(root, 0o755), 0)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    private func owner(_ path: String) -> uid_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_uid : nil
    }

    /// A uid that is not ours (the tests run as root): `nobody`'s.
    private func otherUID() throws -> uid_t {
        guard geteuid() == 0 else { throw skipped("needs root to make a folder or a link owned by another uid") }
        guard let entry = getpwnam("nobody") else { throw skipped("no user nobody to own another uid's folder") }
        return entry.pointee.pw_uid
    }

    /// A folder of root's that a planted link points at: 0755 with a file in it, so a tightening would show.
    private func victim() throws -> String {
        let path = root + "/victim"
        XCTAssertEqual(mkdir(path, 0o755), 0)
        XCTAssertEqual(chmod(path, 0o755), 0)
        return path
    }

    private func refusal(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testFoldersAreMade0700WhateverTheUmask() throws {
        let old = umask(0o022)
        defer { umask(old) }
        try PrivateFiles.ensureDirectory(root + "/a/b/c", within: root + "/a")
        for path in ["/a", "/a/b", "/a/b/c"] { XCTAssertEqual(mode(root + path), 0o700, path) }
        // A folder of ours that exists looser is tightened, from sshelf's part down; above it nothing changes.
        XCTAssertEqual(chmod(root + "/a/b", 0o755), 0)
        try PrivateFiles.ensureDirectory(root + "/a/b/c", within: root + "/a")
        XCTAssertEqual(mode(root + "/a/b"), 0o700)
        XCTAssertEqual(mode(root), 0o755, "above sshelf's part nothing is tightened")
    }

    func testALinkInSshelfsPartIsRefusedAndItsTargetLeftAsItWas() throws {
        let other = try otherUID()
        let target = try victim()
        // `run` (where sshelf's part starts) a link of another uid's; `run/warm` a link, whoever owns it.
        for (link, linkOwner) in [("/run", other), ("/run/warm", other), ("/run/warm", geteuid())] {
            try? FileManager.default.removeItem(atPath: root + "/run")
            if link != "/run" { XCTAssertEqual(mkdir(root + "/run", 0o700), 0) }
            XCTAssertEqual(symlink(target, root + link), 0)
            XCTAssertEqual(lchown(root + link, linkOwner, gid_t.max), 0)
            let message = refusal { try PrivateFiles.ensureDirectory(root + "/run/warm", within: root + "/run") }
            XCTAssertTrue(message.contains("\(root + link) is a symbolic link"), message)
            XCTAssertTrue(message.contains("rm \(root + link)"), "it says what to do: \(message)")
            XCTAssertEqual(mode(target), 0o755, "the folder the link points at keeps its mode")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [], "nothing made in it")
        }
    }

    func testAFolderOfAnotherUidIsRefusedWithItsOwner() throws {
        let other = try otherUID()
        for folder in ["/run", "/run/agent"] {
            try? FileManager.default.removeItem(atPath: root + "/run")
            XCTAssertEqual(mkdir(root + "/run", 0o755), 0)
            if folder != "/run" { XCTAssertEqual(mkdir(root + folder, 0o755), 0) }
            XCTAssertEqual(chown(root + folder, other, gid_t.max), 0)
            let message = refusal { try PrivateFiles.ensureDirectory(root + "/run/agent", within: root + "/run") }
            XCTAssertTrue(message.contains("\(root + folder) is owned by uid \(other)"), message)
            XCTAssertTrue(message.contains("remove it"), "it says what to do: \(message)")
            XCTAssertEqual(mode(root + folder), 0o755, "another uid's folder is not touched")
            XCTAssertEqual(owner(root + folder), other)
        }
    }

    func testLinksAboveSshelfsPartAreFollowedOnlyWhenOursOrRoots() throws {
        let other = try otherUID()
        let home = root + "/real-home"
        XCTAssertEqual(mkdir(home, 0o755), 0)
        // sshelf's own folder a link the user made (to keep it elsewhere): followed, the folder behind it ours.
        let elsewhere = root + "/elsewhere"
        XCTAssertEqual(mkdir(elsewhere, 0o755), 0)
        XCTAssertEqual(symlink(elsewhere, root + "/run"), 0)
        try PrivateFiles.ensureDirectory(root + "/run/warm", within: root + "/run")
        XCTAssertEqual(mode(elsewhere), 0o700)
        XCTAssertEqual(mode(elsewhere + "/warm"), 0o700)
        // ~/.config linked to a dotfiles checkout: followed, sshelf's folder made in the checkout.
        XCTAssertEqual(symlink(home, root + "/home"), 0)
        try PrivateFiles.ensureDirectory(root + "/home/sshelf", within: root + "/home/sshelf")
        XCTAssertEqual(mode(home + "/sshelf"), 0o700)
        // The same link planted by another uid in a shared folder is not followed.
        XCTAssertEqual(lchown(root + "/home", other, gid_t.max), 0)
        let folder = root + "/home/sshelf2"
        let message = refusal { try PrivateFiles.ensureDirectory(folder, within: folder) }
        XCTAssertTrue(message.contains("\(root)/home is a symbolic link owned by uid \(other)"), message)
        XCTAssertNil(mode(home + "/sshelf2"))
    }

    func testTheFinalFolderIsOursWhenNoRootIsGiven() throws {
        let other = try otherUID()
        let target = try victim()
        XCTAssertEqual(symlink(target, root + "/state"), 0)
        XCTAssertEqual(lchown(root + "/state", other, gid_t.max), 0)
        let message = refusal { try PrivateFiles.ensureDirectory(root + "/state") }
        XCTAssertTrue(message.contains("is a symbolic link"), message)
        XCTAssertEqual(mode(target), 0o755)
    }
}

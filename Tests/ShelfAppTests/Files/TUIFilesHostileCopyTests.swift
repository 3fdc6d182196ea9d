// TUIFilesHostileCopyTests: a hostile folder on the host, copied whole through the file pane (tmux, the real sshd) —
// names with an escape sequence and a newline, a FIFO named with an escape, a device, a link out of the folder to a
// folder, a folder loop through a link, a setuid file. The pane lists them escaped and answers a key once listed;
// the copy brings only the regular files (the setuid one without setuid) inside the target and nothing else
// anywhere, and its line says what it did not copy, the names escaped.
import Foundation
import TestSupport
import XCTest

final class TUIFilesHostileCopyTests: XCTestCase {
    private func makeFile(_ path: String, bytes: Int = 10, mode: mode_t = 0o644) throws {
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x61, count: bytes)), path)
        XCTAssertEqual(chmod(path, mode), 0, path)
    }

    func testCopyingAHostileFolderBringsOnlyRegularFilesAndFoldersAndSaysWhatItSkipped() throws {
        let world = try FleetWorld(["a"])
        let parent = world.shared + "/from"
        let tree = parent + "/hostile"
        try FileManager.default.createDirectory(atPath: tree + "/sub", withIntermediateDirectories: true)
        try makeFile(tree + "/\u{1b}[31mred")
        try makeFile(tree + "/two\nlines")
        try makeFile(tree + "/setuid-tool", bytes: 50, mode: 0o4755)
        try makeFile(tree + "/sub/inner.txt", bytes: 7)
        XCTAssertEqual(mkfifo(tree + "/\u{1b}[1mfifo", 0o644), 0)
        XCTAssertEqual(getuid(), 0, "the tests run as root (CI does): mknod makes a device")
        XCTAssertEqual(mknod(tree + "/a-device", S_IFCHR | 0o644, dev_t(1 << 8 | 3)), 0)
        try FileManager.default.createSymbolicLink(atPath: tree + "/out", withDestinationPath: "/etc")
        try FileManager.default.createSymbolicLink(atPath: tree + "/sub/loop", withDestinationPath: "..")
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let besideBefore = Set(try FileManager.default.contentsOfDirectory(atPath: world.home.root))

        let tui = try Tmux(
            home: world.home, arguments: ["files", "a", tree, "--local", here], columns: 250, rows: 30)
        try tui.waitFor("the hostile names, escaped") { screen in
            XCTAssertFalse(screen.contains("\u{1b}"), "an escape reached the screen:\n\(screen)")
            return screen.contains("\\x1b[31mred") && screen.contains("two\\nlines") && screen.contains("\\x1b[1mfifo")
                && screen.contains("out -> /etc") && screen.contains("crw-r--r--") && screen.contains("-rwsr-xr-x")
                && screen.contains("7 entries") && !screen.contains("reading...")
        }
        // Responsive once listed: a key is answered (the cursor on the last entry, its details below).
        try tui.send("G")
        try tui.waitFor("the last entry's details") { $0.contains("two\\nlines") && $0.contains("10 bytes") }

        // Up to the parent, the cursor back on hostile/, which is copied whole to this machine.
        try tui.send("h")
        try tui.waitFor("the parent, on hostile/") { $0.contains("a: \(parent)\n") && $0.contains("1 entry") }
        try tui.send("c")
        try tui.waitFor("the copy ended, saying what it skipped") { screen in
            XCTAssertFalse(screen.contains("\u{1b}"), "an escape reached the screen:\n\(screen)")
            return screen.contains("↓ hostile to \(here)  failed: 4 files, 77 bytes; not copied: ")
                && screen.contains("hostile/\\x1b[1mfifo is a FIFO (named pipe), not a regular file (and 3 more)")
        }

        // Only regular files and folders arrived, inside the target, without setuid.
        let copied = here + "/hostile"
        var found: [String: mode_t] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: copied) {
            var info = stat()
            XCTAssertEqual(lstat(copied + "/" + path, &info), 0, path)
            found[path] = info.st_mode
        }
        XCTAssertEqual(
            Set(found.keys), ["\u{1b}[31mred", "two\nlines", "setuid-tool", "sub", "sub/inner.txt"],
            "the FIFO, the device and both links were not copied")
        for (path, mode) in found {
            XCTAssertTrue(mode & S_IFMT == S_IFREG || mode & S_IFMT == S_IFDIR, "\(path) is \(mode & S_IFMT)")
            XCTAssertEqual(mode & 0o7000, 0, "\(path) came with setuid, setgid or sticky")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: here), ["hostile"])
        let added = Set(try FileManager.default.contentsOfDirectory(atPath: world.home.root)).subtracting(besideBefore)
        let hostileNames = ["hostile", "\u{1b}[31mred", "two\nlines", "setuid-tool", "sub", "inner.txt", "out", "loop"]
        XCTAssertTrue(added.isDisjoint(with: hostileNames), "written beside the target: \(added)")
        XCTAssertFalse(
            try FileManager.default.subpathsOfDirectory(atPath: here).contains { $0.contains(".part") },
            "no temporary file left")
        try tui.closeFilesAndQuit()
    }
}

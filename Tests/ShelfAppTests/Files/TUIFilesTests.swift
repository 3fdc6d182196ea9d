// TUIFilesTests: the file pane in real tmux against the real sshd — `sshelf files HOST PATH` and `F` on a host open
// this machine's folder beside the host's; the keys move, open folders and links to folders, go up (back onto the
// folder left), switch sides, filter, and show hidden names; a link shows its target. A hostile folder (escapes, a
// newline, bytes that are not UTF-8 in names, a 255-byte name, a FIFO, a device, a link out, a link loop) lists with
// every name escaped and nothing opened that is not a folder; a folder of 10,000 entries lists whole and the keys
// reach its end. A folder's copy with several files in flight cancels whole, and the pane goes on.
import Foundation
import TestSupport
import XCTest

final class TUIFilesTests: XCTestCase {
    private func makeFile(_ path: String, bytes: Int = 10) throws {
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x61, count: bytes)), path)
    }

    func testBrowseFilterHiddenLinksAndBothSides() throws {
        let world = try FleetWorld(["a"])
        let tree = world.shared + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/sub", withIntermediateDirectories: true)
        try makeFile(tree + "/alpha.txt", bytes: 5000)
        try makeFile(tree + "/beta.log")
        try makeFile(tree + "/.secret-notes")
        try makeFile(tree + "/sub/inner.txt")
        try FileManager.default.createSymbolicLink(atPath: tree + "/shortcut", withDestinationPath: "alpha.txt")
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        try makeFile(here + "/local-one.txt")

        let tui = try Tmux(home: world.home, arguments: ["files", "a", tree, "--local", here], columns: 220, rows: 30)
        try tui.waitFor("both sides listed") {
            $0.contains("this machine: \(here)") && $0.contains("a: \(tree)") && $0.contains("local-one.txt")
                && $0.contains("alpha.txt") && $0.contains("sub/") && $0.contains("shortcut -> alpha.txt")
                && $0.contains("5000") && !$0.contains(".secret-notes") && !$0.contains("reading...")
        }

        try tui.send(".")
        try tui.waitFor(text: ".secret-notes")
        try tui.send(".")
        try tui.waitFor("hidden again") { !$0.contains(".secret-notes") && $0.contains("alpha.txt") }

        try tui.send("/")
        try tui.type("bet")
        try tui.waitFor("the filter") { $0.contains("beta.log") && $0.contains("/bet_") && !$0.contains("alpha.txt") }
        try tui.send("Escape")
        try tui.waitFor("the filter cleared") { $0.contains("alpha.txt") && !$0.contains("/bet") }

        // The cursor stayed on beta.log through the filter; folders come first: g goes to sub/.
        try tui.send("g")
        try tui.send("Enter")
        try tui.waitFor("inside sub") { $0.contains("a: \(tree)/sub\n") && $0.contains("inner.txt") }
        try tui.send("h")
        try tui.waitFor("back up, on sub") {
            $0.contains("a: \(tree)\n") && $0.contains("alpha.txt") && $0.contains("drwx")
        }
        try tui.send("j")
        try tui.waitFor("the details of alpha.txt") { $0.contains("5000 bytes") && $0.contains("alpha.txt") }
        // A host's file opens in the editor: with neither variable set, the line says to set one.
        try tui.send("Enter")
        try tui.waitFor(text: "neither $EDITOR nor $VISUAL is set: set one to your editor (e.g. export EDITOR=nano)")

        try tui.send("Tab")
        try tui.waitFor("this machine's side has the keys") { $0.contains("bytes") && $0.contains("local-one.txt") }
        try tui.send("h")
        try tui.waitFor("this machine's parent folder") { $0.contains("this machine: \(world.home.root) ") }

        try tui.send("q")
        try tui.waitFor("the host list") { $0.contains("2 hosts") && !$0.contains("this machine:") }
        XCTAssertTrue(world.sshd.waitForConnectionsEnded(), world.sshd.log)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// `c` copies the marked entries (else the one under the cursor) into the other side's folder, both ways, folders
    /// whole, through cp's engine: the bytes arrive, the queue line says done with the count, the destination lists
    /// the copy, and no temporary file is left; a setuid file comes down without setuid; a FIFO is refused at once.
    func testCopyBothWaysWithTheQueue() throws {
        let world = try FleetWorld(["a"])
        let remote = world.shared + "/remote"
        try FileManager.default.createDirectory(atPath: remote + "/docs", withIntermediateDirectories: true)
        XCTAssertEqual(chmod(remote, 0o777), 0, "the login (another account) writes the upload there")
        try makeFile(remote + "/docs/one.txt", bytes: 1234)
        try makeFile(remote + "/docs/two.txt", bytes: 4321)
        try makeFile(remote + "/big.bin", bytes: 3_000_000)
        try makeFile(remote + "/setuid-tool", bytes: 50)
        XCTAssertEqual(chmod(remote + "/setuid-tool", 0o4755), 0)
        XCTAssertEqual(mkfifo(remote + "/pipe", 0o644), 0)
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        try makeFile(here + "/up.txt", bytes: 777)

        let tui = try Tmux(
            home: world.home, arguments: ["files", "a", remote, "--local", here], columns: 220, rows: 30)
        try tui.waitFor("both sides") { $0.contains("docs/") && $0.contains("up.txt") && !$0.contains("reading...") }
        // Remote side: docs/ first, then big.bin, pipe, setuid-tool. Mark docs and big.bin, copy them down.
        try tui.send("Space")
        try tui.send("Space")
        try tui.send("c")
        try tui.waitFor("the download done") {
            $0.contains("done: 3 files, 3005555 bytes") && $0.contains("↓ 2 entries to \(here)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: here + "/big.bin")).count, 3_000_000)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: here + "/docs/two.txt")).count, 4321)
        try tui.waitFor("the local side read again") { $0.contains("big.bin") && $0.contains("3 entries") }

        // Space moved the cursor down past both: it is on the FIFO, which is refused before anything starts.
        try tui.send("c")
        try tui.waitFor(text: "pipe is a FIFO: only regular files and folders are copied")
        try tui.send("j")
        try tui.send("c")
        try tui.waitFor(text: "↓ setuid-tool to \(here)  done: 1 file, 50 bytes")
        var info = stat()
        XCTAssertEqual(stat(here + "/setuid-tool", &info), 0)
        XCTAssertEqual(info.st_mode & 0o7000, 0, "no setuid came down")

        // Up: this machine's up.txt into the host's folder.
        try tui.send("Tab")
        try tui.send("G")
        try tui.waitFor("up.txt under the cursor") { $0.contains("777 bytes") }
        try tui.send("c")
        try tui.waitFor(text: "↑ up.txt to \(remote)  done: 1 file, 777 bytes")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: remote + "/up.txt")).count, 777)
        let leftovers =
            try FileManager.default.subpathsOfDirectory(atPath: remote)
            + FileManager.default.subpathsOfDirectory(atPath: here)
        XCTAssertFalse(leftovers.contains { $0.contains(".part") }, "\(leftovers)")
        try tui.closeFilesAndQuit()
    }

    /// `x` cancels the running copy: its temporary file is removed (cp's stop), nothing is left under the final name,
    /// and the queue says cancelled. A 4 GiB sparse file on the host keeps the copy running long enough to cancel.
    func testCancelACopyLeavesNothingBehind() throws {
        let world = try FleetWorld(["a"])
        let remote = world.shared + "/big"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: remote + "/huge.img", contents: nil))
        XCTAssertEqual(truncate(remote + "/huge.img", 4 << 30), 0)
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let tui = try Tmux(
            home: world.home, arguments: ["files", "a", remote, "--local", here], columns: 200, rows: 30)
        try tui.waitFor("the host's side") { $0.contains("huge.img") && !$0.contains("reading...") }
        try tui.send("c")
        try tui.waitFor("the copy running, with its rate and time left") {
            $0.contains("↓ huge.img to \(here)") && $0.contains(" of 4.0G, ") && $0.contains(" s left")
        }
        try tui.send("x")
        try tui.waitFor(text: "↓ huge.img to \(here)  cancelled")
        try tui.waitFor("the local side read again, empty") { $0.contains("0 entries") }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: here), [], "no partial or final file")
        try tui.closeFilesAndQuit()
    }

    /// A folder's files copy several at a time (cp's channels): `x` stops every one of them, each temporary file is
    /// removed, no file is left here at all; the pane's own SFTP session then goes on (the next copy is done). Three
    /// 4 GiB sparse files keep all three in flight long enough to cancel.
    func testCancelAFolderWithSeveralFilesInFlightLeavesNothingAndThePaneGoesOn() throws {
        let world = try FleetWorld(["a"])
        let remote = world.shared + "/multi"
        try FileManager.default.createDirectory(atPath: remote + "/set", withIntermediateDirectories: true)
        for name in ["one.img", "two.img", "three.img"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: remote + "/set/" + name, contents: nil))
            XCTAssertEqual(truncate(remote + "/set/" + name, 4 << 30), 0)
        }
        try makeFile(remote + "/zz.txt", bytes: 1234)
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let tui = try Tmux(
            home: world.home, arguments: ["files", "a", remote, "--local", here], columns: 200, rows: 30)
        try tui.waitFor("the host's side") { $0.contains("zz.txt") && !$0.contains("reading...") }
        try tui.send("c")
        try tui.waitFor("the folder's copy running, with its rate") {
            $0.contains("↓ set to \(here)") && $0.contains("/s")
        }
        try tui.send("x")
        try tui.waitFor(text: "↓ set to \(here)  cancelled")
        let files = try FileManager.default.subpathsOfDirectory(atPath: here).filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: here + "/" + $0, isDirectory: &folder) && !folder.boolValue
        }
        XCTAssertEqual(files, [], "no partial or final file")
        try tui.send("G")
        try tui.send("c")
        try tui.waitFor(text: "↓ zz.txt to \(here)  done: 1 file, 1234 bytes")
        XCTAssertEqual(FileManager.default.contents(atPath: here + "/zz.txt")?.count, 1234)
        try tui.closeFilesAndQuit()
    }

    /// On the host's side: `n` makes a folder, `R` renames (an existing name refused), `M` changes the mode (a bad
    /// one refused), `d` deletes a file after y, and a folder with what is in it only once its name is typed.
    func testMakeRenameModeAndDeleteWithConfirmation() throws {
        let world = try FleetWorld(["a"])
        let remote = world.shared + "/changes"
        try FileManager.default.createDirectory(atPath: remote + "/tree/deep", withIntermediateDirectories: true)
        try makeFile(remote + "/old.txt")
        try makeFile(remote + "/other.txt")
        try makeFile(remote + "/tree/deep/inner.txt")
        for path in ["", "/old.txt", "/other.txt", "/tree", "/tree/deep", "/tree/deep/inner.txt"] {
            try FileManager.default.setAttributes([.ownerAccountName: TestAccount.name], ofItemAtPath: remote + path)
        }
        let tui = try Tmux(home: world.home, arguments: ["files", "a", remote], columns: 200, rows: 30)
        try tui.waitFor("the folder") { $0.contains("old.txt") && $0.contains("tree/") && !$0.contains("reading...") }

        try tui.send("n")
        try tui.type("made")
        try tui.send("Enter")
        try tui.waitFor("the new folder listed") {
            $0.contains("made the folder \(remote)/made") && $0.contains("made/")
        }
        var isFolder: ObjCBool = false
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: remote + "/made", isDirectory: &isFolder) && isFolder.boolValue)

        try tui.filterFiles("old")
        try tui.send("R")
        try tui.waitFor(text: "Rename old.txt to: old.txt_")
        try tui.send("C-u")
        try tui.type("other.txt")
        try tui.send("Enter")
        try tui.waitFor(text: "\(remote)/other.txt already exists: nothing renamed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: remote + "/old.txt"))
        try tui.filterFiles("old")
        try tui.send("R")
        try tui.send("C-u")
        try tui.type("new.txt")
        try tui.send("Enter")
        try tui.waitFor("renamed") { $0.contains("renamed old.txt to new.txt") && $0.contains("new.txt") }
        XCTAssertTrue(FileManager.default.fileExists(atPath: remote + "/new.txt"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: remote + "/old.txt"))

        try tui.filterFiles("new")
        try tui.send("M")
        try tui.waitFor(text: "Mode of new.txt (octal, e.g. 644): 644_")
        try tui.send("C-u")
        try tui.type("9")
        try tui.send("Enter")
        try tui.waitFor(text: "a mode is 3 octal digits, 000 to 777")
        try tui.send("C-u")
        try tui.type("600")
        try tui.send("Enter")
        try tui.waitFor("the mode changed") { $0.contains("new.txt is now 600") && $0.contains("-rw-------") }
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: remote + "/new.txt")[.posixPermissions] as? Int, 0o600)

        try tui.filterFiles("new")
        try tui.send("d")
        try tui.waitFor(text: "Delete new.txt? y deletes, n keeps it")
        try tui.send("y")
        try tui.waitFor("the file deleted") { $0.contains("deleted \(remote)/new.txt") && !$0.contains(" new.txt") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: remote + "/new.txt"))

        try tui.filterFiles("tree")
        try tui.send("d")
        try tui.waitFor(text: "Delete the folder tree and everything in it? Type its name:")
        try tui.type("tre")
        try tui.send("Enter")
        try tui.waitFor(text: "that is not the folder's name: nothing deleted")
        XCTAssertTrue(FileManager.default.fileExists(atPath: remote + "/tree/deep/inner.txt"))
        try tui.type("e")
        try tui.send("Enter")
        try tui.waitFor("the folder deleted") { $0.contains("deleted \(remote)/tree") && !$0.contains("tree/") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: remote + "/tree"))
        try tui.closeFilesAndQuit()
    }

    /// The host's connection breaks (its sshd session killed): the host's side says so and what to do, and the
    /// pane stays usable on this machine's side and closes. `r` on the host's side then says the same at once: before,
    /// it asked the side's ended thread for a listing, and the run loop polled for the answer every 2 ms until the
    /// pane closed (FilesRemoteSideTests asserts that nothing is left expected).
    func testABrokenConnectionIsSaidOnTheHostsSide() throws {
        let world = try FleetWorld(["a"])
        let tui = try Tmux(home: world.home, arguments: ["files", "a"], columns: 160, rows: 30)
        try tui.waitFor("the host's home") { $0.contains("a: /home/\(TestAccount.name)") && !$0.contains("reading...") }
        XCTAssertGreaterThan(try world.sshd.killSessions(), 0)
        try tui.send("r")
        try tui.waitFor(text: "the connection to the host broke: close the pane (q) and open it again (F)")
        try tui.send("Tab")
        try tui.send("r")
        try tui.waitFor(text: "read the folder again: the connection to the host broke: close the pane (q)")
        try tui.closeFilesAndQuit()
    }

    /// A copy each way leaves the two release-log lines `sshelf cp` writes (`by: files`, the item the hash of the cp
    /// command line doing the same copy, the host with its verified key and the outcome), and the log verifies.
    /// With the log unwritable (release.log a directory, as on a full disk) a copy is refused with the reason before
    /// anything is sent.
    func testCopiesAreLoggedAndOneThatCannotBeLoggedIsRefused() throws {
        let world = try FleetWorld(["a"])
        let remote = world.shared + "/logged"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(remote, 0o777), 0, "the login (another account) writes the upload there")
        try makeFile(remote + "/down.txt", bytes: 100)
        let here = world.home.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        try makeFile(here + "/up.txt", bytes: 200)
        let tui = try Tmux(
            home: world.home, arguments: ["files", "a", remote, "--local", here], columns: 220, rows: 30)
        try tui.waitFor("both sides") { $0.contains("down.txt") && $0.contains("up.txt") && !$0.contains("reading...") }
        XCTAssertEqual(try world.home.filesCopyLines().count, 0, "no copy yet")

        try tui.send("c")
        try tui.waitFor(text: "↓ down.txt to \(here)  done: 1 file, 100 bytes")
        try tui.send("Tab")
        try tui.filterFiles("up")
        try tui.send("c")
        try tui.waitFor(text: "↑ up.txt to \(remote)  done: 1 file, 200 bytes")

        let lines = try world.home.filesCopyLines()
        XCTAssertEqual(lines.compactMap { $0["what"] as? String }, ["copy started", "copy", "copy started", "copy"])
        guard lines.count == 4 else { return }
        let down = FleetWorld.sha256("cp -r a:\(remote)/down.txt \(here)")
        let up = FleetWorld.sha256("cp -r \(here)/up.txt a:\(remote)")
        XCTAssertEqual(lines.compactMap { $0["item"] as? String }, [down, down, up, up])
        XCTAssertEqual(lines.compactMap { $0["host"] as? String }, ["a", "a", "a", "a"])
        XCTAssertEqual(lines[0]["detail"] as? String, "targets a")
        for last in [lines[1], lines[3]] {
            let detail = try XCTUnwrap(last["detail"] as? String)
            XCTAssertTrue(detail.hasPrefix("targets a; a SHA256:"), detail)
            XCTAssertTrue(detail.hasSuffix(" succeeded"), detail)
        }
        XCTAssertExit(try world.home.run("log", "verify"), 0)

        // The log cannot be written: the copy is refused with the reason, and nothing reaches the host.
        XCTAssertEqual(unlink(remote + "/up.txt"), 0)
        try world.home.breakTheReleaseLog()
        try tui.send("c")
        try tui.waitFor(text: "↑ up.txt to \(remote)  failed: the copy could not be written to the release log")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: remote), ["down.txt"], "nothing sent")
        try tui.send("Escape")
        try tui.closeFilesAndQuit()
    }

    /// `F` on the selected host: the pane opens on the login's home.
    func testFOnAHostOpensItsHome() throws {
        let world = try FleetWorld(["a"])
        let tui = try Tmux(home: world.home, columns: 100, rows: 30)
        try tui.waitFor(text: "2 hosts")
        try tui.send("F")
        try tui.waitFor("the host's home") { $0.contains("a: /home/\(TestAccount.name)") && $0.contains("entr") }
        try tui.send("Escape")
        try tui.waitFor("the host list") { $0.contains("2 hosts") && !$0.contains("this machine:") }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// A hostile folder: every name shown escaped (no byte of it reaches the terminal as a command), a name of 255
    /// bytes listed, and Enter opens nothing that is not a folder (a FIFO, a device); a link out and a link loop are
    /// shown as links with their targets.
    func testAHostileFolderListsEscapedAndOpensNothingButFolders() throws {
        let world = try FleetWorld(["a"])
        let tree = world.shared + "/hostile"
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try makeFile(tree + "/\u{1b}[31mred")
        try makeFile(tree + "/two\nlines")
        // Bytes that are not UTF-8: made through the raw path.
        let raw = Array((tree + "/bad-").utf8) + [0xFF, 0xFE] + Array("-name".utf8) + [0]
        let fd = raw.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        try makeFile(tree + "/" + String(repeating: "L", count: 255))
        XCTAssertEqual(mkfifo(tree + "/a-fifo", 0o644), 0)
        XCTAssertEqual(mknod(tree + "/a-device", S_IFCHR | 0o644, dev_t(1 << 8 | 3)), 0)
        try FileManager.default.createSymbolicLink(atPath: tree + "/out", withDestinationPath: "/etc")
        try FileManager.default.createSymbolicLink(atPath: tree + "/loop", withDestinationPath: ".")

        let tui = try Tmux(home: world.home, arguments: ["files", "a", tree], columns: 220, rows: 30)
        try tui.waitFor("the hostile names, escaped") { screen in
            XCTAssertFalse(screen.contains("\u{1b}"), "an escape reached the screen:\n\(screen)")
            return screen.contains("\\x1b[31mred") && screen.contains("two\\nlines")
                && screen.contains("bad-\\xff\\xfe-name") && screen.contains("LLLLLLLL")
                && screen.contains("out -> /etc") && screen.contains("loop -> .") && screen.contains("prw-r--r--")
                && screen.contains("crw-r--r--") && screen.contains("8 entries") && !screen.contains("reading...")
        }
        try tui.filterFiles("fifo")
        try tui.send("Enter")
        try tui.waitFor(text: "a-fifo is a FIFO, not a folder")
        // A key sent right after Esc could reach curses with it as one Alt sequence: the next waits for Esc's effect.
        try tui.send("Escape")
        try tui.waitFor("the filter cleared") { $0.contains("8 entries") && !$0.contains(" of 8") }
        try tui.filterFiles("device")
        try tui.send("Enter")
        try tui.waitFor(text: "a-device is a character device, not a folder")
        // The loop is a link to a folder: it opens (the same folder again, one level deeper by name).
        try tui.send("Escape")
        try tui.waitFor("the filter cleared again") { $0.contains("8 entries") && !$0.contains(" of 8") }
        try tui.filterFiles("loop")
        try tui.send("Enter")
        try tui.waitFor("through the loop") { $0.contains("a: \(tree)/loop\n") && $0.contains("8 entries") }
        try tui.closeFilesAndQuit()
    }

    /// 10,000 entries: the whole folder lists (the count says so), and the keys reach its last entry.
    func testATenThousandEntryFolderListsWholeAndStaysUsable() throws {
        let world = try FleetWorld(["a"])
        let tree = world.shared + "/many"
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        for i in 0..<10_000 { try makeFile(tree + String(format: "/f%05d", i), bytes: 1) }
        let tui = try Tmux(home: world.home, arguments: ["files", "a", tree], columns: 100, rows: 30)
        try tui.waitFor(text: "f00000")
        try tui.waitFor("every entry") { $0.contains("10000 entries") && !$0.contains("reading...") }
        try tui.send("G")
        try tui.waitFor(text: "f09999")
        try tui.send("/")
        try tui.type("f0500")
        try tui.waitFor("ten of them") { $0.contains("10 entries of 10000") && $0.contains("f05009") }
        try tui.send("Escape")
        try tui.waitFor("the filter cleared") { $0.contains("10000 entries") && !$0.contains(" of 10000") }
        try tui.closeFilesAndQuit()
    }
}

// TUIFilesEditTests: Enter on a host's file in the file pane, in real tmux against the real sshd, with a script as
// $EDITOR that records what it was given (its arguments, environment, the copy's mode and its folder's) and then, as
// the test's plan says, appends a line to the copy and/or changes the host's file meanwhile (the sshd serves this
// machine's disk: the side channel is a plain write). Unchanged: nothing uploaded (the host's file keeps its time
// and inode). Changed: saved with its mode. Changed meanwhile: overwrite, keep theirs, save mine under another name
// (an existing one refused). The private copy is 0600 in a 0700 folder while the editor runs and gone after, and no
// credential reaches the editor.
import Foundation
import TestSupport
import XCTest

final class TUIFilesEditTests: XCTestCase {
    private struct Setup {
        let world: FleetWorld
        let folder: String
        let notes: String
        let plan: String
        let log: String
        let tui: Tmux
        /// Where the private copies are made (sshelf's runtime folder under the test's SSHELF_HOME).
        var copies: String { world.home.sshelfHome + "/run/edit" }
    }

    private static let original = "first line\n"

    /// A folder on the host with notes.txt (0640, the login's, an old time) and other.txt, and the pane open on it
    /// with the editor script as $EDITOR.
    private func openPane(columns: Int = 220) throws -> Setup {
        let world = try FleetWorld(["a"])
        let folder = world.shared + "/edit"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(folder, 0o777), 0, "the login (another account) writes beside the file")
        let notes = folder + "/notes.txt"
        try Data(Self.original.utf8).write(to: URL(fileURLWithPath: notes))
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: folder + "/other.txt"))
        for path in [notes, folder + "/other.txt"] {
            try FileManager.default.setAttributes([.ownerAccountName: TestAccount.name], ofItemAtPath: path)
        }
        XCTAssertEqual(chmod(notes, 0o640), 0)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)], ofItemAtPath: notes)
        let plan = world.home.root + "/editor-plan"
        let log = world.home.root + "/editor-log"
        try Data("none".utf8).write(to: URL(fileURLWithPath: plan))
        let script = world.home.root + "/editor.py"
        try Data(
            """
            #!\(TestTool.python3.path)
            import json, os, sys
            copy = sys.argv[-1]
            record = {
                "args": sys.argv, "env": dict(os.environ), "copy": copy,
                "mode": os.stat(copy).st_mode & 0o7777, "folder": os.stat(os.path.dirname(copy)).st_mode & 0o7777,
            }
            with open(\(Self.pythonString(log)), "a") as out:
                out.write(json.dumps(record) + "\\n")
            plan = open(\(Self.pythonString(plan))).read()
            if "append" in plan:
                with open(copy, "a") as f:
                    f.write("added by the editor\\n")
            if "lock" in plan:
                os.chmod(\(Self.pythonString(folder)), 0o555)
            if "fail" in plan:
                sys.exit(3)
            if "swap" in plan:
                # Other bytes of the same size, and the time put back: only the bytes tell.
                before = os.stat(\(Self.pythonString(notes)))
                data = open(\(Self.pythonString(notes)), "rb").read()
                with open(\(Self.pythonString(notes)), "wb") as f:
                    f.write(data.upper())
                os.utime(\(Self.pythonString(notes)), ns=(before.st_atime_ns, before.st_mtime_ns))
            if "side" in plan:
                with open(\(Self.pythonString(notes)), "a") as f:
                    f.write("changed on the host meanwhile\\n")
            """.utf8
        ).write(to: URL(fileURLWithPath: script))
        XCTAssertEqual(chmod(script, 0o755), 0)
        let tui = try Tmux(
            home: world.home, arguments: ["files", "a", folder], columns: columns, rows: 30,
            environment: ["EDITOR": script + " --wait"])
        try tui.waitFor("the folder") {
            $0.contains("notes.txt") && $0.contains("other.txt") && !$0.contains("reading...")
        }
        return Setup(world: world, folder: folder, notes: notes, plan: plan, log: log, tui: tui)
    }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private func contents(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// The editor's records so far, one per run.
    private func records(_ setup: Setup) throws -> [[String: Any]] {
        try contents(setup.log).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// No copy left: the folder the copies are made in holds nothing.
    private func assertNoCopyLeft(_ setup: Setup, file: StaticString = #filePath, line: UInt = #line) throws {
        let left = (try? FileManager.default.contentsOfDirectory(atPath: setup.copies)) ?? []
        XCTAssertEqual(left, [], "a private copy was left behind", file: file, line: line)
    }

    /// Puts the cursor on `name` (the filter), then Enter.
    private func edit(_ setup: Setup, _ name: String, plan: String) throws {
        try Data(plan.utf8).write(to: URL(fileURLWithPath: setup.plan))
        try setup.tui.filterFiles(name)
        try setup.tui.waitFor("the filter on \(name)") { $0.contains("1 entry of") }
        try setup.tui.send("Enter")
    }

    /// Clears the filter a line left on (Esc: the edit said something and the folder was not read again).
    private func clearFilter(_ setup: Setup) throws {
        try setup.tui.send("Escape")
        try setup.tui.waitFor("the filter cleared") { !$0.contains("1 entry of") }
    }

    /// A save reads the folder again, which clears the filter: waited for (Esc without a filter closes the pane).
    private func waitForTheFolderReadAgain(_ setup: Setup) throws {
        try setup.tui.waitFor("the folder read again") { !$0.contains("1 entry of") && !$0.contains("reading...") }
    }

    func testUnchangedUploadsNothingChangedIsSavedWithItsModeAndTheCopyIsPrivate() throws {
        let setup = try openPane()
        var before = stat()
        XCTAssertEqual(stat(setup.notes, &before), 0)

        try edit(setup, "notes", plan: "none")
        try setup.tui.waitFor(text: "notes.txt unchanged: nothing uploaded")
        var after = stat()
        XCTAssertEqual(stat(setup.notes, &after), 0)
        XCTAssertEqual(after.st_mtim.tv_sec, before.st_mtim.tv_sec, "no upload: the host's file kept its time")
        XCTAssertEqual(after.st_ino, before.st_ino, "no upload: the same file")
        try assertNoCopyLeft(setup)

        let first = try XCTUnwrap(try records(setup).first)
        XCTAssertEqual(first["mode"] as? Int, 0o600, "the copy is 0600 while the editor has it")
        XCTAssertEqual(first["folder"] as? Int, 0o700, "in a 0700 folder")
        let copy = try XCTUnwrap(first["copy"] as? String)
        XCTAssertTrue(copy.hasPrefix(setup.copies + "/"), copy)
        XCTAssertTrue(copy.hasSuffix("/notes.txt"), copy)
        let args = try XCTUnwrap(first["args"] as? [String])
        XCTAssertEqual(args.count, 3, "the editor's words split, then the copy: \(args)")
        XCTAssertEqual(args[1], "--wait")
        // No credential reaches the editor: not the login key's bytes, not the account's password, nothing of
        // sshelf's own settings.
        let environment = try XCTUnwrap(first["env"] as? [String: String])
        let given = (args + environment.map { "\($0.key)=\($0.value)" }).joined(separator: "\n")
        let keyLines = String(decoding: setup.world.cli.key.privateBytes, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("-----") }
        XCTAssertFalse(keyLines.isEmpty)
        for line in keyLines { XCTAssertFalse(given.contains(line), "a line of the private key reached the editor") }
        XCTAssertFalse(given.contains(TestAccount.password))
        XCTAssertFalse(environment.keys.contains { $0.hasPrefix("SSHELF_") }, "\(environment.keys.sorted())")

        try clearFilter(setup)
        try edit(setup, "notes", plan: "append")
        try setup.tui.waitFor(text: "saved \(setup.notes) on the host (31 bytes)")
        XCTAssertEqual(try contents(setup.notes), Self.original + "added by the editor\n")
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: setup.notes)[.posixPermissions] as? Int, 0o640,
            "the host file's mode is kept")
        let names = try FileManager.default.contentsOfDirectory(atPath: setup.folder).sorted()
        XCTAssertEqual(names, ["notes.txt", "other.txt"], "no temporary file left beside it")
        try assertNoCopyLeft(setup)
        XCTAssertEqual(try records(setup).count, 2)
        try waitForTheFolderReadAgain(setup)

        // A binary file (every byte value) comes back byte for byte with the line added.
        let blob = Data((0...255).map { UInt8($0) } + [0, 0x1b, 0xff])
        try blob.write(to: URL(fileURLWithPath: setup.folder + "/blob.bin"))
        try FileManager.default.setAttributes(
            [.ownerAccountName: TestAccount.name], ofItemAtPath: setup.folder + "/blob.bin")
        try setup.tui.send("r")
        try edit(setup, "blob", plan: "append")
        try setup.tui.waitFor(text: "saved \(setup.folder)/blob.bin on the host (279 bytes)")
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: setup.folder + "/blob.bin")),
            blob + Data("added by the editor\n".utf8))
        try assertNoCopyLeft(setup)
        try waitForTheFolderReadAgain(setup)

        // A file over the round trip's limit is refused before anything is downloaded.
        XCTAssertTrue(FileManager.default.createFile(atPath: setup.folder + "/huge.img", contents: nil))
        XCTAssertEqual(truncate(setup.folder + "/huge.img", 65 << 20), 0)
        try waitForTheFolderReadAgain(setup)
        try setup.tui.send("r")
        try setup.tui.waitFor(text: "huge.img")
        try edit(setup, "huge", plan: "append")
        try setup.tui.waitFor(text: "the editor takes files up to 64 MiB (copy it here with c instead)")
        XCTAssertEqual(try records(setup).count, 3, "the editor did not run")
        try clearFilter(setup)
        try setup.tui.closeFilesAndQuit()
        try assertNoCopyLeft(setup)
    }

    func testChangedMeanwhileAsksOverwriteKeepTheirsOrSaveMine() throws {
        let setup = try openPane()
        let question = "notes.txt changed on the host: o overwrite it, k keep theirs, s save yours as"

        // o: mine replaces theirs.
        try edit(setup, "notes", plan: "append side")
        try setup.tui.waitFor(text: question)
        XCTAssertEqual(try contents(setup.notes), Self.original + "changed on the host meanwhile\n")
        try setup.tui.send("o")
        try setup.tui.waitFor(text: "saved \(setup.notes) on the host")
        let mine = Self.original + "added by the editor\n"
        XCTAssertEqual(try contents(setup.notes), mine)
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: setup.notes)[.posixPermissions] as? Int, 0o640)
        try assertNoCopyLeft(setup)

        // k: theirs stays, mine is dropped.
        try waitForTheFolderReadAgain(setup)
        try edit(setup, "notes", plan: "append side")
        try setup.tui.waitFor(text: question)
        try setup.tui.send("k")
        try setup.tui.waitFor(text: "kept the host's notes.txt: your edit was dropped")
        let theirs = mine + "changed on the host meanwhile\n"
        XCTAssertEqual(try contents(setup.notes), theirs)
        try assertNoCopyLeft(setup)

        // s: mine under another name; an existing name is refused, the free one offered is taken.
        try clearFilter(setup)
        try edit(setup, "notes", plan: "append side")
        try setup.tui.waitFor(text: question)
        try setup.tui.send("s")
        try setup.tui.waitFor(text: "Save yours beside it as: notes.txt.mine_")
        try setup.tui.send("C-u")
        try setup.tui.type("other.txt")
        try setup.tui.send("Enter")
        try setup.tui.waitFor(text: "\(setup.folder)/other.txt already exists: type another name")
        XCTAssertEqual(try contents(setup.folder + "/other.txt"), "theirs\n", "an existing name is never replaced")
        try setup.tui.waitFor(text: "Save yours beside it as: notes.txt.mine_")
        try setup.tui.send("Enter")
        try setup.tui.waitFor(text: "saved \(setup.folder)/notes.txt.mine on the host")
        XCTAssertEqual(try contents(setup.folder + "/notes.txt.mine"), theirs + "added by the editor\n")
        XCTAssertEqual(try contents(setup.notes), theirs + "changed on the host meanwhile\n", "theirs untouched")
        try assertNoCopyLeft(setup)
        XCTAssertEqual(try records(setup).count, 3)

        // Changed meanwhile to other bytes of the same size with the same time: the bytes are compared, so asked.
        // (No filter: notes.txt.mine would match too. The first entry is notes.txt, its size tells it.)
        try waitForTheFolderReadAgain(setup)
        try Data("append swap".utf8).write(to: URL(fileURLWithPath: setup.plan))
        let size = (theirs + "changed on the host meanwhile\n").utf8.count
        try setup.tui.send("g")
        try setup.tui.waitFor("the cursor on notes.txt") { $0.contains("\(size) bytes") && $0.contains("notes.txt") }
        try setup.tui.send("Enter")
        try setup.tui.waitFor(text: question)
        try setup.tui.send("k")
        try setup.tui.waitFor(text: "kept the host's notes.txt: your edit was dropped")
        XCTAssertEqual(try contents(setup.notes), (theirs + "changed on the host meanwhile\n").uppercased())
        try assertNoCopyLeft(setup)
        try setup.tui.closeFilesAndQuit()
    }

    /// Quitting sshelf (too small a window: q) while "changed on the host" waits for its answer keeps the edited copy
    /// (0600) and says where on the terminal once curses is gone; the host's file is untouched.
    func testQuittingWhileAskedSaysWhereTheEditIsKept() throws {
        let setup = try openPane()
        try edit(setup, "notes", plan: "append side")
        try setup.tui.waitFor(text: "notes.txt changed on the host: o overwrite it, k keep theirs, s save yours as")
        try setup.tui.resize(columns: 50, rows: 12)
        try setup.tui.waitFor(text: "Terminal too small")
        try setup.tui.send("q")
        XCTAssertEqual(try setup.tui.waitForExit(), 0)
        let left = try FileManager.default.subpathsOfDirectory(atPath: setup.copies).filter {
            $0.hasSuffix("notes.txt")
        }
        XCTAssertEqual(left.count, 1, "the one copy kept")
        let copy = setup.copies + "/" + left[0]
        XCTAssertEqual(try contents(copy), Self.original + "added by the editor\n")
        XCTAssertEqual(PrivateMode.of(copy), 0o600)
        // The pane wraps the line at 50 columns and 12 rows: read it whole, scrolled-off rows too (-S -), joined (-J).
        let said = try setup.tui.tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", setup.tui.session]).output
            .replacingOccurrences(of: "\n", with: "")
        XCTAssertTrue(
            said.contains(
                "sshelf: could not save notes.txt on the host: sshelf quit before the answer; your edit is kept in "
                    + copy),
            said)
        XCTAssertEqual(try contents(setup.notes), Self.original + "changed on the host meanwhile\n", "theirs untouched")
    }

    /// The editor failing uploads nothing; a save the host refuses keeps the copy (0600) and says where; a hostile
    /// name is edited through a plain local name and saved to the right file.
    func testAFailedEditorAFailedSaveAndAHostileName() throws {
        let setup = try openPane(columns: 250)
        try edit(setup, "notes", plan: "append fail")
        try setup.tui.waitFor(text: "the editor ended with exit 3: notes.txt not uploaded")
        XCTAssertEqual(try contents(setup.notes), Self.original)
        try assertNoCopyLeft(setup)

        // The folder becomes read-only for the login while the editor runs: the save is refused, the edit kept.
        try clearFilter(setup)
        try edit(setup, "notes", plan: "append lock")
        let kept = try setup.tui.waitFor("the save refused, the copy kept") {
            $0.contains("could not save notes.txt on the host: ") && $0.contains("permission denied")
                && $0.contains("; your edit is kept in \(setup.copies)/")
        }
        XCTAssertEqual(chmod(setup.folder, 0o777), 0)
        XCTAssertEqual(try contents(setup.notes), Self.original, "the host's file untouched")
        let left = try FileManager.default.contentsOfDirectory(atPath: setup.copies)
        XCTAssertEqual(left.count, 1, "the one copy kept")
        let copy = setup.copies + "/" + left[0] + "/notes.txt"
        XCTAssertTrue(kept.contains(copy) || kept.contains(left[0]), kept)
        XCTAssertEqual(try contents(copy), Self.original + "added by the editor\n", "no edit lost")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int, 0o600)
        try FileManager.default.removeItem(atPath: setup.copies + "/" + left[0])

        // A name with an escape, a newline and leading dots: the copy's name is plain, the save goes to that file.
        let hostile = setup.folder + "/..\n\u{1b}[31mevil.conf"
        try Data("hostile\n".utf8).write(to: URL(fileURLWithPath: hostile))
        try FileManager.default.setAttributes([.ownerAccountName: TestAccount.name], ofItemAtPath: hostile)
        try clearFilter(setup)
        try setup.tui.send("r")
        // A hidden name (the leading dot), which the filter shows.
        try edit(setup, "evil", plan: "append")
        try setup.tui.waitFor(text: "saved \(setup.folder)/..\\n\\x1b[31mevil.conf on the host")
        XCTAssertEqual(try contents(hostile), "hostile\nadded by the editor\n")
        let last = try XCTUnwrap(try records(setup).last?["copy"] as? String)
        XCTAssertEqual(URL(fileURLWithPath: last).lastPathComponent, "___31mevil.conf")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: setup.folder).sorted(),
            ["..\n\u{1b}[31mevil.conf", "notes.txt", "other.txt"], "nothing else written on the host")
        try assertNoCopyLeft(setup)

        // A link to a FIFO is refused before the server is asked to open it (it would wait for a writer forever),
        // and the side goes on answering.
        XCTAssertEqual(mkfifo(setup.folder + "/a-fifo", 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: setup.folder + "/pipe-link", withDestinationPath: "a-fifo")
        try waitForTheFolderReadAgain(setup)
        try setup.tui.send("r")
        try edit(setup, "pipe-link", plan: "append")
        try setup.tui.waitFor(
            text: "cannot edit pipe-link: \(setup.folder)/a-fifo is a FIFO (named pipe), not a regular file")
        try clearFilter(setup)
        try edit(setup, "other", plan: "none")
        try setup.tui.waitFor(text: "other.txt unchanged: nothing uploaded")
        try clearFilter(setup)
        try assertNoCopyLeft(setup)
        try setup.tui.closeFilesAndQuit()
    }

    /// A save leaves the two release-log lines `sshelf cp COPY a:FILE` writes (`by: files`, its hash as the item, the
    /// host with its verified key and the outcome), and the log verifies. With the log unwritable (release.log a
    /// directory, as on a full disk) the save is refused before anything is sent: the host's file untouched, the edit
    /// kept (0600) where the line says.
    func testASaveIsLoggedAndOneThatCannotBeLoggedKeepsTheEdit() throws {
        let setup = try openPane(columns: 250)
        try edit(setup, "notes", plan: "append")
        try setup.tui.waitFor(text: "saved \(setup.notes) on the host (31 bytes)")
        let copy = try XCTUnwrap(try records(setup).last?["copy"] as? String)
        let lines = try setup.world.home.filesCopyLines()
        XCTAssertEqual(lines.compactMap { $0["what"] as? String }, ["copy started", "copy"])
        let item = FleetWorld.sha256("cp \(copy) a:\(setup.notes)")
        XCTAssertEqual(lines.compactMap { $0["item"] as? String }, [item, item])
        XCTAssertEqual(lines.compactMap { $0["host"] as? String }, ["a", "a"])
        let detail = try XCTUnwrap(lines.last?["detail"] as? String)
        XCTAssertTrue(detail.hasPrefix("targets a; a SHA256:") && detail.hasSuffix(" succeeded"), detail)
        XCTAssertExit(try setup.world.home.run("log", "verify"), 0)
        try waitForTheFolderReadAgain(setup)

        try setup.world.home.breakTheReleaseLog()
        let saved = try contents(setup.notes)
        try edit(setup, "notes", plan: "append")
        try setup.tui.waitFor("the save refused, the copy kept") {
            $0.contains("could not save notes.txt on the host, your edit is kept in \(setup.copies)/")
                && $0.contains("/notes.txt: the save could not be written to the release log")
        }
        XCTAssertEqual(try contents(setup.notes), saved, "the host's file untouched")
        let left = try FileManager.default.contentsOfDirectory(atPath: setup.copies)
        XCTAssertEqual(left.count, 1, "the one copy kept")
        let kept = setup.copies + "/" + left[0] + "/notes.txt"
        XCTAssertEqual(try contents(kept), saved + "added by the editor\n", "no edit lost")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: setup.folder).sorted(), ["notes.txt", "other.txt"],
            "no temporary file on the host")
        try clearFilter(setup)
        try setup.tui.closeFilesAndQuit()
    }
}

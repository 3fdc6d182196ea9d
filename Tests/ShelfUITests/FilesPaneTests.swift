// FilesPaneTests: the file pane's reducer — F opens it and asks the app to log in; listings fill a side (an older
// one is dropped); folders first, hidden names toggled, the filter, Enter into a folder and h back onto it, Enter on
// a host's file over the editor's limit refused; names are shown escaped. And the screens the snapshots record.
import FoundationEssentials
import ShelfCore
import XCTest

@testable import ShelfUI

final class FilesPaneTests: XCTestCase {
    static let remoteEntries = [
        FileEntry(
            name: Array("logs".utf8), kind: .directory, size: 4096, permissions: 0o755, owner: "deploy",
            group: "deploy", modified: "2026-12-01 08:00"),
        FileEntry(
            name: Array("app.tar".utf8), kind: .file, size: 123_456_789, permissions: 0o644, owner: "deploy",
            group: "staff", modified: "2026-12-02 09:30"),
        FileEntry(
            name: Array(".profile".utf8), kind: .file, size: 807, permissions: 0o644, owner: "deploy",
            group: "deploy", modified: "2026-11-30 12:00"),
        FileEntry(
            name: Array("current".utf8), kind: .link, size: 12, permissions: 0o777, owner: "deploy", group: "deploy",
            modified: "2026-12-02 09:31", linkTarget: "releases/42", linkToDirectory: true),
        FileEntry(
            name: Array("\u{1b}[2Jevil".utf8) + [0xFF], kind: .file, size: 1, permissions: 0o4755, owner: "root",
            group: "root", modified: "2026-12-03 10:00"),
    ].sorted(by: FilesPane.precedes)

    static let localEntries = [
        FileEntry(
            name: Array("notes.md".utf8), kind: .file, size: 2048, permissions: 0o600, owner: "me", group: "me",
            modified: "2026-12-05 18:00")
    ]

    static func opened(rows: Int = 24, columns: Int = 80) -> (UIState, [Effect]) {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: rows, columns: columns)
        let effects = Fixtures.press(&state, .char("F"))
        return (state, effects)
    }

    static func listed(rows: Int = 24, columns: Int = 80) -> UIState {
        var (state, _) = opened(rows: rows, columns: columns)
        let id = state.files!.hostID
        _ = Reducer.reduce(
            &state,
            .filesListed(
                FilesPane.Listing(
                    side: .local, generation: 1, path: Array("/home/me".utf8), entries: localEntries, complete: true)))
        _ = Reducer.reduce(&state, .filesConnected(hostID: id, failure: nil))
        _ = Reducer.reduce(
            &state,
            .filesListed(
                FilesPane.Listing(
                    side: .remote, generation: 1, path: Array("/srv/app".utf8), entries: remoteEntries,
                    complete: true)))
        return state
    }

    func testFOpensThePaneAndAsksTheAppToLogIn() throws {
        let (state, effects) = Self.opened()
        let pane = try XCTUnwrap(state.files)
        XCTAssertEqual(state.mode, .files)
        XCTAssertEqual(effects, [.openFiles(pane.hostID, remotePath: nil, localPath: nil)])
        XCTAssertEqual(pane.hostID, state.selectedHost?.id)
        XCTAssertFalse(pane.connected)
    }

    func testListingsFillASideAndAnOlderOneIsDropped() throws {
        var state = Self.listed()
        XCTAssertEqual(state.files?[.remote].visible.count, 4, "hidden names hidden")
        XCTAssertEqual(state.files?[.remote].selected?.shown, "current", "folders (and links to them) first")
        _ = Reducer.reduce(
            &state,
            .filesListed(
                FilesPane.Listing(side: .remote, generation: 0, path: Array("/old".utf8), entries: [], complete: true)))
        XCTAssertEqual(state.files?[.remote].shownPath, "/srv/app", "an older listing changes nothing")
    }

    /// A big folder arrives in batches, each sorted on its own and merged: the cursor stays first (on the first by
    /// sort order) while the user has not moved, and on the name they moved to once they have.
    func testTheCursorFollowsTheSortOrderOrTheNameTheUserMovedTo() throws {
        var state = Self.listed()
        func entry(_ name: String) -> FileEntry {
            FileEntry(
                name: Array(name.utf8), kind: .file, size: 1, permissions: 0o644, owner: "me", group: "me",
                modified: "2026-12-01 08:00")
        }
        func batch(_ names: [String], generation: Int, complete: Bool = false) {
            _ = Reducer.reduce(
                &state,
                .filesListed(
                    FilesPane.Listing(
                        side: .remote, generation: generation, path: Array("/srv/big".utf8),
                        entries: names.map(entry).sorted(by: FilesPane.precedes), complete: complete)))
        }
        var pane = try XCTUnwrap(state.files)
        _ = FilesReducer.list(&pane, .remote, path: Array("/srv/big".utf8))
        state.files = pane
        batch(["m1", "z1"], generation: 2)
        XCTAssertEqual(state.files?[.remote].selected?.shown, "m1")
        batch(["a1", "m1", "b1", "z1"], generation: 2)
        XCTAssertEqual(state.files?[.remote].selected?.shown, "a1", "the first by sort order, not the first batch's")
        _ = Fixtures.press(&state, .char("j"))
        XCTAssertEqual(state.files?[.remote].selected?.shown, "b1")
        batch(["a0", "a1", "b1", "m1", "z1"], generation: 2)
        XCTAssertEqual(state.files?[.remote].selected?.shown, "b1", "the name the user moved to")
        batch(["a0", "a1", "b0", "b1", "m1", "z1"], generation: 2, complete: true)
        XCTAssertEqual(state.files?[.remote].selected?.shown, "b1")
    }

    func testHiddenFilterOpenAndBack() throws {
        var state = Self.listed()
        Fixtures.press(&state, .char("."))
        XCTAssertEqual(state.files?[.remote].visible.count, 5)
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "tar")
        XCTAssertEqual(state.files?[.remote].visible.count, 1)
        XCTAssertEqual(state.files?[.remote].selected?.shown, "app.tar")
        // A host's file opens in the editor; this one is over the round trip's limit, so it is refused at once.
        XCTAssertEqual(Fixtures.press(&state, .enter, .enter), [])
        XCTAssertEqual(
            state.notice?.text, "app.tar is 117M: the editor takes files up to 64 MiB (copy it here with c instead)")
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.files?[.remote].filter, "")
        XCTAssertEqual(state.mode, .files, "the first Esc clears the filter only")
        Fixtures.press(&state, .char("g"), .char("j"))
        XCTAssertEqual(state.files?[.remote].selected?.shown, "logs")
        let into = Fixtures.press(&state, .enter)
        XCTAssertEqual(into, [.listFiles(.remote, path: Array("/srv/app/logs".utf8), generation: 2)])
        _ = Reducer.reduce(
            &state,
            .filesListed(
                FilesPane.Listing(
                    side: .remote, generation: 2, path: Array("/srv/app/logs".utf8), entries: [], complete: true)))
        let up = Fixtures.press(&state, .char("h"))
        XCTAssertEqual(up, [.listFiles(.remote, path: Array("/srv/app".utf8), generation: 3)])
        _ = Reducer.reduce(
            &state,
            .filesListed(
                FilesPane.Listing(
                    side: .remote, generation: 3, path: Array("/srv/app".utf8), entries: Self.remoteEntries,
                    complete: true)))
        XCTAssertEqual(state.files?[.remote].selected?.shown, "logs", "back onto the folder left")
        let closed = Fixtures.press(&state, .char("q"))
        XCTAssertEqual(closed, [.closeFiles])
        XCTAssertNil(state.files)
        XCTAssertEqual(state.mode, .browse)
    }

    func testCopyQueuesTheMarkedEntriesCancelsAndReadsTheDestinationAgain() throws {
        var state = Self.listed()
        // Remote side: current, logs, the escaped one, app.tar. Mark logs and app.tar (Space moves down).
        Fixtures.press(&state, .char("j"), .char(" "), .char("j"), .char(" "))
        XCTAssertEqual(state.files?[.remote].marks.count, 2)
        let effects = Fixtures.press(&state, .char("c"))
        let request = FilesTransfer.Request(
            id: 1, direction: .download, sources: [Array("/srv/app/logs".utf8), Array("/srv/app/app.tar".utf8)],
            destination: Array("/home/me".utf8), total: nil)
        XCTAssertEqual(effects, [.copyFiles(request)])
        XCTAssertEqual(state.files?[.remote].marks, [], "the marks went with the copy")
        XCTAssertEqual(state.files?.transfers.first?.line, "↓ 2 entries to /home/me  queued")
        _ = Reducer.reduce(
            &state, .filesTransfer(id: 1, state: .running, bytes: 2_000_000, rate: 1_000_000, detail: ""))
        XCTAssertEqual(state.files?.transfers.first?.line, "↓ 2 entries to /home/me  1.9M, 976K/s")
        XCTAssertEqual(Fixtures.press(&state, .char("x")), [.cancelCopy(1)])
        let after = Reducer.reduce(
            &state, .filesTransfer(id: 1, state: .cancelled, bytes: 2_000_000, rate: 0, detail: ""))
        XCTAssertEqual(after, [.listFiles(.local, path: Array("/home/me".utf8), generation: 2)])
        XCTAssertEqual(Fixtures.press(&state, .char("x")), [], "nothing left to cancel")

        // One file: its size is known, so the line says how much is left and when.
        Fixtures.press(&state, .char("G"))
        XCTAssertEqual(state.files?[.remote].selected?.shown, "app.tar")
        Fixtures.press(&state, .char("c"))
        _ = Reducer.reduce(
            &state, .filesTransfer(id: 2, state: .running, bytes: 23_456_789, rate: 50_000_000, detail: ""))
        XCTAssertEqual(state.files?.transfers.last?.line, "↓ app.tar to /home/me  22M of 117M, 47M/s, 2 s left")
        // A device or FIFO is refused before anything starts.
        var fifo = Self.listed()
        _ = Reducer.reduce(
            &fifo,
            .filesListed(
                FilesPane.Listing(
                    side: .remote, generation: 1, path: Array("/srv".utf8),
                    entries: [FileEntry(name: Array("p".utf8), kind: .fifo)], complete: true)))
        XCTAssertEqual(Fixtures.press(&fifo, .char("c")), [])
        XCTAssertEqual(fifo.notice?.text, "p is a FIFO: only regular files and folders are copied")
    }

    func testChangesAskFirstAndRefuseBadInput() throws {
        var state = Self.listed()
        // A new folder: a name with a / is refused, then made.
        Fixtures.press(&state, .char("n"))
        Fixtures.type(&state, "a/b")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        XCTAssertEqual(state.files?.question?.problem, "a name cannot hold a /")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "..")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "new")
        XCTAssertEqual(
            Fixtures.press(&state, .enter), [.changeFiles(.remote, .makeFolder(Array("/srv/app/new".utf8)))])
        XCTAssertNil(state.files?.question)
        // Deleting a folder: only its typed name goes ahead; Esc keeps everything.
        Fixtures.press(&state, .char("g"), .char("j"), .char("d"))
        XCTAssertEqual(state.files?.question?.entry?.shown, "logs")
        Fixtures.type(&state, "log")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        Fixtures.type(&state, "s")
        XCTAssertEqual(
            Fixtures.press(&state, .enter), [.changeFiles(.remote, .delete(Array("/srv/app/logs".utf8), folder: true))])
        // A file: y deletes, n keeps.
        Fixtures.press(&state, .char("G"), .char("d"))
        XCTAssertEqual(Fixtures.press(&state, .char("n")), [])
        XCTAssertEqual(state.notice?.text, "nothing deleted")
        Fixtures.press(&state, .char("d"))
        XCTAssertEqual(
            Fixtures.press(&state, .char("y")),
            [.changeFiles(.remote, .delete(Array("/srv/app/app.tar".utf8), folder: false))])
        // A mode: octal up to 777 only (no setuid through the pane).
        Fixtures.press(&state, .char("M"))
        XCTAssertEqual(state.files?.question?.input, "644")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "4755")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "640")
        XCTAssertEqual(
            Fixtures.press(&state, .enter), [.changeFiles(.remote, .setMode(Array("/srv/app/app.tar".utf8), 0o640))])
        // The app's answer: a line, and the side read again.
        let after = Reducer.reduce(&state, .filesChanged(.remote, .success("/srv/app/app.tar is now 640")))
        XCTAssertEqual(state.notice?.text, "/srv/app/app.tar is now 640")
        XCTAssertEqual(after, [.listFiles(.remote, path: Array("/srv/app".utf8), generation: 2)])
    }

    func testNamesAreShownEscaped() {
        XCTAssertEqual(FileName.shown(Array("\u{1b}[2Jevil".utf8) + [0xFF]), "\\x1b[2Jevil\\xff")
        XCTAssertEqual(FileName.shown(Array("a\nb\\c\u{9b}".utf8)), "a\\nb\\\\c\\x9b")
        XCTAssertEqual(FileName.shown(Array("Zürich ✓".utf8)), "Zürich ✓")
        XCTAssertEqual(FileName.shown([0xE2, 0x82]), "\\xe2\\x82", "a cut UTF-8 sequence")
        XCTAssertEqual(FileEntry(name: [], kind: .file, permissions: 0o4755).modeText, "-rwsr-xr-x")
        XCTAssertEqual(FileEntry(name: [], kind: .directory, permissions: 0o1777).modeText, "drwxrwxrwt")
        XCTAssertEqual(FilesPath.parent(Array("/a".utf8)), [0x2F])
        XCTAssertNil(FilesPath.parent([0x2F]))
    }
}

enum FilesSnapshots {
    static func screens(rows: Int, columns: Int) -> [(String, UIState)] {
        var connecting = FilesPaneTests.opened(rows: rows, columns: columns).0
        _ = Reducer.reduce(
            &connecting,
            .filesListed(
                FilesPane.Listing(
                    side: .local, generation: 1, path: Array("/home/me".utf8), entries: FilesPaneTests.localEntries,
                    complete: true)))
        var filtered = FilesPaneTests.listed(rows: rows, columns: columns)
        Fixtures.press(&filtered, .char("."), .char("/"))
        Fixtures.type(&filtered, "p")
        var copying = FilesPaneTests.listed(rows: rows, columns: columns)
        Fixtures.press(&copying, .char("G"), .char("c"), .char("k"), .char("k"), .char(" "))
        _ = Reducer.reduce(
            &copying, .filesTransfer(id: 1, state: .running, bytes: 23_456_789, rate: 50_000_000, detail: ""))
        var conflict = FilesPaneTests.listed(rows: rows, columns: columns)
        _ = Reducer.reduce(
            &conflict, .filesEditConflict(FilesEdit(id: 1, path: Array("/srv/app/app.tar".utf8)), problem: nil))
        return [
            ("files-connecting", connecting), ("files", FilesPaneTests.listed(rows: rows, columns: columns)),
            ("files-filtered", filtered), ("files-copying", copying), ("files-edit-conflict", conflict),
        ]
    }
}

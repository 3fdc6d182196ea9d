// FilesEditReducerTests: Enter on a host's file asks the app to download it for the editor (a folder still opens, a
// FIFO says what it is); the "changed on the host meanwhile" question: o overwrites, k and Esc keep theirs, s offers
// a free name beside it to save mine as (a name that is not one refused, Esc back to the question), and the app's
// word that a name is taken asks again.
import FoundationEssentials
import ShelfCore
import XCTest

@testable import ShelfUI

final class FilesEditReducerTests: XCTestCase {
    private func onProfile() -> UIState {
        var state = FilesPaneTests.listed()
        Fixtures.press(&state, .char("."), .char("/"))
        Fixtures.type(&state, "profile")
        Fixtures.press(&state, .enter)
        return state
    }

    func testEnterOnAHostsFileAsksForItsDownload() {
        var state = onProfile()
        XCTAssertEqual(Fixtures.press(&state, .enter), [.editFile(Array("/srv/app/.profile".utf8))])
        XCTAssertEqual(state.notice?.text, "downloading .profile to edit it...")
        XCTAssertEqual(state.mode, .files)
    }

    func testEnterOnSomethingElseSaysWhatItIs() {
        var state = FilesPaneTests.listed()
        let fifo = FileEntry(name: Array("pipe".utf8), kind: .fifo, permissions: 0o644)
        _ = Reducer.reduce(
            &state,
            .filesListed(
                FilesPane.Listing(
                    side: .remote, generation: 1, path: Array("/srv/app".utf8), entries: [fifo], complete: true)))
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        XCTAssertEqual(state.notice?.text, "pipe is a FIFO, not a folder or a file to edit")
    }

    private func conflicted() -> (UIState, FilesEdit) {
        var state = FilesPaneTests.listed()
        let edit = FilesEdit(id: 7, path: Array("/srv/app/app.tar".utf8))
        _ = Reducer.reduce(&state, .filesEditConflict(edit, problem: nil))
        XCTAssertEqual(state.files?.question?.kind, .editConflict)
        return (state, edit)
    }

    func testOverwriteAndKeepTheirs() {
        var (state, _) = conflicted()
        XCTAssertEqual(Fixtures.press(&state, .char("x")), [], "another key changes nothing")
        XCTAssertEqual(Fixtures.press(&state, .char("o")), [.resolveEdit(7, .overwrite)])
        XCTAssertNil(state.files?.question)
        (state, _) = conflicted()
        XCTAssertEqual(Fixtures.press(&state, .char("k")), [.resolveEdit(7, .keepTheirs)])
        (state, _) = conflicted()
        XCTAssertEqual(Fixtures.press(&state, .escape), [.resolveEdit(7, .keepTheirs)], "Esc keeps theirs")
    }

    func testSaveMineOffersAFreeNameAndRefusesABadOne() {
        var (state, edit) = conflicted()
        Fixtures.press(&state, .char("s"))
        XCTAssertEqual(state.files?.question?.kind, .saveEditAs)
        XCTAssertEqual(state.files?.question?.input, "app.tar.mine")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "../up")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        XCTAssertEqual(state.files?.question?.problem, "a name cannot hold a /")
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.files?.question?.kind, .editConflict, "Esc goes back to the question")
        Fixtures.press(&state, .char("s"))
        XCTAssertEqual(
            Fixtures.press(&state, .enter), [.resolveEdit(7, .saveAs(Array("/srv/app/app.tar.mine".utf8)))])

        // The app found the name taken: asked again, with the next free name.
        var pane = state.files!
        pane[.remote].entries.append(FileEntry(name: Array("app.tar.mine".utf8), kind: .file))
        state.files = pane
        _ = Reducer.reduce(&state, .filesEditConflict(edit, problem: "/srv/app/app.tar.mine already exists"))
        XCTAssertEqual(state.files?.question?.kind, .saveEditAs)
        XCTAssertEqual(state.files?.question?.input, "app.tar.mine2")
        XCTAssertEqual(state.files?.question?.problem, "/srv/app/app.tar.mine already exists")
    }
}

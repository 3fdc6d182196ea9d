// ImportDialogTests: the import dialog's keys and phases (`o`): it opens only when ~/.ssh/config is there, asks for
// the dry run first, imports only on y once the plan is shown, Esc leaves without an effect (before y) and is refused
// while the import is being written, a late preview after Esc changes nothing, and a long summary scrolls within
// its lines; the empty list and the `o` hint follow what the app found of the file.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class ImportDialogTests: XCTestCase {
    /// What a dry run of a config with a few hosts, a Match block and a long skipped line says (snapshots use it too).
    static let previewLines: [String] =
        [
            "dry run, nothing written: imported /home/ana/.ssh/config: 24 added, 1 updated, 0 unchanged, 1 skipped, "
                + "1 forward rule added"
        ] + (1...24).map { "  added    web\($0)" } + [
            "  updated  db1",
            "  skipped  /home/ana/.ssh/config:40: Match block skipped (its conditions are evaluated by ssh at "
                + "connect time)",
            "  group    work",
            "  forward  web1 -L 127.0.0.1:18080:localhost:80",
        ]

    static let summaryLines: [String] = [
        "imported /home/ana/.ssh/config: 24 added, 1 updated, 0 unchanged, 1 skipped, 1 forward rule added",
        "  added    web1",
        "  updated  db1",
    ]

    private func empty(config: UserConfigState?) -> UIState {
        var state = Fixtures.state(Catalog())
        if let config { _ = Reducer.reduce(&state, .userConfig(config)) }
        return state
    }

    func testOOpensTheDialogAndAsksForTheDryRunOnlyWhenTheFileIsThere() {
        var none = empty(config: UserConfigState(exists: false))
        XCTAssertEqual(Fixtures.press(&none, .char("o")), [])
        XCTAssertEqual(none.mode, .browse)
        XCTAssertTrue(
            none.notice?.text.contains("no ~/.ssh/config here") ?? false, "\(String(describing: none.notice))")
        var unknown = empty(config: nil)
        XCTAssertEqual(Fixtures.press(&unknown, .char("o")), [])

        var state = empty(config: UserConfigState(exists: true))
        XCTAssertEqual(Fixtures.press(&state, .char("o")), [.previewImport])
        XCTAssertEqual(state.mode, .importConfig)
        XCTAssertEqual(state.importDialog?.phase, .reading)
        XCTAssertEqual(state.importDialog?.title, "Import ~/.ssh/config?")
        // y before the plan is shown imports nothing.
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [])
        XCTAssertEqual(state.importDialog?.phase, .reading)
    }

    func testYImportsThePlanShownAndTheSummaryFollows() {
        var state = empty(config: UserConfigState(exists: true))
        Fixtures.press(&state, .char("o"))
        _ = Reducer.reduce(&state, .importPreviewed(.success(Self.previewLines)))
        XCTAssertEqual(state.importDialog?.phase, .ready)
        XCTAssertEqual(state.importDialog?.lines, Self.previewLines)
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [.runImport])
        XCTAssertEqual(state.importDialog?.phase, .importing)
        // The import is one transaction under way: Esc does not pretend to stop it.
        XCTAssertEqual(Fixtures.press(&state, .escape), [])
        XCTAssertEqual(state.mode, .importConfig)
        XCTAssertEqual(Reducer.reduce(&state, .imported(.success(Self.summaryLines))), [.load])
        XCTAssertEqual(state.importDialog?.phase, .done)
        XCTAssertEqual(state.importDialog?.title, "Imported ~/.ssh/config")
        XCTAssertEqual(state.importDialog?.lines, Self.summaryLines)
        XCTAssertEqual(Fixtures.press(&state, .escape), [])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertNil(state.importDialog)
    }

    func testEscBeforeYImportsNothingAndALatePreviewIsIgnored() {
        var state = empty(config: UserConfigState(exists: true))
        Fixtures.press(&state, .char("o"))
        XCTAssertEqual(Fixtures.press(&state, .escape), [])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertEqual(state.notice?.text, "nothing imported")
        _ = Reducer.reduce(&state, .importPreviewed(.success(Self.previewLines)))
        XCTAssertEqual(state.mode, .browse)
        XCTAssertNil(state.importDialog)
    }

    func testAFileThatCannotBeImportedSaysWhyAndOffersNoImport() {
        var state = empty(config: UserConfigState(exists: true))
        Fixtures.press(&state, .char("o"))
        _ = Reducer.reduce(
            &state, .importPreviewed(.failure(OperationFailure("/h/.ssh/config:3: unterminated quote (fix that line)")))
        )
        XCTAssertEqual(state.importDialog?.phase, .failed)
        XCTAssertEqual(
            state.importDialog?.lines.first,
            "cannot import ~/.ssh/config: /h/.ssh/config:3: unterminated quote (fix that line)")
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [])
        XCTAssertEqual(state.mode, .importConfig)
    }

    func testALongPlanScrollsWithinItsLines() throws {
        var state = empty(config: UserConfigState(exists: true))
        Fixtures.press(&state, .char("o"))
        _ = Reducer.reduce(&state, .importPreviewed(.success(Self.previewLines)))
        let dialog = try XCTUnwrap(state.importDialog)
        let last = dialog.maxScroll(rows: state.rows, columns: state.columns)
        XCTAssertGreaterThan(last, 0, "28 lines do not fit 24 rows")
        Fixtures.press(&state, .char("j"), .char("j"))
        XCTAssertEqual(state.importDialog?.scroll, 2)
        Fixtures.press(&state, .pageDown, .pageDown, .pageDown)
        XCTAssertEqual(state.importDialog?.scroll, last)
        let bottom = Screen.render(state).text
        XCTAssertTrue(bottom.contains("forward  web1 -L 127.0.0.1:18080:localhost:80"), bottom)
        // The skipped block's reason is wrapped, never cut.
        XCTAssertTrue(bottom.contains("connect time)"), bottom)
        Fixtures.press(&state, .pageUp, .pageUp, .pageUp, .char("k"))
        XCTAssertEqual(state.importDialog?.scroll, 0)
        XCTAssertTrue(Screen.render(state).text.contains("dry run, nothing written"))
    }

    func testALongLineIsWrappedForTheWidthAndAgainAfterAResize() throws {
        var state = empty(config: UserConfigState(exists: true))
        Fixtures.press(&state, .char("o"))
        _ = Reducer.reduce(&state, .importPreviewed(.success(Self.previewLines)))
        let skipped = Self.previewLines.firstIndex { $0.hasPrefix("  skipped") }!
        let narrow = try XCTUnwrap(state.importDialog).shown(columns: state.columns).filter { $0.source == skipped }
        XCTAssertEqual(narrow.count, 2, "\(narrow)")
        // Under the text, after '  skipped  '.
        XCTAssertTrue(narrow[1].text.hasPrefix(String(repeating: " ", count: 11)), narrow[1].text)
        XCTAssertFalse(narrow[1].text.hasPrefix(String(repeating: " ", count: 12)), narrow[1].text)
        XCTAssertTrue(narrow[1].text.hasSuffix("connect time)"), narrow[1].text)
        _ = Reducer.reduce(&state, .resize(rows: 50, columns: 200))
        let wide = try XCTUnwrap(state.importDialog).shown(columns: 200).filter { $0.source == skipped }
        XCTAssertEqual(wide.map(\.text), [Self.previewLines[skipped]])
        XCTAssertTrue(Screen.render(state).text.contains(Self.previewLines[skipped]))
    }

    func testTheEmptyListAndTheHintFollowTheFile() {
        let offer = empty(config: UserConfigState(exists: true))
        XCTAssertTrue(StatusLine.hints(offer).contains { $0.what == "import" })
        XCTAssertTrue(Screen.render(offer).text.contains("Press o to import ~/.ssh/config"))
        let none = empty(config: UserConfigState(exists: false))
        XCTAssertFalse(StatusLine.hints(none).contains { $0.what.contains("import") })
        XCTAssertTrue(Screen.render(none).text.contains("No hosts yet. Press a to add a host"))

        var changed = Fixtures.state(Fixtures.threeLevels())
        XCTAssertFalse(StatusLine.hints(changed).contains { $0.what.contains("import") }, "hosts, file unchanged")
        _ = Reducer.reduce(&changed, .userConfig(UserConfigState(exists: true, changedSinceImport: true)))
        XCTAssertTrue(StatusLine.hints(changed).contains { $0.what == "re-import" })
        let line = Screen.render(changed).text.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(line.contains("~/.ssh/config changed"), line)
        XCTAssertTrue(line.contains("o re-import"), "the hint fits at 80 columns: \(line)")
        XCTAssertEqual(Fixtures.press(&changed, .char("o")), [.previewImport])
        XCTAssertEqual(changed.importDialog?.title, "Re-import ~/.ssh/config?")
    }
}

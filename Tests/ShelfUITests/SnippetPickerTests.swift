// SnippetPickerTests: `x` and `w` in the reducer — the picker filters the snippets, asks each parameter with its
// default (an empty value without one is refused), then sends the filled-in command for the marked hosts as the run
// pane's Enter would; Esc runs nothing; no snippets says how to save one. `w` is disabled outside tmux and opens the
// targets inside it; Enter opens a tmux window when the setting is on. Screens: SnippetPickerSnapshots (SnapshotTests).
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

enum SnippetPickerSnapshots {
    static let snippets = [
        Snippet(name: "logs", command: "journalctl -u {{unit}} -n {{lines:100}} --no-pager", tags: ["debug"]),
        Snippet(name: "restart", command: "sudo systemctl restart {{unit:nginx}}"),
        Snippet(name: "uptime", command: "uptime"),
    ]

    static func state(rows: Int, columns: Int) -> UIState {
        var catalog = Fixtures.threeLevels()
        catalog.snippets = snippets
        var state = Fixtures.state(catalog, rows: rows, columns: columns)
        state.hostCursor = state.visible.firstIndex { state.catalog.host(at: Int($0)).name == "web-eu-1" }!
        return state
    }

    static func screens(rows: Int, columns: Int) -> [(String, UIState)] {
        var picking = state(rows: rows, columns: columns)
        Fixtures.press(&picking, .char("x"))
        Fixtures.type(&picking, "jou")
        var asking = picking
        Fixtures.press(&asking, .enter)
        Fixtures.type(&asking, "nginx")
        Fixtures.press(&asking, .enter)
        return [("snippet-picker", picking), ("snippet-parameters", asking)]
    }
}

final class SnippetPickerTests: XCTestCase {
    func testPickFillAndRunOnTheMarkedHosts() {
        var state = SnippetPickerSnapshots.state(rows: 24, columns: 100)
        let web = state.selectedHost!.id
        Fixtures.press(&state, .char(" "))
        let next = state.selectedHost!.id
        Fixtures.press(&state, .char(" "))
        Fixtures.press(&state, .char("x"))
        XCTAssertEqual(state.mode, .snippets)
        XCTAssertEqual(state.snippetPicker?.hostNames.count, 2)
        Fixtures.type(&state, "rest")
        XCTAssertEqual(state.snippetPicker?.selected?.name, "restart")
        Fixtures.press(&state, .enter)
        XCTAssertEqual(state.snippetPicker?.asking?.name, "unit")
        XCTAssertTrue(Screen.render(state).text.contains("unit [nginx]: _"), Screen.render(state).text)
        let effects = Fixtures.press(&state, .enter)
        XCTAssertEqual(state.mode, .fleet)
        XCTAssertEqual(state.fleet?.command, "sudo systemctl restart nginx", "Enter takes the default")
        XCTAssertEqual(
            effects, [.runFleet(state.fleet!.hostIDs, command: "sudo systemctl restart nginx", confirmed: false)])
        XCTAssertEqual(Set(state.fleet!.hostIDs), [web, next])
    }

    func testAValueWithoutADefaultMustBeTypedAndEscRunsNothing() {
        var state = SnippetPickerSnapshots.state(rows: 24, columns: 100)
        Fixtures.press(&state, .char("x"))
        Fixtures.type(&state, "logs")
        Fixtures.press(&state, .enter)
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        XCTAssertEqual(state.snippetPicker?.problem, "unit has no default: type a value")
        Fixtures.type(&state, "ssh")
        Fixtures.press(&state, .enter)
        Fixtures.type(&state, "5")
        let effects = Fixtures.press(&state, .enter)
        XCTAssertEqual(state.fleet?.command, "journalctl -u ssh -n 5 --no-pager")
        XCTAssertEqual(effects.count, 1)

        var closed = SnippetPickerSnapshots.state(rows: 24, columns: 100)
        Fixtures.press(&closed, .char("x"))
        Fixtures.type(&closed, "up")
        XCTAssertEqual(Fixtures.press(&closed, .escape), [])
        XCTAssertEqual(closed.mode, .browse)
        XCTAssertNil(closed.snippetPicker)
        XCTAssertEqual(closed.notice?.text, "no snippet run")
    }

    func testTheFilterScoresNameTagsAndCommandAndJKAreText() {
        var state = SnippetPickerSnapshots.state(rows: 24, columns: 100)
        Fixtures.press(&state, .char("x"))
        Fixtures.type(&state, "debug")
        XCTAssertEqual(state.snippetPicker?.matches.map { state.snippetPicker!.snippets[$0].name }, ["logs"])
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "jk")
        XCTAssertEqual(state.snippetPicker?.filter, "jk", "j and k are text in the filter")
        Fixtures.press(&state, .ctrl("u"), .down)
        XCTAssertEqual(state.snippetPicker?.selected?.name, "restart")
    }

    func testNoSnippetsSaysHowToSaveOne() {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 24, columns: 100)
        Fixtures.press(&state, .char("x"))
        XCTAssertEqual(state.mode, .browse)
        XCTAssertEqual(
            state.notice?.text, "no snippets yet: save one with sshelf snippet add NAME -- 'COMMAND {{param}}'")
    }

    func testWOpensTmuxWindowsOnlyInsideTmuxAndEnterFollowsTheSetting() {
        var state = SnippetPickerSnapshots.state(rows: 24, columns: 100)
        let web = state.selectedHost!.id
        XCTAssertEqual(Fixtures.press(&state, .char("w")), [])
        XCTAssertEqual(state.notice?.text.hasSuffix(": not inside tmux"), true, state.notice?.text ?? "")
        state.insideTmux = true
        XCTAssertEqual(Fixtures.press(&state, .char("w")), [.openInTmux([web])])
        XCTAssertEqual(Fixtures.press(&state, .enter), [.connect(web)], "the setting is off: Enter connects here")
        state.connecting = nil
        state.catalog.tmuxWindow = true
        XCTAssertEqual(Fixtures.press(&state, .enter), [.openInTmux([web])])
        XCTAssertNil(state.connecting, "no login here")
    }
}

final class SnippetPickerReloadTests: XCTestCase {
    func testASnippetSavedWhileThePickerIsOpenIsListed() {
        var state = SnippetPickerSnapshots.state(rows: 24, columns: 100)
        Fixtures.press(&state, .char("x"), .down)
        XCTAssertEqual(state.snippetPicker?.selected?.name, "restart")
        var catalog = state.catalog
        catalog.snippets.insert(Snippet(name: "backup", command: "tar czf /tmp/b.tgz /etc"), at: 0)
        _ = Reducer.reduce(&state, .loaded(catalog))
        XCTAssertEqual(state.snippetPicker?.snippets.count, 4)
        XCTAssertEqual(state.snippetPicker?.selected?.name, "restart", "the cursor stays on its snippet")
    }
}

// RecordingListTests: `R` in the reducer — the selected host's recordings are asked for and listed (when, length,
// size, client, input), Enter plays the selected one, `/` searches them and Enter on a hit plays from a second
// before it, Esc goes back from the hits and then to the hosts, `d` asks and only `y` removes. Screens:
// RecordingListSnapshots (SnapshotTests).
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

enum RecordingListSnapshots {
    static let first = UUID(uuidString: "3F2A91C0-0000-4000-8000-000000000001")!
    static let second = UUID(uuidString: "7B10E4D2-0000-4000-8000-000000000002")!

    static func rows(now: Date) -> [RecordingRow] {
        [
            RecordingRow(
                id: second, started: now.addingTimeInterval(-600), seconds: 75, fileBytes: 48_213, by: "openssh",
                input: false, state: "finished"),
            RecordingRow(
                id: first, started: now.addingTimeInterval(-3 * 86_400), seconds: 3_725, fileBytes: 3_500_000,
                by: "connect", input: true, state: "interrupted"),
        ]
    }

    static func state(rows: Int, columns: Int) -> UIState {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: rows, columns: columns)
        state.hostCursor = state.visible.firstIndex { state.catalog.host(at: Int($0)).name == "web-eu-1" }!
        return state
    }

    /// The list open with both recordings read.
    static func listed(rows: Int, columns: Int) -> UIState {
        var state = state(rows: rows, columns: columns)
        Fixtures.press(&state, .char("R"))
        let host = state.recordings!.hostID
        _ = Reducer.reduce(&state, .recordings(hostID: host, .success(Self.rows(now: state.now))))
        return state
    }

    static func screens(rows: Int, columns: Int) -> [(String, UIState)] {
        let list = listed(rows: rows, columns: columns)
        var hits = list
        Fixtures.press(&hits, .char("/"))
        Fixtures.type(&hits, "error")
        Fixtures.press(&hits, .enter)
        _ = Reducer.reduce(
            &hits,
            .recordingHits(
                .success([
                    RecordingHitRow(id: second, time: 12.5, context: "make: *** [all] error 2"),
                    RecordingHitRow(id: first, time: 3_601, context: "permission denied: error opening /etc/x"),
                ])))
        var removing = list
        Fixtures.press(&removing, .char("j"), .char("d"))
        return [("recordings", list), ("recordings-hits", hits), ("recordings-remove", removing)]
    }
}

final class RecordingListTests: XCTestCase {
    /// While a search is typed, the status line hints the recordings search's keys (Enter searches, Esc stops
    /// typing), not the host search's (keep, clear); Backspace and Ctrl-u edit the text.
    func testTypingASearchShowsTheRecordingsSearchsOwnHints() {
        var state = RecordingListSnapshots.listed(rows: 24, columns: 120)
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "errx")
        Fixtures.press(&state, .backspace)
        XCTAssertEqual(state.recordings?.query, "err")
        let hints = StatusLine.hints(state).map { "\($0.key) \($0.what)" }
        XCTAssertEqual(hints, ["\(state.symbols.enter) search", "Esc stop"])
        XCTAssertTrue(Screen.render(state).text.contains("Esc stop"), Screen.render(state).text)
        Fixtures.press(&state, .ctrl("u"))
        XCTAssertEqual(state.recordings?.query, "")
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.recordings?.typing, false)
        XCTAssertTrue(StatusLine.hints(state).contains { $0.what == "close" }, "the list's own hints again")
    }

    func testListPlaySearchAndPlayFromAHit() {
        var state = RecordingListSnapshots.state(rows: 24, columns: 100)
        let host = state.selectedHost!
        let effects = Fixtures.press(&state, .char("R"))
        XCTAssertEqual(state.mode, .recordings)
        XCTAssertEqual(effects, [.loadRecordings(host.id)])
        XCTAssertTrue(Screen.render(state).text.contains("reading the recordings..."))
        XCTAssertEqual(Fixtures.press(&state, .enter), [], "nothing to play before the list is read")

        // An answer for another host (a list closed and opened on another) is not shown.
        _ = Reducer.reduce(&state, .recordings(hostID: UUID(), .success([])))
        XCTAssertNil(state.recordings?.rows)
        _ = Reducer.reduce(
            &state, .recordings(hostID: host.id, .success(RecordingListSnapshots.rows(now: state.now))))
        let screen = Screen.render(state).text
        for text in [
            "Recordings of web-eu-1 (2)", "7b10e4d2", "10 min ago", "1:15", "47.1 KB", "OpenSSH", "1:02:05",
            "kept", "interrupted",
        ] {
            XCTAssertTrue(screen.contains(text), "\(text) in:\n\(screen)")
        }
        XCTAssertEqual(Fixtures.press(&state, .enter), [.playRecording(RecordingListSnapshots.second, from: nil)])
        Fixtures.press(&state, .char("j"))
        XCTAssertEqual(Fixtures.press(&state, .enter), [.playRecording(RecordingListSnapshots.first, from: nil)])

        // `/`: the text is typed (q and d are text there), Enter searches the host's recordings.
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "dq")
        Fixtures.press(&state, .backspace)
        Fixtures.type(&state, "x")
        XCTAssertEqual(Fixtures.press(&state, .enter), [.searchRecordings(host.id, text: "dx")])
        XCTAssertTrue(state.recordings!.searching)
        _ = Reducer.reduce(
            &state,
            .recordingHits(.success([RecordingHitRow(id: RecordingListSnapshots.first, time: 42.5, context: "a dx b")]))
        )
        XCTAssertEqual(state.notice?.text, "1 place showed 'dx'")
        XCTAssertEqual(
            Fixtures.press(&state, .enter), [.playRecording(RecordingListSnapshots.first, from: 41.5)],
            "a hit plays from a second before it")
        XCTAssertEqual(Fixtures.press(&state, .char("d")), [], "no removal from the hits")
        XCTAssertNil(state.recordings?.removing)

        // Esc: from the hits back to the recordings, then to the hosts.
        Fixtures.press(&state, .escape)
        XCTAssertNil(state.recordings?.hits)
        XCTAssertEqual(state.mode, .recordings)
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.mode, .browse)
        XCTAssertNil(state.recordings)
    }

    func testRemoveAsksAndOnlyYRemoves() {
        var state = RecordingListSnapshots.listed(rows: 24, columns: 100)
        let host = state.recordings!.hostID
        XCTAssertEqual(Fixtures.press(&state, .char("d")), [])
        XCTAssertTrue(Screen.render(state).text.contains("Remove recording 7b10e4d2?"))
        XCTAssertEqual(Fixtures.press(&state, .char("n")), [], "any other key keeps it")
        XCTAssertEqual(state.notice?.text, "kept the recording")
        Fixtures.press(&state, .char("d"))
        XCTAssertEqual(
            Fixtures.press(&state, .char("y")), [.removeRecording(RecordingListSnapshots.second, hostID: host)])
        let after = Reducer.reduce(&state, .recordingRemoved(hostID: host, .success("removed recording 7b10e4d2")))
        XCTAssertEqual(after, [.loadRecordings(host)], "the list is read again")
        XCTAssertEqual(state.notice?.text, "removed recording 7b10e4d2")
    }

    func testNoRecordingsSaysHowToTurnItOnAndAProblemIsShown() {
        var state = RecordingListSnapshots.state(rows: 24, columns: 100)
        Fixtures.press(&state, .char("R"))
        let host = state.recordings!.hostID
        _ = Reducer.reduce(&state, .recordings(hostID: host, .success([])))
        XCTAssertTrue(Screen.render(state).text.contains("sshelf edit web-eu-1 --record on"))
        XCTAssertEqual(Fixtures.press(&state, .char("/")), [])
        XCTAssertEqual(
            state.notice?.text.hasSuffix("web-eu-1 has no recordings"), true, "\(String(describing: state.notice))")
        _ = Reducer.reduce(&state, .recordings(hostID: host, .failure(OperationFailure("the vault is locked"))))
        XCTAssertTrue(Screen.render(state).text.contains("the vault is locked"))
    }
}

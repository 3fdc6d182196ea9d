// The merge-conflict list (`C`): opening it asks for the conflicts; j/k move; `o` takes the other value and `p`
// keeps the kept one (each one settle effect for the selected conflict), refused with the reason for a conflict
// already settled or about a deleted record; a settle's result reloads the list; Esc goes back.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class ConflictListTests: XCTestCase {
    static let items = [
        ConflictItem(
            id: 7, record: "host db", field: "endpoint",
            kept:
                "host name \"db.example\", pinned key ssh-ed25519 "
                + "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s, port 2222",
            other: "host name \"db.example\", port 22", keptBy: "laptop (4f2a9c1e), 2026-12-01 18:20",
            otherBy: "this device, 2026-12-01 18:19", why: ConflictWords.why("concurrent"), isNew: true, settled: nil,
            settleable: true),
        ConflictItem(
            id: 5, record: "host web", field: "tags", kept: "removed \"old\"", other: "added \"old\"",
            keptBy: "this device, 2026-12-01 17:02", otherBy: "vm-2 (9b01d3aa), 2026-12-01 17:01",
            why: ConflictWords.why("concurrent"), isNew: false, settled: "kept", settleable: true),
        ConflictItem(
            id: 2, record: "host cache", field: "user", kept: "(deleted)", other: "\"redis\"",
            keptBy: "vm-2 (9b01d3aa), 2026-11-30 09:00", otherBy: "this device, 2026-11-30 08:59",
            why: ConflictWords.why("deleted"), isNew: false, settled: nil, settleable: false),
    ]

    static func open(rows: Int = 24, columns: Int = 80) -> UIState {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: rows, columns: columns)
        _ = Fixtures.press(&state, .char("C"))
        _ = Reducer.reduce(&state, .conflicts(items))
        return state
    }

    func testKeysSettleTheSelectedConflict() {
        var state = Fixtures.state(Fixtures.threeLevels())
        XCTAssertEqual(Fixtures.press(&state, .char("C")), [.loadConflicts])
        XCTAssertEqual(state.mode, .conflicts)
        _ = Reducer.reduce(&state, .conflicts(Self.items))
        XCTAssertEqual(Fixtures.press(&state, .char("o")), [.settleConflict(7, takeOther: true)])
        XCTAssertEqual(Fixtures.press(&state, .char("p")), [.settleConflict(7, takeOther: false)])
        XCTAssertEqual(Fixtures.press(&state, .char("j"), .char("o")), [], "settled already")
        XCTAssertEqual(state.notice?.text, "take the other value (an edit that syncs): settled already (took kept)")
        XCTAssertEqual(Fixtures.press(&state, .char("j"), .char("p")), [])
        XCTAssertEqual(state.notice?.isError, true)
        XCTAssertTrue(state.notice?.text.hasSuffix("the record was deleted; a deletion is final") == true)
        // A settle's result reloads the list, which keeps the cursor on its conflict.
        XCTAssertEqual(
            Reducer.reduce(&state, .operationFinished(.success("conflict 7 settled"))), [.load, .loadConflicts])
        _ = Reducer.reduce(&state, .conflicts(Array(Self.items.reversed())))
        XCTAssertEqual(state.selectedConflict?.id, 2)
        _ = Fixtures.press(&state, .escape)
        XCTAssertEqual(state.mode, .browse)
    }
}

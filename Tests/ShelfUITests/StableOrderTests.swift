// StableOrderTests: after a connect the reload changes who was connected last, yet the search results and the list
// sorted by last connected keep the order the user is moving through; the next change of query or sort re-ranks.
// Also a title-bar message's lifetime on a made-up clock (the run loop's ticks), never the wall clock.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class StableOrderTests: XCTestCase {
    /// Three hosts that tie on a search for "web": ranked by last connected, then by name.
    func catalog(connected: [Int: TimeInterval]) -> Catalog {
        Catalog(
            hosts: (1...3).map { n in
                ShelfCore.Host(
                    id: Fixtures.id(n), name: "web-\(n)", hostname: "10.0.0.\(n)",
                    lastConnectedAt: connected[n].map { Fixtures.now.addingTimeInterval($0) })
            })
    }

    func names(_ state: UIState) -> [String] { state.visible.map { state.catalog.host(at: Int($0)).name } }

    func testAConnectDoesNotReorderTheResultsUnderTheCursor() {
        var state = Fixtures.state(catalog(connected: [1: -600]))
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "web")
        Fixtures.settle(&state)
        Fixtures.press(&state, .enter, .char("j"))
        XCTAssertEqual(names(state), ["web-1", "web-2", "web-3"])
        XCTAssertEqual(state.selectedHost?.name, "web-2")
        // web-3 was just connected to: the reload brings it as the most recent.
        _ = Reducer.reduce(&state, .loaded(catalog(connected: [1: -600, 3: 0])))
        Fixtures.settle(&state)
        XCTAssertEqual(names(state), ["web-1", "web-2", "web-3"], "the order held while moving")
        Fixtures.press(&state, .char("j"))
        XCTAssertEqual(state.selectedHost?.name, "web-3", "j lands where it did before the reload")
        // The next change of the query ranks by who was connected last now.
        Fixtures.press(&state, .char("/"), .backspace)
        Fixtures.type(&state, "b")
        Fixtures.settle(&state)
        XCTAssertEqual(names(state), ["web-3", "web-1", "web-2"])
    }

    func testTheListSortedByLastConnectedHoldsToo() {
        var state = Fixtures.state(catalog(connected: [1: -600, 2: -300]))
        Fixtures.press(&state, .char("s"))
        XCTAssertEqual(names(state), ["web-2", "web-1", "web-3"])
        _ = Reducer.reduce(&state, .loaded(catalog(connected: [1: 0, 2: -300])))
        XCTAssertEqual(names(state), ["web-2", "web-1", "web-3"])
        Fixtures.press(&state, .char("s"), .char("s"))
        XCTAssertEqual(names(state), ["web-1", "web-2", "web-3"])
        XCTAssertEqual(state.sort, .recent)
    }

    func testAMessageGoesAfterItsTimeOnTheClockTicks() {
        var state = Fixtures.state(catalog(connected: [:]))
        state.notice = Notice("session to web-1 failed: refused", isError: true)
        _ = Reducer.reduce(&state, .tick(Fixtures.now))
        _ = Reducer.reduce(&state, .tick(Fixtures.now.addingTimeInterval(NoticeLifetime.errorSeconds - 1)))
        XCTAssertNotNil(state.notice, "an error stays long enough to be read")
        _ = Reducer.reduce(&state, .tick(Fixtures.now.addingTimeInterval(NoticeLifetime.errorSeconds)))
        XCTAssertNil(state.notice)
        XCTAssertFalse(Screen.render(state).text.contains("failed"))
        // Another message starts its own time, shorter for one that is not an error.
        state.notice = Notice("saved web-1")
        _ = Reducer.reduce(&state, .tick(Fixtures.now.addingTimeInterval(100)))
        _ = Reducer.reduce(&state, .tick(Fixtures.now.addingTimeInterval(100 + NoticeLifetime.seconds - 1)))
        XCTAssertEqual(state.notice?.text, "saved web-1")
        _ = Reducer.reduce(&state, .tick(Fixtures.now.addingTimeInterval(100 + NoticeLifetime.seconds)))
        XCTAssertNil(state.notice)
        // The next key that acts takes a message away at once.
        state.notice = Notice("sorted by name")
        Fixtures.press(&state, .char("j"))
        XCTAssertNil(state.notice)
    }
}

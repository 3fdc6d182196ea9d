// ReachabilityColumnTests: the host list's reachability column in the reducer and on the canvas — `p` shows and hides
// it, it starts shown unless the store is large (or the app says otherwise), the rows the app probes are those on
// screen plus the margin, each state is drawn in its words and colour, a narrow list drops it; and the
// `reachability-*` snapshots.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class ReachabilityColumnTests: XCTestCase {
    /// Results for every kind of state, by the fixture's host ids.
    static let results: [UUID: HostReachability] = [
        Fixtures.id(100): HostReachability(.up(milliseconds: 0.43)),
        Fixtures.id(101): HostReachability(.up(milliseconds: 0.43), via: "bastion-eu"),
        Fixtures.id(102): HostReachability(.probing, via: "bastion-eu"),
        Fixtures.id(103): HostReachability(.down(.refused)),
        Fixtures.id(104): HostReachability(.down(.timeout)),
        Fixtures.id(105): HostReachability(.down(.noSuchName)),
        Fixtures.id(107): HostReachability(.up(milliseconds: 38.2)),
    ]

    /// The three-level fixture with the column on and the results in.
    static func state(rows: Int, columns: Int) -> UIState {
        var state = UIState(rows: rows, columns: columns, symbols: .unicode, now: Fixtures.now)
        state.reachability = ReachabilityColumn(start: .auto)
        _ = Reducer.reduce(&state, .loaded(Fixtures.threeLevels()))
        _ = Reducer.reduce(&state, .reachability(results))
        return state
    }

    func testPShowsAndHidesTheColumn() {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 40, columns: 120)
        XCTAssertFalse(state.reachability.shown, "off unless the app asks for it")
        XCTAssertFalse(Screen.render(state).text.contains("Reach"))
        XCTAssertEqual(ReachabilityColumn.rowsToProbe(state), [], "nothing probed while hidden")
        Fixtures.press(&state, .char("p"))
        XCTAssertTrue(state.reachability.shown)
        XCTAssertEqual(
            state.notice?.text,
            "reachability on: a TCP connect to each host on screen every 30 s (p hides it)")
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("Reach"), text)
        XCTAssertEqual(ReachabilityColumn.rowsToProbe(state).count, 8, "the whole small list")
        _ = Reducer.reduce(&state, .reachability(Self.results))
        XCTAssertTrue(Screen.render(state).text.contains("refused"))
        Fixtures.press(&state, .char("p"))
        XCTAssertFalse(state.reachability.shown)
        XCTAssertEqual(state.notice?.text, "reachability off: no more probes")
        XCTAssertEqual(state.reachability.results, [:])
        _ = Reducer.reduce(&state, .reachability(Self.results))
        XCTAssertEqual(state.reachability.results, [:], "a late result does not bring it back")
        XCTAssertFalse(Screen.render(state).text.contains("Reach"))
    }

    func testTheColumnStartsShownUnlessTheStoreIsLarge() {
        func started(_ start: ReachabilityColumn.Start, hosts: Int) -> Bool {
            var state = UIState(rows: 24, columns: 80, symbols: .unicode, now: Fixtures.now)
            state.reachability = ReachabilityColumn(start: start)
            _ = Reducer.reduce(&state, .loaded(Fixtures.longList(hosts)))
            return state.reachability.shown
        }
        XCTAssertTrue(started(.auto, hosts: ReachabilityColumn.largeStore))
        XCTAssertFalse(started(.auto, hosts: ReachabilityColumn.largeStore + 1))
        XCTAssertTrue(started(.on, hosts: ReachabilityColumn.largeStore + 1))
        XCTAssertFalse(started(.off, hosts: 3))
        // What `p` chose survives a reload.
        var state = Self.state(rows: 24, columns: 80)
        Fixtures.press(&state, .char("p"))
        _ = Reducer.reduce(&state, .loaded(Fixtures.threeLevels()))
        XCTAssertFalse(state.reachability.shown)
    }

    func testTheRowsProbedAreThoseOnScreenPlusTheMargin() {
        var state = UIState(rows: 24, columns: 80, symbols: .unicode, now: Fixtures.now)
        state.reachability = ReachabilityColumn(start: .on)
        _ = Reducer.reduce(&state, .loaded(Fixtures.longList(500)))
        let onScreen = Layout(rows: 24, columns: 80).hostRows
        let margin = ReachabilityColumn.margin
        XCTAssertEqual(
            ReachabilityColumn.rowsToProbe(state).map { state.catalog.table.name($0) },
            (1...(onScreen + margin)).map { String(format: "host-%04d", $0) },
            "at the top: the screen and below")
        for _ in 0..<5 { Fixtures.press(&state, .pageDown) }
        let probed = ReachabilityColumn.rowsToProbe(state)
        XCTAssertEqual(probed.count, onScreen + 2 * margin)
        let first = state.hostScroll
        let expected =
            Array(first..<(first + onScreen)) + Array((first + onScreen)..<(first + onScreen + margin))
            + Array((first - margin)..<first).reversed()
        XCTAssertEqual(probed, expected.map { Int(state.visible[$0]) })
        // A search probes what it shows.
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "host-0042")
        Fixtures.settle(&state)
        XCTAssertEqual(ReachabilityColumn.rowsToProbe(state).map { state.catalog.table.name($0) }.first, "host-0042")
    }

    func testEachStateIsDrawnInItsWordsAndColour() {
        let canvas = Screen.render(Self.state(rows: 50, columns: 200))
        let text = canvas.text
        func style(of words: String) -> CellStyle? {
            for row in 0..<50 {
                let line = canvas.line(row)
                guard let range = line.range(of: words) else { continue }
                return canvas[row, line.distance(from: line.startIndex, to: range.lowerBound)].style
            }
            return nil
        }
        XCTAssertEqual(style(of: "up 0.4 ms via bastion-eu")?.color, .green, text)
        XCTAssertEqual(style(of: "up 38 ms")?.color, .green, text)
        XCTAssertEqual(style(of: "down: refused")?.color, .red, text)
        XCTAssertEqual(style(of: "down: timeout")?.color, .red, text)
        XCTAssertEqual(style(of: "down: no such name")?.color, .red, text)
        XCTAssertEqual(style(of: "probing via bastion-eu")?.color, .dim, text)
        XCTAssertTrue(text.contains("Reach"), text)
    }

    func testANarrowListDropsTheColumnAndKeepsTheAddresses() {
        let narrow = Self.state(rows: 24, columns: 70)
        XCTAssertLessThan(Layout(rows: 24, columns: 70).hosts.width, ReachabilityColumn.minimumListWidth)
        let text = Screen.render(narrow).text
        XCTAssertFalse(text.contains("Reach"), text)
        XCTAssertFalse(text.contains("refused"), text)
        let fits = Screen.render(Self.state(rows: 24, columns: 80)).text
        XCTAssertTrue(fits.contains("Reach"), fits)
        XCTAssertTrue(fits.contains("refused"), fits)
        XCTAssertTrue(fits.contains("0.4 ms"), fits)
        XCTAssertFalse(fits.contains("down:"), "the short words in a narrow list: \(fits)")
        XCTAssertTrue(fits.contains("postgres@db.us.example.com:2222"), "the address stays whole: \(fits)")
    }
}

extension SnapshotTests {
    /// The host list with the reachability column on, every state in it.
    static func reachabilityScreens(rows: Int, columns: Int) -> [(String, UIState)] {
        [("reachability-\(columns)x\(rows)", ReachabilityColumnTests.state(rows: rows, columns: columns))]
    }
}

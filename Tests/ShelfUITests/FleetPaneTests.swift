// FleetPaneTests: marks and the run pane in the reducer — Space marks and moves on, `*` marks a search's results (and
// unmarks them when all are marked), the count in the status line, `!` asks for the command and sends the marked
// hosts, the typed confirmation (a wrong answer runs nothing), live updates, Esc as the run's Ctrl-C (twice), `f`
// repeating on the hosts that did not succeed; and the pane's screens (FleetSnapshots, in SnapshotTests).
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class FleetPaneTests: XCTestCase {
    static func id(_ name: String, in state: UIState) -> UUID {
        state.catalog.host(at: state.catalog.rows(named: name)[0]).id
    }

    func testSpaceMarksTheSelectedHostAndMovesOnAndTheStatusLineCountsMarks() {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 24, columns: 120)
        Fixtures.press(&state, .char(" "))
        XCTAssertEqual(state.marks, [Self.id("bastion-eu", in: state)])
        XCTAssertEqual(state.selectedHost?.name, "cache-us", "Space moves to the next host")
        Fixtures.press(&state, .char(" "), .char("k"), .char(" "))
        XCTAssertEqual(state.marks, [Self.id("bastion-eu", in: state)], "Space again unmarks")
        let screen = Screen.render(state)
        XCTAssertTrue(screen.line(state.rows - 1).contains("1 marked"), screen.line(state.rows - 1))
        XCTAssertTrue(screen.text.contains("●bastion-eu"), screen.text)
        // In the group tree Space still opens and closes groups, and marks nothing.
        Fixtures.press(&state, .char("h"), .char("j"), .char(" "))
        XCTAssertEqual(state.marks.count, 1)
        XCTAssertFalse(state.groupRows[1].expanded)
    }

    func testStarMarksEveryResultOfTheSearchAndUnmarksThemWhenAllAreMarked() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "web")
        Fixtures.settle(&state)
        Fixtures.press(&state, .enter, .char("*"))
        XCTAssertEqual(state.marks, [Self.id("web-eu-1", in: state), Self.id("web-eu-2", in: state)])
        // Marks outlive the search.
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.marks.count, 2)
        XCTAssertEqual(state.visible.count, 8)
        Fixtures.press(&state, .char("*"))
        XCTAssertEqual(state.marks.count, 8, "not all listed were marked: * marks them all")
        Fixtures.press(&state, .char("*"))
        XCTAssertTrue(state.marks.isEmpty, "all were marked: * unmarks them")
    }

    /// A first screenful (the rows the store worker shows while the whole catalog is rebuilt) lacks every host after
    /// it: their marks stay. Only a whole catalog without a host drops its mark.
    func testMarksOutliveAFirstScreenfulAndGoOnlyWithTheirHost() {
        let whole = Fixtures.longList(300)
        var state = Fixtures.state(whole)
        Fixtures.press(&state, .char("*"))
        let marked = state.marks
        XCTAssertEqual(marked.count, 300)
        let hosts = (0..<whole.table.count).map { whole.host(at: $0) }
        let groups = Array(whole.tree.groups.values)
        var first = Catalog(hosts: Array(hosts.prefix(40)), groups: groups)
        first.isComplete = false
        _ = Reducer.reduce(&state, .loaded(first))
        XCTAssertEqual(state.marks.count, 300, "a first screenful drops no mark")
        XCTAssertTrue(state.marks == marked)
        _ = Reducer.reduce(&state, .loaded(Catalog(hosts: Array(hosts.dropLast()), groups: groups)))
        XCTAssertEqual(state.marks.count, 299, "a host gone from a whole catalog is unmarked")
        XCTAssertFalse(state.marks.contains(hosts[299].id))
    }

    /// Marks web-eu-1 and db-us, opens the pane and types `uptime`.
    static func asked(rows: Int = 24, columns: Int = 80) -> UIState {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: rows, columns: columns)
        Fixtures.press(&state, .char("j"), .char("j"), .char(" "), .char("G"), .char("k"), .char("k"), .char(" "))
        Fixtures.press(&state, .char("!"))
        Fixtures.type(&state, "uptime")
        return state
    }

    func testBangAsksForTheCommandAndRunsItOnTheMarkedHosts() throws {
        var state = Self.asked()
        XCTAssertEqual(state.mode, .fleet)
        let pane = try XCTUnwrap(state.fleet)
        XCTAssertEqual(pane.hosts.map(\.name), ["db-us", "web-eu-1"], "the marked hosts in list order")
        XCTAssertEqual(pane.command, "uptime", "j, k and the rest are text while typing")
        let effects = Fixtures.press(&state, .enter)
        XCTAssertEqual(effects, [.runFleet(pane.hostIDs, command: "uptime", confirmed: false)])
        XCTAssertEqual(state.fleet?.phase, .starting)
        // A second Enter starts nothing while the first is starting.
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
    }

    func testWithNothingMarkedBangRunsOnTheSelectedHostAndEscCancels() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("j"), .char("!"))
        XCTAssertEqual(state.fleet?.hosts.map(\.name), ["cache-us"])
        Fixtures.press(&state, .enter)
        XCTAssertEqual(state.mode, .fleet, "an empty command is not sent")
        XCTAssertEqual(state.notice?.text, "type the command to run, or Esc")
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.mode, .browse)
        XCTAssertNil(state.fleet)
        XCTAssertEqual(state.notice?.text, "nothing was run")
    }

    func testAConfirmationIsTypedAndAWrongAnswerRunsNothing() throws {
        var state = Self.asked()
        Fixtures.press(&state, .enter)
        _ = Reducer.reduce(&state, .fleetConfirm(reason: "a host is tagged protected (db-us)", answer: "2"))
        XCTAssertEqual(state.fleet?.phase, .confirm(reason: "a host is tagged protected (db-us)", answer: "2"))
        let screen = Screen.render(state).text
        XCTAssertTrue(screen.contains("Type 2 (the number of hosts) to go ahead"), screen)
        Fixtures.type(&state, "y")
        XCTAssertEqual(Fixtures.press(&state, .enter), [], "a reflex y does not pass")
        XCTAssertEqual(state.fleet?.mistyped, true)
        XCTAssertTrue(Screen.render(state).text.contains("That is not 2"))
        Fixtures.press(&state, .backspace)
        Fixtures.type(&state, "2")
        let ids = try XCTUnwrap(state.fleet?.hostIDs)
        XCTAssertEqual(Fixtures.press(&state, .enter), [.runFleet(ids, command: "uptime", confirmed: true)])
        // Esc at the question instead runs nothing.
        var refused = Self.asked()
        Fixtures.press(&refused, .enter)
        _ = Reducer.reduce(&refused, .fleetConfirm(reason: "it reaches 11 hosts (more than 10)", answer: "11"))
        XCTAssertEqual(Fixtures.press(&refused, .escape), [])
        XCTAssertEqual(refused.mode, .browse)
    }

    /// A run of db-us and web-eu-1 seen while running (db-us done, web-eu-1 running) or ended.
    static func update(_ state: UIState, ended: Bool) -> FleetPane.Update {
        let ids = state.fleet!.hostIDs
        let second: FleetPane.HostLine =
            ended
            ? FleetPane.HostLine(
                id: ids[1], name: "web-eu-1", state: .failed,
                detail: "unreachable: connect to 10.1.0.11 port 22 timed out (10.02s)")
            : FleetPane.HostLine(id: ids[1], name: "web-eu-1", state: .running)
        return FleetPane.Update(
            hosts: [FleetPane.HostLine(id: ids[0], name: "db-us", state: .done, detail: "exit 0 (0.31s)"), second],
            groups: [
                FleetPane.OutputGroup(
                    hosts: ["db-us"], stdout: [" 10:02:11 up 41 days,  3:12,  0 users"],
                    stderr: [])
            ],
            ended: ended, summary: ended ? "2 hosts: 1 succeeded, 1 unreachable" : nil)
    }

    func testEscStopsTheRunInTwoStepsAndFRepeatsOnTheHostsThatDidNotSucceed() throws {
        var state = Self.asked()
        Fixtures.press(&state, .enter)
        _ = Reducer.reduce(&state, .fleetProgress(Self.update(state, ended: false)))
        XCTAssertEqual(state.fleet?.phase, .running)
        XCTAssertEqual(Fixtures.press(&state, .char("q")), [], "q does not leave a run under way")
        XCTAssertEqual(state.mode, .fleet)
        XCTAssertEqual(Fixtures.press(&state, .escape), [.stopFleet])
        XCTAssertTrue(state.notice?.text.hasPrefix("stopping: no more hosts start") ?? false)
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [.stopFleet], "Ctrl-C is Esc here, never quit")
        XCTAssertEqual(state.notice?.text, "stopping the running hosts")
        XCTAssertFalse(state.quitting)
        _ = Reducer.reduce(&state, .fleetProgress(Self.update(state, ended: true)))
        XCTAssertEqual(state.fleet?.phase, .ended)
        let failed = try XCTUnwrap(state.fleet?.hosts.last?.id)
        XCTAssertEqual(Fixtures.press(&state, .char("f")), [.runFleet([failed], command: "uptime", confirmed: false)])
        XCTAssertEqual(state.fleet?.hosts.map(\.name), ["web-eu-1"])
        XCTAssertEqual(state.fleet?.phase, .starting)
        _ = Reducer.reduce(
            &state,
            .fleetProgress(
                FleetPane.Update(
                    hosts: [FleetPane.HostLine(id: failed, name: "web-eu-1", state: .done, detail: "exit 0 (0.20s)")],
                    groups: [], ended: true, summary: "1 host: 1 succeeded")))
        XCTAssertEqual(Fixtures.press(&state, .char("f")), [], "nothing left to repeat")
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.mode, .browse)
        XCTAssertNil(state.fleet)
    }
}

/// The run pane's screens for SnapshotTests: the marked list, the question, the confirmation, a run under way and
/// one that ended.
enum FleetSnapshots {
    static func screens(rows: Int, columns: Int) -> [(String, UIState)] {
        var marked = Fixtures.state(Fixtures.threeLevels(), rows: rows, columns: columns)
        Fixtures.press(&marked, .char("j"), .char("j"), .char(" "), .char("G"), .char("k"), .char("k"), .char(" "))
        let asked = FleetPaneTests.asked(rows: rows, columns: columns)
        var confirm = asked
        Fixtures.press(&confirm, .enter)
        _ = Reducer.reduce(&confirm, .fleetConfirm(reason: "a host is tagged protected (db-us)", answer: "2"))
        Fixtures.type(&confirm, "y")
        Fixtures.press(&confirm, .enter)
        var running = FleetPaneTests.asked(rows: rows, columns: columns)
        Fixtures.press(&running, .enter)
        _ = Reducer.reduce(&running, .fleetProgress(FleetPaneTests.update(running, ended: false)))
        var ended = running
        _ = Reducer.reduce(&ended, .fleetProgress(FleetPaneTests.update(ended, ended: true)))
        return [
            ("fleet-marked", marked), ("fleet-command", asked), ("fleet-confirm", confirm),
            ("fleet-running", running), ("fleet-ended", ended),
        ]
    }
}

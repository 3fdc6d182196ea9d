// TUIFleetUpdateTests: what the run pane is sent of a run — each host's state word from how it ended (an unknown key
// is "skipped", a second Esc "stopped"), a host still queued when the run ended is "not started", outputs grouped
// as `sshelf run` groups them, remote text without escape sequences, and a long output cut with a note.
import Foundation
import ShelfCore
@testable import ShelfOperations
@testable import ShelfApp
import ShelfUI
import XCTest

final class TUIFleetUpdateTests: XCTestCase {
    static func plan(_ name: String) -> ConnectPlan {
        ConnectPlan(hosts: [ShelfCore.Host(name: name, hostname: "\(name).example.com")], endpoints: [])
    }

    static func result(_ name: String, _ outcome: FleetHostResult.Outcome, exit: Int32? = nil, stdout: String = "")
        -> FleetHostResult
    {
        var result = FleetHostResult(name: name, hostID: UUID(), outcome: outcome)
        result.exitStatus = exit
        result.stdout = Array(stdout.utf8)
        return result
    }

    func testStatesGroupsAndCleanedOutput() {
        let plans = ["a", "b", "c", "d", "e"].map(Self.plan)
        let states: [FleetRun.HostState] = [
            .finished(Self.result("a", .succeeded, exit: 0, stdout: "same\n")),
            .finished(Self.result("b", .succeeded, exit: 0, stdout: "same\n")),
            .finished(Self.result("c", .hostKeyRefused)),
            .finished(Self.result("d", .killed, stdout: "\u{1B}[31mred\u{1B}[0m\tcell\n")),
            .queued,
        ]
        let update = TUIFleet.update(plans, states, ended: true, summary: "5 hosts")
        XCTAssertEqual(update.hosts.map(\.state), [.done, .done, .skipped, .stopped, .notStarted])
        XCTAssertEqual(update.hosts[0].detail, "exit 0")
        XCTAssertEqual(update.groups.map(\.hosts), [["a", "b"], ["d"]])
        XCTAssertEqual(update.groups[1].stdout, ["red    cell"])
        let running = TUIFleet.update(plans, [.connecting, .running, .queued, .queued, .queued], ended: false)
        XCTAssertEqual(running.hosts.map(\.state), [.connecting, .running, .queued, .queued, .queued])
    }

    func testALongOutputIsCutWithANote() {
        let text = (1...1005).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let lines = TUIFleet.lines(Array(text.utf8))
        XCTAssertEqual(lines.count, 1001)
        XCTAssertEqual(lines[999], "line 1000")
        XCTAssertEqual(lines.last, "… 5 more lines (sshelf run prints them all)")
    }
}

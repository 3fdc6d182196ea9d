// FleetReportTests: the report's status lines without a server — hosts in natural order (bulk-6, bulk-59, bulk-60),
// hosts that ended alike folded into one line with their ranges and the span of their times, a host's own name in
// its message read as "the host" only where it stands as a word (not inside a path or a longer name).
import Foundation
import ShelfOperations
import XCTest

final class FleetReportTests: XCTestCase {
    private func result(
        _ name: String, _ outcome: FleetHostResult.Outcome, exit: Int32? = nil, error: String? = nil,
        seconds: Double = 1, fix: String? = nil
    ) -> FleetHostResult {
        var result = FleetHostResult(name: name, hostID: UUID(), outcome: outcome)
        result.exitStatus = exit
        result.error = error
        result.fix = fix
        result.started = Date(timeIntervalSince1970: 0)
        result.finished = Date(timeIntervalSince1970: seconds)
        return result
    }

    func testStatusLinesAreInNaturalOrderAndFoldHostsThatEndedAlike() {
        let results = [
            result("bulk-60", .failed, exit: 3), result("bulk-6", .failed, exit: 1),
            result("bulk-59", .failed, exit: 2),
            result("web-2", .unreachable, error: "web-2 refused the connection (x)", seconds: 2, fix: "is sshd up?"),
            result("web-1", .unreachable, error: "web-1 refused the connection (x)", seconds: 3, fix: "is sshd up?"),
        ]
        XCTAssertEqual(
            FleetReport.statusLines(results),
            [
                "bulk-6: exit 1 (1.00s)", "bulk-59: exit 2 (1.00s)", "bulk-60: exit 3 (1.00s)",
                "web-[1-2] (2): unreachable: the host refused the connection (x) (2.00-3.00s)\n    to fix: is sshd up?",
            ])
        XCTAssertEqual(FleetReport.ordered(results).map(\.name), ["bulk-6", "bulk-59", "bulk-60", "web-1", "web-2"])
    }

    func testANameInsideAPathOrALongerNameIsNotTheHost() {
        let results = [
            result("web1", .failed, error: "left behind here: logs/web1/x.part; web1.example said no"),
            result("web2", .failed, error: "left behind here: logs/web2/x.part; web2.example said no"),
        ]
        // The messages differ where each names its own folder: one line each.
        XCTAssertEqual(FleetReport.statusLines(results).count, 2)
        let alike = [
            result("web1", .loginFailed, error: "web1 refused every key. Try web1."),
            result("web2", .loginFailed, error: "web2 refused every key. Try web2."),
        ]
        XCTAssertEqual(
            FleetReport.statusLines(alike),
            ["web[1-2] (2): login failed: the host refused every key. Try the host. (1.00s)"])
    }
}

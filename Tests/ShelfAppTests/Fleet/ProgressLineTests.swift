// ProgressLineTests: the live lines of `run` and `cp` — cut to the terminal's width, and cp's bar with what is left.
@testable import ShelfCLI
import ShelfServices
import XCTest

final class ProgressLineTests: XCTestCase {
    func testALineLongerThanTheTerminalIsCutOneColumnShort() {
        let line = "0/2 done, 0 failed, 2 running; slowest: web-01 1.0s, web-02 1.0s"
        XCTAssertEqual(FleetSession.fit(line, columns: 30), String(line.prefix(29)))
        XCTAssertEqual(FleetSession.fit(line, columns: 200), line)
        XCTAssertEqual(FleetSession.fit(line, columns: nil), line, "no terminal size known: as it is")
    }

    func testTheBarSaysHowLongIsLeft() {
        XCTAssertEqual(
            progressBar(256 << 20, of: 1 << 30, rate: Double(64 << 20)),
            "[#####---------------] 25% 256.0 MiB of 1.0 GiB, 64.0 MiB/s, 0:12 left")
        XCTAssertEqual(
            progressBar(0, of: 8 << 30, rate: Double(1 << 20)),
            "[--------------------] 0% 0 B of 8.0 GiB, 1.0 MiB/s, 2:16:32 left")
        XCTAssertEqual(
            progressBar(1 << 30, of: 1 << 30, rate: Double(64 << 20)),
            "[####################] 100% 1.0 GiB of 1.0 GiB, 64.0 MiB/s", "done: nothing left to say")
        XCTAssertEqual(progressBar(5 << 20, of: nil, rate: 0), "5.0 MiB copied, 0 B/s")
    }
}

// TUIReachabilityTests: the reachability column in real tmux against real sockets — a listener shows "up", a port
// nobody listens on "down: refused", a host behind it as a jump host "up … via live"; the listener reads not one
// byte; `p` hides the column and shows it again; a narrow terminal drops it; unset, the setting starts it hidden
// (nothing probed until `p`) and its header says when it is on. Every wait is on the screen.
import Foundation
import TestSupport
import XCTest

final class TUIReachabilityTests: XCTestCase {
    func testTheColumnShowsALivePortUpAndAClosedOneRefused() throws {
        let live = try RecordingListener()
        let closed = try TestPorts.free()
        let home = TempHome()
        XCTAssertExit(try home.run("add", "live", "--host", "127.0.0.1", "--port", String(live.port)), 0)
        XCTAssertExit(try home.run("add", "dead", "--host", "127.0.0.1", "--port", String(closed)), 0)
        XCTAssertExit(try home.run("add", "inner", "--host", "10.255.255.1", "--jump", "live"), 0)
        // "auto": a small store starts with the column shown.
        let tui = try Tmux(home: home, columns: 200, rows: 50, environment: ["SSHELF_REACHABILITY": "auto"])
        func row(_ screen: String, _ name: String) -> String {
            screen.split(separator: "\n").map(String.init).first { $0.contains("│ \(name) ") } ?? ""
        }
        let screen = try tui.waitFor("the probes' results") { screen in
            row(screen, "live").range(of: #"up [0-9.]+ ms"#, options: .regularExpression) != nil
                && row(screen, "dead").contains("down: refused")
                && row(screen, "inner").range(of: #"up [0-9.]+ ms via live"#, options: .regularExpression) != nil
        }
        XCTAssertTrue(screen.contains("Reach: on, 30 s"), screen)
        // Only the TCP handshake: the listener saw its connection end without a byte.
        try eventually("the listener to see the probe close", observe: { live.closed }, until: { $0 })
        XCTAssertEqual(live.received, "", "the probe sent bytes")

        try tui.send("p")
        try tui.waitFor("the column hidden") {
            !$0.contains("Reach") && !$0.contains("refused") && $0.contains("reachability off")
        }
        try tui.send("p")
        try tui.waitFor("the column back with results") { screen in
            screen.contains("Reach") && row(screen, "dead").contains("down: refused")
        }

        // A narrow terminal keeps name and address and drops the column.
        try tui.resize(columns: 70, rows: 24)
        try tui.waitFor("the column dropped") { !$0.contains("Reach") && $0.contains("127.0.0.1:\(closed)") }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// Unset, the setting is off: no column, no probe, until `p`; then the header says the probes are on.
    func testTheColumnStartsOffUntilAskedAndItsHeaderSaysWhenItIsOn() throws {
        let live = try RecordingListener()
        let home = TempHome()
        XCTAssertExit(try home.run("add", "live", "--host", "127.0.0.1", "--port", String(live.port)), 0)
        let tui = try Tmux(home: home, columns: 200, rows: 50, environment: ["SSHELF_REACHABILITY": ""])
        try tui.waitFor("the list without the column") {
            $0.contains("127.0.0.1:\(live.port)") && !$0.contains("Reach") && !$0.contains("probing")
        }
        try tui.send("p")
        try tui.waitFor("the column on, saying so, with the probe's result") { screen in
            screen.contains("Reach: on, 30 s") && screen.contains("reachability on: a TCP connect")
                && screen.range(of: #"up [0-9.]+ ms"#, options: .regularExpression) != nil
        }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

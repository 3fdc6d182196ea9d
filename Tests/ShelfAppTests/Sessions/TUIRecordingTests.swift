// TUIRecordingTests: `R` in the TUI end to end — a session recorded by `sshelf connect` to the test sshd (real tmux),
// then the TUI in real tmux: the host's recordings listed, Enter plays one (curses left for `sshelf play --hold`: the
// session's output on screen, a key comes back), `/` finds a word it showed and Enter plays from there, `d` then `y`
// removes it — gone from `sessions list`, and `log verify` still passes (the removal is in the release log).
import Foundation
import TestSupport
import XCTest

final class TUIRecordingTests: XCTestCase {
    func testListPlaySearchAndRemoveARecordingFromTheTUI() throws {
        let world = try SSHCLIWorld()
        try world.recordSession(typing: "echo marker-$((6*7)); echo second-$((7*7))", until: "second-49")

        let tui = try Tmux(home: world.home, columns: 120, rows: 40)
        try tui.waitFor(text: "Hosts 1")
        try tui.type("R")
        try tui.waitFor("the host's recording listed") {
            $0.contains("Recordings of t (1)") && $0.contains("finished") && $0.contains("own")
        }
        // Enter: the replay on this terminal, then a key back to the list.
        try tui.send("Enter")
        try tui.waitFor("the replay, held at its end") {
            $0.contains("marker-42") && $0.contains("second-49")
                && $0.contains("[end of the recording: press a key to go back]") && !$0.contains("Recordings of")
        }
        try tui.send("Enter")
        try tui.waitFor("the list again") { $0.contains("Recordings of t (1)") && $0.contains("played recording") }

        // `/`: a word the session showed; Enter on the hit plays from a second before it.
        try tui.type("/")
        try tui.type("SECOND-49")
        try tui.send("Enter")
        try tui.waitFor("the hit") { $0.contains("'SECOND-49' showed in 1 place") }
        try tui.send("Enter")
        try tui.waitFor("the replay from the hit") {
            $0.contains("second-49") && $0.contains("[end of the recording") && !$0.contains("Recordings of")
        }
        try tui.type("x")
        try tui.waitFor("the hits again") { $0.contains("showed in 1 place") && $0.contains("played recording") }

        // `d` asks; `y` removes, with its release-log line.
        try tui.send("Escape")
        try tui.waitFor(text: "Enter plays, / searches")
        try tui.type("d")
        try tui.waitFor(text: "y removes it")
        try tui.type("y")
        try tui.waitFor("the removal") { $0.contains("removed recording") && $0.contains("No recorded sessions") }
        let listed = try world.home.run("sessions", "list", "--json")
        XCTAssertExit(listed, 0)
        XCTAssertEqual(listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "[]")
        XCTAssertExit(try world.home.run("log", "verify"), 0)
        let log = try world.home.run("log")
        XCTAssertTrue(log.stdout.contains("recording removed"), log.stdout)
        try tui.type("q")
        try tui.type("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testTheHostFormsRecordFieldIsStored() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "web.example.com"), 0)
        let tui = try Tmux(home: home, columns: 120, rows: 40)
        try tui.waitFor(text: "Hosts 1")
        try tui.type("e")
        try tui.waitFor(text: "Edit host web")
        try tui.waitFor(text: "ask  (group)")
        // The last field: Shift-Tab from the first.
        try tui.send("BTab")
        try tui.type("  ")
        try tui.waitFor(text: "off  (on)  ask")
        try tui.send("Enter")
        try tui.waitFor(text: "saved web")
        let shown = try home.run("show", "web", "--json")
        XCTAssertExit(shown, 0)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["record"] as? String, "on", shown.stdout)
        XCTAssertTrue(try home.run("show", "web").stdout.contains("record         on\n"))
        try tui.type("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

// RunOnATerminalTests: `sshelf run` at a real terminal (tmux) — the typed confirmation a protected host asks for
// (a wrong answer runs nothing, the number of hosts goes ahead) and the live progress line while hosts run, gone
// from the screen when the report is printed.
import Foundation
import TestSupport
import XCTest

final class RunOnATerminalTests: XCTestCase {
    func testTheConfirmationIsTypedAndTheProgressLineShowsWhileHostsRun() throws {
        let world = try FleetWorld(["a", "b"])
        XCTAssertExit(try world.home.run("edit", "b", "--tag", "protected"), 0)
        let go = world.shared + "/go"
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        let command =
            "touch \(world.shared)/started-$$; while [ ! -e \(go) ]"
            + " && [ -d \(world.shared) ]; do sleep 0.05; done; echo done"

        let wrong = try Tmux(home: world.home, arguments: ["run", "@prod", "--", command], columns: 160)
        try wrong.waitFor(text: "Type 2 (the number of hosts) to go ahead:")
        try wrong.enter("y")
        XCTAssertEqual(try wrong.waitForExit(), 2)
        try wrong.waitFor(text: "not confirmed; nothing was run")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: world.shared), [])

        let run = try Tmux(home: world.home, arguments: ["run", "@prod", "--", command], columns: 160)
        let question = try run.waitFor(text: "Type 2 (the number of hosts) to go ahead:")
        XCTAssertTrue(question.contains("a host is tagged protected (b)"), question)
        try run.enter("2")
        try run.waitFor("the progress line") { $0.contains("0/2 done, 0 failed, 2 running; slowest: ") }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        XCTAssertEqual(try run.waitForExit(), 0)
        // tmux may draw the last output a moment after the status file was written, and show a frame half drawn:
        // the progress line cleared before the report is part of the wait.
        try run.waitFor("the report, the progress line cleared") {
            $0.contains("2 hosts: 2 succeeded") && $0.contains("a,b (2)") && !$0.contains("running; slowest")
        }
    }

    /// On a terminal narrower than the progress line, the line is cut to fit: a wrapped one would leave a copy of
    /// itself on a new row at every update.
    func testTheProgressLineFitsANarrowTerminal() throws {
        let world = try FleetWorld(["a", "b"])
        let go = world.shared + "/go"
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        let command = "while [ ! -e \(go) ] && [ -d \(world.shared) ]; do sleep 0.05; done"
        let run = try Tmux(home: world.home, arguments: ["run", "@prod", "--", command], columns: 50)
        // "0/2 done, 0 failed, 2 running; slowest: a 1.0s, b 1.0s" is longer than 49 columns: after a second of
        // updates (one every 100 ms) a wrapped line would have left rows behind.
        let screen = try run.waitFor("a second of progress") { $0.contains("slowest: a 1.") || $0.contains("a 2.") }
        let rows = screen.split(separator: "\n").filter { $0.contains("done, ") }
        XCTAssertEqual(rows.count, 1, screen)
        XCTAssertLessThan(rows.first?.count ?? 0, 50, screen)
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        XCTAssertEqual(try run.waitForExit(), 0)
    }

    /// `cp` at a terminal shows how much is copied while it runs (here a large sparse file, so the copy is mid-way
    /// for a while), the file not yet under its name; Ctrl-C there stops it.
    func testCopyShowsItsProgressAtATerminal() throws {
        let world = try FleetWorld(["a"])
        let big = world.home.root + "/big"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        XCTAssertEqual(truncate(big, 16 << 30), 0)
        let copy = try Tmux(home: world.home, arguments: ["cp", big, "a:\(world.shared)/fed.bin"], columns: 160)
        // One host: the bytes say it all, no fleet counts (part of the wait: the screen after it may be another).
        try copy.waitFor("the progress line, without the fleet counts") {
            $0.contains(" of 16.0 GiB, ") && $0.contains("% ") && !$0.contains("0/1 done")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.shared + "/fed.bin"))
        _ = try copy.tmux(["send-keys", "-t", copy.session, "C-c"])
        XCTAssertEqual(try copy.waitForExit(), 1)
        // The report may have scrolled into tmux's history by the time the pane is marked dead.
        try eventually("the report", context: { (try? copy.screen()) ?? "" }) {
            try copy.tmux(["capture-pane", "-p", "-S", "-200", "-t", copy.session]).output.contains(
                "a: killed: stopped by Ctrl-C")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.shared + "/fed.bin"))
    }
}

// TUISnippetTests: `x` in the TUI end to end, the real binary in tmux against the test sshd — two hosts marked, the
// picker filtered to a snippet, its parameter typed and its default taken, and the run pane running the filled-in
// command on both (the release log's entry names its hash); a snippet saved while the TUI is open is listed.
import Foundation
import TestSupport
import XCTest

final class TUISnippetTests: XCTestCase {
    func testPickASnippetFillItsParametersAndRunItOnTheMarkedHosts() throws {
        let world = try FleetWorld(["a", "b"])
        XCTAssertExit(try world.home.run("snippet", "add", "greet", "--", "echo {{word}}-$((6*7))-{{who:all}}"), 0)
        let tui = try Tmux(home: world.home, columns: 120, rows: 40)
        try tui.waitFor(text: "Hosts 3")
        try tui.send("Space")
        try tui.send("Space")
        try tui.waitFor(text: "2 marked")
        // Saved while the TUI is open: the picker lists it once the store change is read.
        XCTAssertExit(try world.home.run("snippet", "add", "later", "--", "true"), 0)
        try tui.type("x")
        try tui.waitFor("the picker with both snippets") {
            $0.contains("Run a snippet on 2 marked hosts") && $0.contains("greet") && $0.contains("later")
        }
        try tui.type("gre")
        try tui.send("Enter")
        try tui.waitFor(text: "> word: _")
        try tui.type("snip")
        try tui.send("Enter")
        try tui.waitFor(text: "> who [all]: _")
        try tui.send("Enter")
        let ended = try tui.waitFor("the run's end") { $0.contains("2 hosts: 2 succeeded") }
        XCTAssertTrue(ended.contains("snip-42-all"), ended)
        let entries = try world.runEntries()
        XCTAssertEqual(entries.last?["item"] as? String, FleetWorld.sha256("echo snip-$((6*7))-all"))
    }
}

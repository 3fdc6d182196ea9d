// The group, forward-rule, identity and host forms end to end: what the TUI saves is what the CLI then lists; the
// host form's Aliases field, and a form covering the details pane whole.
import Foundation
import TestSupport
import XCTest

final class TUIFormTests: XCTestCase {
    func testGroupForwardAndIdentityFormsSaveToTheStore() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web1", "--host", "web1.example.com", "--group", "prod"), 0)
        let tui = try Tmux(home: home)
        try tui.waitFor(text: "1 host")

        // A group inside the selected one ("All hosts" selected: top level).
        try tui.send("N")
        try tui.waitFor(text: "Add group")
        try tui.type("staging")
        try tui.send("Enter")
        try tui.waitFor(text: "added group staging")
        XCTAssertTrue(try home.run("group", "list").stdout.contains("staging"))

        // A forward rule on the selected host; a bad target port first, then fixed.
        try tui.send("f")
        try tui.waitFor(text: "Add forward to web1")
        try tui.send("Tab", "Tab")
        try tui.type("9000")
        try tui.send("Tab")
        try tui.type("db.internal")
        try tui.send("Tab")
        try tui.type("70000")
        try tui.send("Enter")
        try tui.waitFor(text: "target port 70000 is out of range (1-65535)")
        try tui.send("C-u")
        try tui.type("5432")
        try tui.send("Enter")
        try tui.waitFor(text: "saved forward -L 127.0.0.1:9000:db.internal:5432 of web1")
        let forwards = try home.run("forward", "list", "web1")
        XCTAssertTrue(forwards.stdout.contains("127.0.0.1:9000:db.internal:5432"), forwards.stdout)

        // An identity, then chosen in the host's edit form.
        try tui.send("i")
        try tui.waitFor(text: "Add identity")
        try tui.type("work-key")
        try tui.send("Tab", "Tab")
        try tui.type("/home/me/.ssh/id_ed25519")
        try tui.send("Enter")
        try tui.waitFor(text: "saved identity work-key")
        try tui.send("e")
        try tui.waitFor(text: "Edit host web1")
        for _ in 0..<8 { try tui.send("Tab") }
        try tui.type("work-key")
        try tui.send("Enter")
        try tui.waitFor(text: "saved web1")
        let show = try home.run("show", "web1")
        XCTAssertTrue(show.stdout.contains("identity       work-key"), show.stdout)
        try tui.send("q")
    }

    /// The host form's Aliases field saves the host's aliases (a name another host has is refused under it), and
    /// the form leaves none of the details pane's text beside it.
    func testTheHostFormEditsAliasesAndCoversTheDetailsPane() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web1", "--host", "web1.example.com", "--alias", "w1"), 0)
        XCTAssertExit(try home.run("add", "other", "--host", "other.example.com"), 0)
        let tui = try Tmux(home: home, columns: 120, rows: 40)
        try tui.waitFor("the details pane") { $0.contains("Hosts 2") && $0.contains("not pinned") }
        // Sorted by name: "other" first, web1 below it.
        try tui.send("j")
        try tui.waitFor(text: "address   web1.example.com")
        try tui.send("e")
        try tui.waitFor("the form over a cleared details pane") {
            $0.contains("Edit host web1") && $0.contains("Aliases      w1") && !$0.contains("not pinned")
                && !$0.contains("address   ")
        }
        for _ in 0..<10 { try tui.send("Tab") }
        try tui.type(",other")
        try tui.send("Enter")
        try tui.waitFor(text: "alias 'other': a host named 'other' already exists")
        try tui.send("C-u")
        try tui.type("w1, web1.prod")
        try tui.send("Enter")
        try tui.waitFor(text: "saved web1")
        let show = try home.run("show", "web1")
        XCTAssertTrue(show.stdout.contains("aliases        w1, web1.prod\n"), show.stdout)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

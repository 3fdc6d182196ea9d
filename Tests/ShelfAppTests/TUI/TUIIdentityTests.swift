// The identity list end to end: rename an identity in the TUI and set the agent's options for it (confirm each use,
// a lifetime) and see them with `sshelf identity list`; delete one a host uses and see the host keep everything but
// its identity.
import Foundation
import TestSupport
import XCTest

final class TUIIdentityTests: XCTestCase {
    func testEditAndDeleteAnIdentityFromTheList() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web1", "--host", "web1.example.com", "--user", "deploy"), 0)
        let tui = try Tmux(home: home)
        try tui.waitFor(text: "1 host")
        for (name, file) in [("old-key", "/keys/id_a"), ("spare", "/keys/id_b")] {
            try tui.send("i")
            try tui.waitFor(text: "Add identity")
            try tui.type(name)
            try tui.send("Tab", "Tab")
            try tui.type(file)
            try tui.send("Enter")
            try tui.waitFor(text: "saved identity \(name)")
        }
        XCTAssertExit(try home.run("edit", "web1", "--identity", "old-key"), 0)
        try tui.send("r")
        try tui.send("I")
        try tui.waitFor(text: "Identities (2)")
        try tui.waitFor(text: "1: web1")

        // Rename: a name in use is refused under the field, then a free one is saved.
        try tui.send("e")
        try tui.waitFor(text: "Edit identity old-key")
        try tui.send("C-u")
        try tui.type("spare")
        try tui.send("Enter")
        try tui.waitFor(text: "an identity named 'spare' already exists")
        try tui.send("C-u")
        try tui.type("new-key")
        // The agent's options, as `identity edit --confirm --lifetime 900` sets them.
        try tui.send("Tab", "Tab", "Tab", "Tab", "Space", "Tab")
        try tui.type("900")
        try tui.send("Enter")
        try tui.waitFor(text: "saved identity new-key")
        try tui.waitFor(text: "Identities (2)")
        let listed = try home.run("identity", "list")
        XCTAssertTrue(listed.stdout.contains("new-key"), listed.stdout)
        XCTAssertTrue(listed.stdout.contains("confirm, 900 s"), listed.stdout)
        XCTAssertFalse(listed.stdout.contains("old-key"), listed.stdout)
        XCTAssertTrue(try home.run("show", "web1").stdout.contains("identity       new-key"))

        // Delete: the confirmation names the host using it; the host stays, without an identity.
        try tui.send("d")
        try tui.waitFor(text: "Delete identity new-key?")
        try tui.waitFor(text: "Used by 1 host: web1.")
        try tui.waitFor(text: "Their identity is cleared")
        try tui.send("y")
        try tui.waitFor(text: "deleted identity new-key; cleared it from 1 host(s)")
        try tui.waitFor(text: "Identities (1)")
        let after = try home.run("identity", "list")
        XCTAssertFalse(after.stdout.contains("new-key"), after.stdout)
        XCTAssertTrue(after.stdout.contains("spare"), after.stdout)
        let show = try home.run("show", "web1")
        XCTAssertTrue(show.stdout.contains("identity       (none)"), show.stdout)
        XCTAssertTrue(show.stdout.contains("deploy@web1.example.com"), show.stdout)

        try tui.send("Escape")
        try tui.waitFor(text: "web1.example.com")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

// TUIFleetTests: the run pane end to end, the real binary in tmux against the test sshd — mark a host with Space, and
// one that is down and one whose host key was never seen with a search and `*` each; `!` runs a command on them: the
// pane shows the output grouped with the host that gave it, the failure with its reason, and the unknown key skipped
// without a question (nothing sent to that server); `f` runs again on the two that did not succeed only (the release
// log has both runs, the second on those two alone).
import Foundation
import TestSupport
import XCTest

final class TUIFleetTests: XCTestCase {
    func testMarkTwoHostsOneDownRunSeeTheGroupedOutputAndTheFailureThenRepeatOnTheFailedOne() throws {
        let world = try FleetWorld(["a", "b"])
        // A closed loopback port: the connection is refused at once.
        XCTAssertExit(
            try world.home.run("add", "down", "--host", "127.0.0.1", "--port", "1", "--user", TestAccount.name), 0)
        // A server whose host key sshelf has never seen.
        var options = SSHD.Options()
        options.authorizedKeys = [world.cli.key.publicLine]
        let unknown = try SSHD.start(options)
        try world.add("fresh", on: unknown, group: nil)
        let tui = try Tmux(home: world.home, columns: 120, rows: 40)
        try tui.waitFor(text: "5 hosts")
        // The cursor is on "a" (the list is by name): Space marks it; the search finds "down" and * marks its results.
        try tui.send("Space")
        try tui.send("/")
        try tui.type("down")
        try tui.waitFor(text: "Hosts 1")
        try tui.send("Enter")
        try tui.type("*")
        try tui.waitFor(text: "2 marked")
        try tui.send("Escape")
        try tui.send("/")
        try tui.type("fresh")
        try tui.waitFor(text: "Hosts 1")
        try tui.send("Enter")
        try tui.type("*")
        try tui.waitFor(text: "3 marked")
        try tui.send("Escape")
        // The marks, and b unmarked, in the wait's condition: tmux may show a frame half drawn.
        try tui.waitFor("a, down and fresh marked among 5 hosts, b not") {
            $0.contains("Hosts 5") && $0.contains("●a ") && $0.contains("●down ") && $0.contains("●fresh ")
                && !$0.contains("●b ")
        }

        try tui.type("!")
        try tui.waitFor(text: "Run a command on 3 hosts")
        try tui.type("echo hi-$((6*7))")
        try tui.send("Enter")
        let ended = try tui.waitFor("the run's end") {
            $0.contains("3 hosts: 1 succeeded, 1 unreachable, 1 host-key-refused")
        }
        XCTAssertTrue(ended.contains("a (1)"), "the output under the host that gave it:\n\(ended)")
        XCTAssertTrue(ended.contains("hi-42"), ended)
        let down = try XCTUnwrap(ended.split(separator: "\n").first { $0.contains(" down ") }, ended)
        XCTAssertTrue(down.contains("failed") && down.contains("unreachable"), String(down))
        XCTAssertTrue(ended.contains("exit 0"), ended)
        let fresh = try XCTUnwrap(ended.split(separator: "\n").first { $0.contains(" fresh ") }, ended)
        XCTAssertTrue(fresh.contains("skipped") && fresh.contains("host key refused"), String(fresh))
        unknown.waitForConnectionsEnded()
        XCTAssertFalse(unknown.log.contains("userauth-request"), "a login was tried on an unknown key:\n\(unknown.log)")
        XCTAssertTrue(ended.contains("f repeat on the 2 that did not succeed"), ended)

        try tui.type("f")
        // a did not run again: the first run's output gone is part of the wait (a half-drawn frame may keep it).
        try tui.waitFor("the second run's end, without a's output") {
            $0.contains("2 hosts: 1 unreachable, 1 host-key-refused") && !$0.contains("hi-42")
        }
        let runs = try world.runEntries()
        XCTAssertEqual(runs.count, 2, "\(runs)")
        XCTAssertEqual(runs.map { $0["host"] as? String }, ["a,down,fresh", "down,fresh"])
        XCTAssertEqual(runs.last?["item"] as? String, FleetWorld.sha256("echo hi-$((6*7))"))
        XCTAssertExit(try world.home.run("log", "verify"), 0)

        try tui.send("Escape")
        try tui.waitFor(text: "3 marked")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// The run pane covers the main view whole: no group tree `▾` along its left border, no details text along its
    /// right one (no server needed: the question comes before any connection).
    func testTheRunPaneLeavesNothingOfThePanesBesideIt() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web1", "--host", "web1.example", "--group", "prod/eu"), 0)
        let tui = try Tmux(home: home, columns: 80, rows: 24)
        try tui.waitFor("the tree open") { $0.contains("▾ prod") && $0.contains("1 host") }
        try tui.send("Space")
        try tui.waitFor(text: "1 marked")
        try tui.send("!")
        try tui.waitFor("the run pane over a cleared screen") { screen in
            let body = screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast(2)
            return screen.contains("Run a command on 1 host") && !screen.contains("▾")
                && !screen.contains("Groups") && !screen.contains("web1.example")
                && body.allSatisfy { $0.first.map { $0 == " " || $0 == "┌" || $0 == "│" || $0 == "└" } ?? true }
        }
        try tui.send("Escape")
        try tui.waitFor(text: "▾ prod")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

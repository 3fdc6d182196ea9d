// The one search rule, end to end: `sshelf list FILTER` and the TUI's `/` search give the same hosts in the same
// order (the real binary on a generated fleet, the TUI in real tmux), a term never matches across two fields,
// and a search covers every host until Tab narrows it to the selected group, as the title bar says.
import Foundation
import TestSupport
import XCTest

final class TUISearchTests: XCTestCase {
    func fleet(_ count: Int = 400) throws -> TempHome {
        let home = TempHome()
        XCTAssertExit(try home.run("ui", "--benchmark-seed", String(count), "--benchmark-data", "realistic"), 0)
        return home
    }

    /// The rows `list` prints for a filter: names, best first.
    func listed(_ home: TempHome, _ filter: String) throws -> [String] {
        let result = try home.run(["list"] + filter.split(separator: " ").map(String.init))
        XCTAssertExit(result, 0)
        return result.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: " ")[0]) }
    }

    func testListAndTheTUIFindTheSameHostsInTheSameOrder() throws {
        let home = try fleet()
        let expected = try listed(home, "db")
        XCTAssertGreaterThan(expected.count, 6)
        let tui = try Tmux(home: home, columns: 150, rows: 40)
        try tui.waitFor("the list") { $0.contains("400 hosts") && !$0.contains("loading") }
        try tui.send("/")
        try tui.type("db")
        // The details pane's title names the selected row: walk the first results in list's order.
        try tui.waitFor("the results") { $0.contains("Hosts \(expected.count) ") && self.selected($0) == expected[0] }
        try tui.send("Enter")
        for name in expected.prefix(6).dropFirst() {
            try tui.send("j")
            try tui.waitFor("\(name) selected") { self.selected($0) == name }
        }
    }

    /// The details pane's title (the selected host's name): the end of the second screen line, right of the
    /// last frame line.
    func selected(_ screen: String) -> String {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count > 1, let bar = lines[1].lastIndex(of: "│") else { return "" }
        return lines[1][lines[1].index(after: bar)...].trimmingCharacters(in: .whitespaces)
    }

    func testATermNeverMatchesAcrossFields() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web3", "--host", "example.com", "--user", "deploy"), 0)
        XCTAssertExit(try home.run("add", "lab-1", "--host", "10.0.0.1"), 0)
        // l in deploy, a in example, b in web3: three fields, so no match for web3.
        XCTAssertEqual(try listed(home, "lab"), ["lab-1"])
        let tui = try Tmux(home: home)
        try tui.waitFor(text: "2 hosts")
        try tui.send("/")
        try tui.type("lab")
        // web3's row gone is part of the wait: tmux may show a frame half drawn (the count new, the row not cleared).
        try tui.waitFor("one result, not web3") { $0.contains("Hosts 1 ") && !$0.contains("example.com") }
    }

    func testSearchCoversEveryHostUntilTabNarrowsItToTheGroup() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "db-eu", "--host", "db.eu.example", "--group", "prod/eu"), 0)
        XCTAssertExit(try home.run("add", "db-us", "--host", "db.us.example", "--group", "prod/us"), 0)
        let tui = try Tmux(home: home, columns: 120, rows: 30)
        try tui.waitFor(text: "2 hosts")
        try tui.send("Tab", "j", "j")  // the group tree: prod, eu
        try tui.waitFor(text: "prod/eu")
        try tui.send("/")
        try tui.type("db")
        try tui.waitFor("every host") { $0.contains("in all hosts — Tab: prod/eu") && $0.contains("Hosts 2 ") }
        try tui.send("Tab")
        // db-us leaves the list: in the wait's condition, as tmux may show a frame half drawn (the title and the
        // count already new, the row below them not yet cleared).
        try tui.waitFor("the group only") {
            $0.contains("in prod/eu — Tab: all") && $0.contains("Hosts 1 ") && $0.contains("db.eu.example")
                && !$0.contains("db.us.example")
        }
    }
}

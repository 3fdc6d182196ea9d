// The TUI end to end, in real tmux: the real binary on a store seeded through the CLI — navigate, search,
// add a host through the form (then find it with `sshelf list`), delete one, resize below the minimum and
// back, quit; and the status line's colour escapes for each sync state, 256 and 8 colours, NO_COLOR, and a
// non-UTF-8 locale.
import Foundation
import TestSupport
import XCTest

final class TUIEndToEndTests: XCTestCase {
    func seededHome() throws -> TempHome {
        let home = TempHome()
        XCTAssertExit(
            try home.run(
                "add", "web1", "--host", "web1.example.com", "--user", "deploy", "--group", "prod/eu",
                "--tag", "web"), 0)
        XCTAssertExit(try home.run("add", "db", "--host", "10.0.0.5", "-p", "2222", "--group", "prod/us"), 0)
        XCTAssertExit(try home.run("add", "laptop", "--host", "192.168.1.4"), 0)
        XCTAssertExit(try home.run("forward", "add", "web1", "--local", "8080:localhost:80"), 0)
        return home
    }

    func testNavigateSearchAddDeleteResizeQuit() throws {
        let home = try seededHome()
        let tui = try Tmux(home: home)
        try tui.waitFor("the first frame") { $0.contains("3 hosts") && $0.contains("address   10.0.0.5:2222") }

        // Navigate: j moves to the next host (by name: db, laptop, web1); the details pane follows.
        try tui.send("j")
        try tui.waitFor(text: "address   192.168.1.4")
        try tui.send("Down")
        try tui.waitFor(text: "address   deploy@web1.example.com")
        try tui.waitFor(text: "-L 127.0.0.1:8080:localhost:80")
        try tui.send("k")
        try tui.waitFor(text: "address   192.168.1.4")

        // Search narrows the list as you type; Esc clears it.
        try tui.send("/")
        try tui.type("web")
        // The other rows gone is part of the wait: tmux may show a frame half drawn (the count new, rows not cleared).
        try tui.waitFor("the filtered list") {
            $0.contains("/web") && $0.contains("Hosts 1") && $0.contains("web1.example.com")
                && !$0.contains("192.168.1.4")
        }
        try tui.send("Escape")
        try tui.waitFor(text: "Hosts 3")

        // Add a host through the form; the CLI then finds it in the same store.
        try tui.send("a")
        try tui.waitFor(text: "Add host")
        try tui.type("newbox")
        try tui.send("Tab")
        try tui.type("new.example.com")
        try tui.send("Tab", "Tab")
        try tui.type("alice")
        try tui.send("Tab")
        try tui.type("lab/x")
        try tui.send("Enter")
        try tui.waitFor(text: "added newbox")
        let list = try home.run("list")
        XCTAssertExit(list, 0)
        XCTAssertTrue(list.stdout.contains("newbox"), list.stdout)
        XCTAssertTrue(list.stdout.contains("alice@new.example.com"), list.stdout)
        XCTAssertTrue(list.stdout.contains("lab/x"), list.stdout)

        // A form with a bad port keeps its input and says why, inline.
        try tui.send("a")
        try tui.waitFor(text: "Add host")
        try tui.type("broken")
        try tui.send("Tab")
        try tui.type("b.example.com")
        try tui.send("Tab", "C-u")
        try tui.type("99999")
        try tui.send("Enter")
        try tui.waitFor("the inline port message") {
            $0.contains("port 99999 is out of range (1-65535)") && $0.contains("b.example.com")
        }
        try tui.send("Escape")
        try tui.waitFor(text: "cancelled; nothing saved")

        // Delete asks first and names what goes with it.
        try tui.send("/")
        try tui.type("laptop")
        try tui.waitFor(text: "Hosts 1")
        try tui.send("Enter", "d")
        try tui.waitFor(text: "Delete host laptop?")
        try tui.send("y")
        try tui.waitFor(text: "deleted laptop")
        XCTAssertFalse(try home.run("list").stdout.contains("laptop"))

        // Below 60x15 a notice replaces the layout; growing back restores it.
        try tui.resize(columns: 50, rows: 12)
        try tui.waitFor(text: "Terminal too small")
        try tui.resize(columns: 120, rows: 35)
        try tui.waitFor("the layout after resize") { $0.contains("Hosts 0") && !$0.contains("too small") }
        try tui.send("Escape")
        try tui.waitFor(text: "Hosts 3")

        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// The SGR parameters in effect where `marker` starts on the last line of a `capture-pane -e` screen.
    func style(before marker: String, in screen: String) -> String? {
        guard let line = screen.split(separator: "\n").last(where: { $0.contains(marker) }),
            let range = line.range(of: marker)
        else { return nil }
        let prefix = line[..<range.lowerBound]
        guard let escape = prefix.range(of: "\u{1B}[", options: .backwards) else { return "" }
        // tmux writes one SGR run per attribute change, e.g. ESC[0;1m ESC[38;5;208m ESC[49m: collect the run.
        var start = escape.lowerBound
        while let earlier = prefix[..<start].range(of: "\u{1B}[", options: .backwards),
            prefix[earlier.lowerBound..<start].hasSuffix("m"),
            !prefix[earlier.lowerBound..<start].dropFirst(2).contains("\u{1B}")
        {
            start = earlier.lowerBound
        }
        return String(prefix[start...])
    }

    func statusScreen(
        _ hook: String, environment: [String: String] = [:], removing: Set<String> = ["NO_COLOR"],
        marker: String
    ) throws -> String {
        let home = try seededHome()
        var env = environment
        env["SSHELF_TEST_SYNC_STATUS"] = hook
        let tui = try Tmux(home: home, environment: env, removing: removing)
        let screen = try tui.waitFor("status '\(marker)'", escapes: true) {
            $0.contains(marker) && $0.contains("3 hosts")
        }
        try tui.send("q")
        return screen
    }

    func testStatusLineColoursOn256ColourTerminal() throws {
        let synced = try statusScreen("synced", environment: ["TERM": "tmux-256color"], marker: "✓ synced 2 min ago")
        XCTAssertTrue(
            style(before: "✓ synced", in: synced)?.contains("[32m") ?? false,
            "green expected: \(String(reflecting: style(before: "✓ synced", in: synced)))")

        let fallback = try statusScreen(
            "fallback:sync folder /mnt/nas/sshelf not found", environment: ["TERM": "tmux-256color"],
            marker: "▲ local fallback: sync folder /mnt/nas/sshelf not found")
        XCTAssertTrue(
            style(before: "▲ local fallback", in: fallback)?.contains("38;5;208") ?? false,
            "orange (208) expected: \(String(reflecting: style(before: "▲ local fallback", in: fallback)))")

        let syncing = try statusScreen("syncing", environment: ["TERM": "tmux-256color"], marker: "↻ syncing")
        XCTAssertTrue(
            style(before: "↻ syncing", in: syncing)?.contains("[34m") ?? false,
            "blue expected: \(String(reflecting: style(before: "↻ syncing", in: syncing)))")

        let off = try statusScreen("off", environment: ["TERM": "tmux-256color"], marker: "○ sync off")
        let offStyle = style(before: "○ sync off", in: off) ?? ""
        XCTAssertFalse(["[32m", "[34m", "208"].contains { offStyle.contains($0) }, "dim, not coloured: \(offStyle)")
        XCTAssertTrue(off.contains("vault not set up"), off)
    }

    func testOrangeIsYellowOnEightColourTerminal() throws {
        let screen = try statusScreen(
            "fallback:remote unreachable", environment: ["TERM": "screen"],
            marker: "▲ local fallback: remote unreachable")
        let sgr = style(before: "▲ local fallback", in: screen) ?? ""
        XCTAssertTrue(sgr.contains("[33m"), "yellow expected: \(String(reflecting: sgr))")
        XCTAssertFalse(sgr.contains("208"), sgr)
    }

    func testNoColorKeepsSymbolsAndWords() throws {
        let screen = try statusScreen(
            "fallback:remote unreachable", environment: ["NO_COLOR": "1", "TERM": "tmux-256color"],
            removing: [], marker: "▲ local fallback: remote unreachable")
        let sgr = style(before: "▲ local fallback", in: screen) ?? ""
        XCTAssertFalse(sgr.contains("38;5") || sgr.contains("[33m"), "no colour expected: \(String(reflecting: sgr))")
    }

    func testNonUTF8LocaleGetsASCIISymbols() throws {
        let screen = try statusScreen(
            "fallback:remote unreachable", environment: ["LANG": "C", "LC_ALL": "C"],
            marker: "! local fallback: remote unreachable")
        XCTAssertFalse(screen.contains("▲"), screen)
        XCTAssertTrue(screen.contains("| vault not set up"), screen)
    }

    func testNoArgumentsWithoutATerminalPrintsHelp() throws {
        let home = TempHome()
        let result = try home.run([])
        XCTAssertExit(result, 0)
        XCTAssertTrue(result.stdout.contains("usage: sshelf COMMAND"), result.stdout)
        XCTAssertTrue(try home.run("--help").stdout.contains("usage: sshelf COMMAND"))
    }
}

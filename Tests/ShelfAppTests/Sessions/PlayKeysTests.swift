// PlayKeysTests: `sshelf play`'s keys on a real terminal (tmux) — a recording whose ticks are two seconds apart,
// played from `--paused` so nothing moves by itself: + and - change the speed, the arrows seek 5 seconds either way
// (back redraws from the start), `/` jumps to a second before a text's first place, `n` to the next hit, space
// plays, q stops. Each state is read from the terminal's title, which the player keeps up to date (no sleeps).
import Foundation
import TestSupport
import XCTest

final class PlayKeysTests: XCTestCase {
    private func title(_ tmux: Tmux) throws -> String {
        try tmux.tmux(["display-message", "-p", "-t", tmux.session, "#{pane_title}"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    private func waitForTitle(_ tmux: Tmux, _ what: String, _ condition: @escaping (String) -> Bool) throws -> String {
        try eventually(
            what, observe: { try self.title(tmux) }, until: condition, context: { (try? tmux.screen()) ?? "" })
    }

    /// The position the title shows (`+12.3s`).
    private func position(_ title: String) -> Double? {
        guard let range = title.range(of: #"\+[0-9]+\.[0-9]s"#, options: .regularExpression) else { return nil }
        return Double(title[range].dropFirst().dropLast())
    }

    func testSpeedPauseSeekSearchNextAndQuit() throws {
        let world = try SSHCLIWorld()
        // `tick""-` so the echoed command line holds no "tick-": only the output does. Two seconds apart, so a
        // second before one tick is after the one before it, whatever the network's jitter.
        try world.recordSession(
            typing: "for i in 1 2 3 4; do echo tick\"\"-$i; sleep 2; done; echo done-$((6*7))", until: "done-42")
        let id = try XCTUnwrap(
            try world.home.run("sessions", "list").stdout.split(separator: "\n").dropFirst().first?
                .split(separator: " ").first.map(String.init))

        let play = try Tmux(
            home: world.home, command: [CLI.binary, "play", id, "--paused", "--max-wait", "5"],
            environment: world.home.environment, columns: 80, rows: 24)
        try waitForTitle(play, "paused at the start") { $0.hasPrefix("sshelf play \(id) +0.0s x1 paused") }
        try play.type("+")
        try waitForTitle(play, "twice as fast") { $0.contains(" x2 paused") }
        // As bytes: tmux reads a "-" or "--" argument as its own option syntax.
        try play.tmux(["send-keys", "-t", play.session, "-H", "2d", "2d"])
        try waitForTitle(play, "half speed") { $0.contains(" x1/2 paused") }

        // Seek: the arrows move 5 seconds while paused, and nothing else moves it.
        try play.send("Right")
        try waitForTitle(play, "5 s in") { $0.contains("+5.0s") }
        try play.send("Right")
        try waitForTitle(play, "10 s in") { $0.contains("+10.0s") }
        try play.send("Left")
        try waitForTitle(play, "back to 5 s") { $0.contains("+5.0s") }

        // `/`: typed in the title, Enter jumps to a second before the text's first place.
        try play.type("/tick-3")
        try waitForTitle(play, "the text typed") { $0.hasSuffix("search: tick-3_") }
        try play.send("Enter")
        let found = try waitForTitle(play, "the jump") { $0.contains("'tick-3': 1 hit") }
        try play.waitFor("the screen a second before tick-3") { $0.contains("tick-2") && !$0.contains("tick-3") }
        let before3 = try XCTUnwrap(position(found), found)

        // Every hit of "tick-": the first more than a second after here is tick-4's; after it n finds none.
        try play.type("/tick-")
        try play.send("Enter")
        let four = try waitForTitle(play, "four hits") { $0.contains("'tick-': 4 hits") }
        try play.waitFor("the screen redrawn from the start, before tick-4") {
            $0.contains("tick-3") && !$0.contains("tick-4")
        }
        XCTAssertGreaterThan(try XCTUnwrap(position(four)), before3, "the next hit after tick-3's place is tick-4's")
        try play.type("n")
        try play.waitFor("no next hit after the last: the screen stays") { $0.contains("tick-3") }
        try play.type("/tick-1")
        try play.send("Enter")
        try play.waitFor("back before tick-1") { !$0.contains("tick-") }
        // From there `/tick-` finds tick-2 first (tick-1 is not a second ahead), and n goes on to tick-3.
        try play.type("/tick-")
        try play.send("Enter")
        try play.waitFor("a second before tick-2") { $0.contains("tick-1") && !$0.contains("tick-2") }
        try play.type("n")
        try play.waitFor("n: a second before tick-3") { $0.contains("tick-2") && !$0.contains("tick-3") }

        // Space plays (the title loses "paused"), q stops with status 0.
        try play.type(" ")
        try waitForTitle(play, "playing") { !$0.contains("paused") && $0.hasPrefix("sshelf play") }
        try play.type("q")
        XCTAssertEqual(try play.waitForExit(), 0)
    }
}

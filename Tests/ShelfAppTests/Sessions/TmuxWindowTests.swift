// TmuxWindowTests: sessions in tmux windows, in a real tmux server against a real sshd — `connect --window` and the
// `tmux window` setting open a host in a new window; `tmux open` puts several hosts in one tiled window, a pane each
// named in its border; broadcast goes on only after the number of hosts is typed, reaches every pane, shows in every
// border, and its on and off are in the release log.
import Foundation
import TestSupport
import XCTest

final class TmuxWindowTests: XCTestCase {
    /// A shell in a pane of a private tmux server, knowing it runs inside tmux.
    private func shell(_ world: FleetWorld) throws -> Tmux {
        let tmux = try Tmux(
            home: world.home, command: [TestTool.sh.path], environment: world.home.environment, insideTmux: true)
        try tmux.waitFor("the shell's prompt") { tmux.lastLine($0).hasSuffix("#") || tmux.lastLine($0).hasSuffix("$") }
        // tmux's own default, which the harness changes: a pane that ends goes, unless sshelf keeps it.
        _ = try ask(tmux, "set-option", "-g", "remain-on-exit", "off")
        return tmux
    }

    /// A tmux command that must succeed, its output trimmed.
    private func ask(_ tmux: Tmux, _ arguments: String...) throws -> String {
        let result = try tmux.tmux(arguments)
        XCTAssertEqual(result.status, 0, result.output)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Types a line into the first window's shell (the window sshelf was run from).
    private func typeInShell(_ tmux: Tmux, _ line: String) throws {
        _ = try ask(tmux, "send-keys", "-t", "tui:0", "-l", line)
        _ = try ask(tmux, "send-keys", "-t", "tui:0", "Enter")
    }

    private func shellScreen(_ tmux: Tmux) throws -> String { try ask(tmux, "capture-pane", "-p", "-t", "tui:0") }

    private func waitForPrompt(_ tmux: Tmux, pane: String, _ world: FleetWorld) throws {
        try eventually(
            "the remote prompt in pane \(pane)", observe: { try self.ask(tmux, "capture-pane", "-p", "-t", pane) },
            until: { tmux.lastLine($0) == "$" }, context: { "sshd log:\n" + tail(world.sshd.log) })
    }

    func testConnectWindowAndTheSettingOpenANewWindow() throws {
        let world = try FleetWorld(["a"])
        let tmux = try shell(world)
        let bin = Tmux.quote(CLI.binary)
        try typeInShell(tmux, "\(bin) connect a --window; echo DONE=$?")
        let window = try eventually(
            "a window named a", observe: { try self.ask(tmux, "list-windows", "-F", "#{window_id} #{window_name}") },
            until: { $0.split(separator: "\n").contains { $0.hasSuffix(" a") } })
        let id = String(
            try XCTUnwrap(window.split(separator: "\n").first { $0.hasSuffix(" a") }).split(separator: " ")[0])
        try waitForPrompt(tmux, pane: id, world)
        try eventually("connect to say so", observe: { try self.shellScreen(tmux) }) {
            $0.contains("opened a in tmux window \(id)") && $0.contains("DONE=0")
        }
        _ = try ask(tmux, "kill-window", "-t", id)

        // The setting: connect opens a window without --window; --no-window connects here.
        XCTAssertExit(try world.home.run("tmux", "window", "on"), 0)
        XCTAssertEqual(try world.home.run("tmux", "window").stdout, "tmux window: on\n")
        try typeInShell(tmux, "\(bin) connect a; echo AGAIN=$?")
        try eventually("the second window", observe: { try self.shellScreen(tmux) }) { $0.contains("AGAIN=0") }
        XCTAssertEqual(
            try ask(tmux, "list-windows", "-F", "#{window_name}").split(separator: "\n").filter { $0 == "a" }.count, 1)
        // A session that cannot start keeps its window, with the reason on screen.
        XCTAssertExit(
            try world.home.run("add", "down", "--host", "127.0.0.1", "--port", "1", "--user", TestAccount.name), 0)
        try typeInShell(tmux, "\(bin) connect down; echo DOWN=$?")
        let down = try eventually(
            "a window named down", observe: { try self.ask(tmux, "list-windows", "-F", "#{window_id} #{window_name}") },
            until: { $0.split(separator: "\n").contains { $0.hasSuffix(" down") } })
        let downID = String(
            try XCTUnwrap(down.split(separator: "\n").first { $0.hasSuffix(" down") }).split(separator: " ")[0])
        // The session ended (its pane dead), and the window is still there with the reason: not closed under it.
        try eventually(
            "the window kept, its session ended, the reason on screen",
            observe: {
                try tmux.tmux(["display-message", "-p", "-t", downID, "#{pane_dead} "]).output
                    + (try tmux.tmux(["capture-pane", "-p", "-S", "-", "-t", downID]).output)
            },
            until: { $0.hasPrefix("1 ") && $0.contains("sshelf: error:") })
        // Outside tmux the setting changes nothing: connect runs here (and --window says why it cannot).
        let outside = try world.home.run("connect", "a", "--window")
        XCTAssertExit(outside, 2)
        XCTAssertTrue(outside.stderr.contains("not inside tmux"), outside.stderr)
    }

    func testTiledWindowAndBroadcastWithConfirmationBorderAndLog() throws {
        let world = try FleetWorld(["a", "b", "c"])
        let tmux = try shell(world)
        let bin = Tmux.quote(CLI.binary)
        try typeInShell(tmux, "\(bin) tmux open @prod; echo OPENED=$?")
        let opened = try eventually("the tiled window", observe: { try self.shellScreen(tmux) }) {
            $0.contains("OPENED=0")
        }
        XCTAssertTrue(opened.contains("opened 3 hosts in tmux window @"), opened)
        let window = try XCTUnwrap(
            try ask(tmux, "list-windows", "-F", "#{window_id} #{window_name}").split(separator: "\n")
                .first { $0.hasSuffix(" 3 hosts") }?.split(separator: " ").first.map(String.init))
        let panes = try ask(tmux, "list-panes", "-t", window, "-F", "#{pane_id} #{@sshelf-host}").split(separator: "\n")
            .map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(panes.map { $0.last ?? "" }.sorted(), ["a", "b", "c"], "\(panes)")
        XCTAssertEqual(try ask(tmux, "show-options", "-w", "-v", "-t", window, "@sshelf-hosts"), "a,b,c")
        for pane in panes { try waitForPrompt(tmux, pane: pane[0], world) }
        let border = { (pane: String) in
            try self.ask(tmux, "display-message", "-p", "-t", pane, "#{E:pane-border-format}")
        }
        let quiet = try border(panes[0][0])
        XCTAssertTrue(quiet.contains("a") && !quiet.contains("BROADCAST"), quiet)

        // A wrong number: nothing changes, nothing is logged.
        try typeInShell(tmux, "clear; \(bin) tmux broadcast on --window \(window); echo REFUSED=$?")
        try eventually("the question", observe: { try self.shellScreen(tmux) }) {
            $0.contains("Type 3 (the number of hosts) to turn it on:")
        }
        try typeInShell(tmux, "2")
        try eventually("the refusal", observe: { try self.shellScreen(tmux) }) {
            $0.contains("not confirmed; broadcast stays off") && $0.contains("REFUSED=2")
        }
        XCTAssertEqual(try ask(tmux, "display-message", "-p", "-t", window, "#{pane_synchronized}"), "0")
        XCTAssertEqual(try broadcastEntries(world).count, 0)

        try typeInShell(tmux, "clear; \(bin) tmux broadcast on --window \(window); echo ON=$?")
        try eventually("the question", observe: { try self.shellScreen(tmux) }) { $0.contains("to turn it on:") }
        try typeInShell(tmux, "3")
        try eventually("broadcast on", observe: { try self.shellScreen(tmux) }) { $0.contains("ON=0") }
        XCTAssertEqual(try ask(tmux, "display-message", "-p", "-t", window, "#{pane_synchronized}"), "1")
        for pane in panes {
            let text = try border(pane[0])
            XCTAssertTrue(text.contains("BROADCAST to 3 hosts") && text.contains(pane[1]), text)
        }
        // Keys typed into one pane reach every host.
        _ = try ask(tmux, "send-keys", "-t", panes[0][0], "-l", "echo bc-$((40+2))")
        _ = try ask(tmux, "send-keys", "-t", panes[0][0], "Enter")
        for pane in panes {
            try eventually(
                "the broadcast command's output in \(pane[1])",
                observe: { try self.ask(tmux, "capture-pane", "-p", "-t", pane[0]) },
                until: { $0.split(separator: "\n").contains("bc-42") })
        }

        try typeInShell(tmux, "clear; \(bin) tmux broadcast off --window \(window); echo OFF=$?")
        try eventually("broadcast off", observe: { try self.shellScreen(tmux) }) { $0.contains("OFF=0") }
        XCTAssertEqual(try ask(tmux, "display-message", "-p", "-t", window, "#{pane_synchronized}"), "0")
        let after = try border(panes[0][0])
        XCTAssertFalse(after.contains("BROADCAST"), after)

        let entries = try broadcastEntries(world)
        XCTAssertEqual(entries.map { $0["what"] as? String }, ["broadcast on", "broadcast off"], "\(entries)")
        XCTAssertEqual(entries.map { $0["host"] as? String }, ["a,b,c", "a,b,c"])
        XCTAssertEqual(entries.first?["item"] as? String, "tmux window \(window)")
        XCTAssertExit(try world.home.run("log", "verify"), 0)

        // Only a window sshelf opened for several hosts can broadcast.
        let plain = try ask(tmux, "display-message", "-p", "-t", "tui:0", "#{window_id}")
        try typeInShell(tmux, "clear; \(bin) tmux broadcast on --window \(plain); echo PLAIN=$?")
        try eventually("the refusal", observe: { try self.shellScreen(tmux) }) {
            $0.contains("is not one sshelf opened for several hosts") && $0.contains("PLAIN=2")
        }
    }

    private func broadcastEntries(_ world: FleetWorld) throws -> [[String: Any]] {
        let log = try world.home.run("log", "--json")
        XCTAssertExit(log, 0)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        return entries.filter { $0["by"] as? String == "tmux" }
    }
}

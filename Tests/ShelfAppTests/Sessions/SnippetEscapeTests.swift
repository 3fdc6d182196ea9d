// SnippetEscapeTests: `~s` in a live session of sshelf's own client (real sshd, real tmux) — the picker lists the
// snippets, takes part of a name, asks each parameter with its default, and types the filled-in command into the
// session, where Enter runs it; Esc types nothing; `~?` lists the escapes.
import Foundation
import TestSupport
import XCTest

final class SnippetEscapeTests: XCTestCase {
    private func session(_ world: SSHCLIWorld) throws -> Tmux {
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let tmux = try Tmux(
            home: world.home, command: [TestTool.sh.path, "-c", "\(Tmux.quote(CLI.binary)) connect t; echo EXIT=$?"],
            environment: world.home.environment, columns: 100, rows: 30)
        try tmux.waitFor("the remote shell's prompt", context: { "sshd log:\n" + tail(world.sshd.log) }) {
            tmux.lastLine($0) == "$"
        }
        return tmux
    }

    func testTildeSTypesTheChosenSnippetWithItsParameters() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("snippet", "add", "answer", "--", "echo $((6*7))-{{who}}-{{what:default}}"), 0)
        XCTAssertExit(try world.home.run("snippet", "add", "uptime", "--tag", "health", "--", "uptime"), 0)
        let tmux = try session(world)

        try tmux.send("Enter")
        try tmux.type("~?")
        try tmux.waitFor(text: "~s   - pick a snippet and type it into the session")
        // The prompt back before the picker opens: the session's output waits while the picker has the terminal.
        try tmux.send("Enter")
        try tmux.waitFor("the prompt after the help") { tmux.lastLine($0) == "$" }
        try tmux.type("~s")
        try tmux.waitFor("the picker's list") {
            $0.contains("1  answer  echo $((6*7))-{{who}}-{{what:default}}") && $0.contains("2  uptime  uptime")
                && tmux.lastLine($0) == "snippet:"
        }
        try tmux.enter("ans")
        try tmux.waitFor("the first parameter") { tmux.lastLine($0) == "who:" }
        try tmux.enter("")
        try tmux.waitFor("a value asked again") { $0.contains("'who' has no default") && tmux.lastLine($0) == "who:" }
        try tmux.enter("snippet")
        try tmux.waitFor("the second parameter, its default shown") { tmux.lastLine($0) == "what [default]:" }
        try tmux.enter("")
        // Typed, not run: the remote shell echoes the command and waits for Enter.
        try tmux.waitFor("the command typed at the prompt") {
            tmux.lastLine($0).contains("echo $((6*7))-snippet-default")
                && !$0.split(separator: "\n").contains("42-snippet-default")
        }
        try tmux.send("Enter")
        try tmux.waitFor("the command's output") { $0.split(separator: "\n").contains("42-snippet-default") }

        // Esc leaves the picker and types nothing: `~.` right after still disconnects.
        try tmux.send("Enter")
        try tmux.type("~s")
        try tmux.waitFor("the picker again") { tmux.lastLine($0) == "snippet:" }
        try tmux.send("Escape")
        try tmux.waitFor(text: "(no snippet typed)")
        try tmux.send("Enter")
        try tmux.type("~.")
        try tmux.waitFor(text: "EXIT=255")
    }
}

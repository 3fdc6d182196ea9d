// RecordedSession: a session to the test sshd recorded by `sshelf connect` in a real tmux pane (the host `t` trusted
// and its record setting on), one command line typed and waited for, then `exit` — the recording the TUI's list and
// `play`'s keys are tested on.
import Foundation
import TestSupport
import XCTest

extension SSHCLIWorld {
    /// Records a session that types `line` and waits until `shown` is on the screen.
    func recordSession(typing line: String, until shown: String) throws {
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try fingerprint(sshd)), 0)
        XCTAssertExit(try home.run("edit", "t", "--record", "on"), 0)
        let live = try Tmux(
            home: home, command: [TestTool.sh.path, "-c", "\(Tmux.quote(CLI.binary)) connect t; echo EXIT=$?"],
            environment: home.environment, columns: 80, rows: 24)
        try live.waitFor(text: "recording this session as")
        try live.waitFor("the remote shell's prompt", context: { "sshd log:\n" + tail(self.sshd.log) }) {
            live.lastLine($0) == "$"
        }
        try live.enter(line)
        try live.waitFor(text: shown)
        try live.enter("exit")
        try live.waitFor(text: "EXIT=0")
    }
}

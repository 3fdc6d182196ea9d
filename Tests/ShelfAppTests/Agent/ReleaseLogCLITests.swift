// ReleaseLogCLITests: one release-log line for each way a vault credential is released — exec, connect (a shell in
// real tmux), a forward, a TUI connect and an agent signature — each naming what, by whom and for which host or
// process; `sshelf log verify` passes, and fails after a changed byte, a removed line or two swapped lines.
import Foundation
import TestSupport
import XCTest

final class ReleaseLogCLITests: XCTestCase {
    func lines(_ home: TempHome) throws -> [[String: Any]] {
        let result = try home.run(["log", "--json"])
        XCTAssertExit(result, 0)
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    func testEveryPathWritesOneLineAndVerifyFindsTampering() throws {
        let world = try SSHCLIWorld()
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let home = world.home
        let made = try home.run("keygen", "vk")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertExit(try home.run("edit", "t", "--identity", "vk", "--auth", "publickey"), 0)
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertEqual(try lines(home).count, 0, "pinning a host key releases nothing")

        // exec
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        var logged = try lines(home)
        XCTAssertEqual(logged.count, 1)
        XCTAssertEqual(logged.last?["by"] as? String, "exec")
        XCTAssertEqual(logged.last?["what"] as? String, "private key")
        XCTAssertEqual(logged.last?["host"] as? String, "t")
        XCTAssertTrue((logged.last?["item"] as? String)?.hasPrefix("identity.") == true)

        // connect, in a terminal
        let shell = try Tmux(home: home, arguments: ["connect", "t"])
        try shell.waitFor("the remote prompt") { $0.split(separator: "\n").contains { $0.hasSuffix("$") } }
        try shell.type("exit")
        try shell.send("Enter")
        try shell.waitFor("connect to end") { _ in (try? shell.exitStatus()) != nil }
        logged = try lines(home)
        XCTAssertEqual(logged.count, 2)
        XCTAssertEqual(logged.last?["by"] as? String, "connect")

        // a forward
        let port = try SilentListener().port
        XCTAssertExit(try home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(world.sshd.port)"), 0)
        let forward = try BackgroundCLI(home, ["forward", "start", "t"])
        try forward.waitFor("press Ctrl-C")
        try eventually("the forward's release line") { try lines(home).count == 3 }
        _ = try forward.stop()
        XCTAssertEqual(try lines(home).last?["by"] as? String, "forward")

        // the TUI
        let tui = try Tmux(home: home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("Enter")
        try tui.waitFor("the remote prompt") { screen in
            screen.split(separator: "\n").contains { $0.hasSuffix("$") } && !screen.contains("○ sync")
        }
        try tui.type("exit")
        try tui.send("Enter")
        try tui.waitFor(text: "1 host")
        try tui.send("q")
        try tui.waitFor("the TUI to quit") { _ in (try? tui.exitStatus()) != nil }
        logged = try lines(home)
        XCTAssertEqual(logged.count, 4)
        XCTAssertEqual(logged.last?["by"] as? String, "tui")

        // an agent signature
        let agent = AgentWorld(over: home, sshd: world.sshd)
        try agent.startAgent()
        XCTAssertExit(try agent.ssh(), 0)
        logged = try lines(home)
        XCTAssertEqual(logged.count, 5)
        XCTAssertEqual(logged.last?["by"] as? String, "agent")
        XCTAssertEqual(logged.last?["what"] as? String, "signature")
        // ssh bound its agent connection to the session (session-bind@openssh.com); the server's key, checked
        // against its signature, is the one pinned on t: the log names the host.
        XCTAssertEqual(logged.last?["host"] as? String, "t")
        XCTAssertTrue(
            (logged.last?["detail"] as? String)?.contains("server key \(try world.fingerprint(world.sshd))") == true,
            "\(logged.last ?? [:])")
        XCTAssertEqual(logged.map { $0["seq"] as? Int }, [1, 2, 3, 4, 5])
        for line in logged {
            XCTAssertFalse(line.values.contains { "\($0)".contains("PRIVATE KEY") }, "no secret in the log: \(line)")
        }

        // verify: intact, then each kind of tampering is found and the untouched log verifies again.
        XCTAssertExit(try home.run("log", "verify"), 0)
        let path = home.sshelfHome + "/state/release.log"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        var rows = original.split(separator: "\n").map(String.init)
        let tampered = [
            "a changed byte": original.replacingOccurrences(of: "\"by\":\"exec\"", with: "\"by\":\"exeq\""),
            "a removed line": {
                var copy = rows
                copy.remove(at: 2)
                return copy.joined(separator: "\n") + "\n"
            }(),
            "two swapped lines": {
                rows.swapAt(1, 2)
                return rows.joined(separator: "\n") + "\n"
            }(),
            "a cut-off end": original.split(separator: "\n").dropLast().joined(separator: "\n") + "\n",
        ]
        for (what, text) in tampered {
            XCTAssertNotEqual(text, original, what)
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let verdict = try home.run("log", "verify")
            XCTAssertEqual(verdict.status, 4, "\(what) went unnoticed: \(verdict)")
            XCTAssertTrue(verdict.stderr.contains("does not verify"), verdict.stderr)
        }
        try original.write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertExit(try home.run("log", "verify"), 0)
        XCTAssertEqual(AgentWorld.mode(path), 0o600)
        XCTAssertEqual(AgentWorld.mode(path + ".head"), 0o600)
    }

    func testShowingFiltersByTime() throws {
        let home = TempHome()
        XCTAssertTrue(try home.run("log").stderr.contains("nothing was released yet"))
        XCTAssertExit(try home.run("log", "--since", "2h"), 0)
        XCTAssertExit(try home.run("log", "--since", "2025-01-31T08:00"), 0)
        let bad = try home.run("log", "--since", "yesterday")
        XCTAssertEqual(bad.status, 4)
        XCTAssertTrue(bad.stderr.contains("hint: e.g. --since"), bad.stderr)
    }
}

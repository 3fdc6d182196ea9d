// RunReportingTests: what `sshelf run` (and `cp`) tell the user, end to end against real sshd — a hostile host's
// output at a real terminal (tmux with set-clipboard on: OSC 52 and the title reach nothing, SGR 8 and cursor-up
// cannot hide or rewrite the summary; --raw passes them, which proves the harness would see them), C1 controls
// escaped in --json, exit statuses that mean one thing (a session lost mid-command is 255 with its cause; the table
// in docs/FLEET.md is the code's), failures folded (60 hosts on a closed port: one line), natural order, the fix a
// refusal carries, `@group` read as the group however hex it looks, and the protected tag in any case.
import Foundation
import ShelfCore
import ShelfOperations
import TestSupport
import XCTest

final class RunReportingTests: XCTestCase {
    /// The attack of issue 31: a host prints OSC 52 (set the clipboard), OSC 2 (set the title), SGR 8 (conceal)
    /// and cursor-up + erase-line, aiming at the summary sshelf prints after it.
    func testAHostileHostCannotReachTheClipboardTheTitleOrTheSummary() throws {
        let world = try FleetWorld(["a"])
        let attack =
            #"printf '\033]52;c;UFdORUQ=\a\033]2;PWNTITLE\a\033[8mHIDDEN\033[0m\n\033[8m'; "#
            + #"printf 'x\033[1A\033[2K\033[1A\033[2K\r'"#
        let run = try Tmux(
            home: world.home, arguments: ["run", "a", "--", attack], columns: 160, options: ["-g set-clipboard on"])
        XCTAssertEqual(try run.waitForExit(), 0)
        let screen = try run.waitFor("the report") { $0.contains("1 host: 1 succeeded") }
        XCTAssertTrue(screen.contains("^[]52;c;UFdORUQ=^G^[]2;PWNTITLE^G^[[8mHIDDEN^[[0m"), screen)
        XCTAssertTrue(screen.contains("^[[8mx^[[1A^[[2K^[[1A^[[2K^M"), screen)
        XCTAssertTrue(screen.contains("a: exit 0 ("), screen)
        // Nothing sshelf printed after the output is concealed: the summary's cells carry no SGR 8.
        let colours = try run.screen(escapes: true)
        XCTAssertFalse(colours.contains("\u{1B}[8m"), colours)
        XCTAssertEqual(try run.tmux(["list-buffers"]).output, "", "OSC 52 made a paste buffer")
        XCTAssertNotEqual(try paneTitle(run), "PWNTITLE")

        // The same bytes with --raw reach the terminal: the clipboard and the title change (the check above can fail).
        let raw = try Tmux(
            home: world.home, arguments: ["run", "a", "--raw", "--", attack], columns: 160,
            options: ["-g set-clipboard on"])
        XCTAssertEqual(try raw.waitForExit(), 0)
        try eventually(
            "OSC 52 through --raw sets tmux's buffer", context: { (try? raw.tmux(["list-buffers"]).output) ?? "" }
        ) {
            try raw.tmux(["show-buffer"]).output == "PWNED"
        }
        XCTAssertEqual(try paneTitle(raw), "PWNTITLE")
    }

    private func paneTitle(_ tmux: Tmux) throws -> String {
        try tmux.tmux(["display-message", "-p", "-t", tmux.session, "#{pane_title}"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Off a terminal the output is raw (for pipes and files), and --json writes C1 controls as \u escapes.
    func testOutputIsRawToAPipeAndJSONEscapesC1Controls() throws {
        let world = try FleetWorld(["a"])
        let piped = try world.home.run("run", "a", "--", #"printf 'x\033[1my\n'"#)
        XCTAssertExit(piped, 0)
        XCTAssertTrue(piped.stdout.contains("x\u{1B}[1my\n"), piped.stdout)

        let json = try world.home.run("run", "a", "--json", "--", #"printf 'csi\302\233x osc\302\235y\033z'"#)
        XCTAssertExit(json, 0)
        XCTAssertFalse(json.stdout.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }, json.stdout)
        XCTAssertFalse(json.stdout.contains("\u{1B}"), json.stdout)
        XCTAssertTrue(json.stdout.contains(#"csi\u009bx osc\u009dy\u001bz"#), json.stdout)
        let host = try XCTUnwrap(try FleetWorld.jsonLines(json.stdout)["a"])
        XCTAssertEqual(host["stdout"] as? String, "csi\u{9B}x osc\u{9D}y\u{1B}z", "the same text read back")
    }

    /// A host whose session stops answering mid-command (its sshd session process stopped with SIGSTOP) ends as
    /// `connection-lost` with exit status 255 — not 1, a command's failure — within the keepalive its options give;
    /// the same through a warm session, whose keeper loses the server.
    func testASessionLostMidCommandIs255WithItsCause() throws {
        try assertLostMidCommand(warm: false)
    }

    func testAWarmSessionLostMidCommandIs255WithItsCause() throws {
        try assertLostMidCommand(warm: true)
    }

    private func assertLostMidCommand(warm: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let world = try FleetWorld(["a"])
        try world.cli.addHost("slow", world.sshd, extra: "  ServerAliveInterval 1\n  ServerAliveCountMax 2")
        if warm {
            // A first login records what it learns on the host (its pinned key): the keeper starts from that record.
            XCTAssertExit(try world.home.run("exec", "slow", "-n", "--", "true"), 0)
            XCTAssertExit(
                try world.home.run("exec", "slow", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
            try eventually(
                "the warm session is listed", context: { (try? world.home.run("warm", "list").stdout) ?? "" }
            ) {
                try world.home.run("warm", "list", "--json").stdout.contains("\"host\" : \"slow\"")
            }
        }
        defer { if warm { _ = try? world.home.run("warm", "stop") } }
        let pidFile = world.shared + "/session-pid"
        // The command's parent is sshd's session process for it: stopped, nothing answers the keepalives.
        let command = "echo $PPID > \(pidFile); while [ -d \(world.shared) ]; do sleep 0.2; done"
        // The command timeout only bounds the test if the keepalive fails to (the host would be timed-out then).
        let lost = try BackgroundSshelf(
            world.home, ["run", "slow", "--json", "--command-timeout", "120", "--", command])
        var session: pid_t = 0
        try eventually("the command wrote its session's pid") {
            session =
                pid_t(
                    (try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(
                        in: .whitespacesAndNewlines) ?? "") ?? 0
            return session > 0
        }
        XCTAssertEqual(kill(session, SIGSTOP), 0, file: file, line: line)
        defer { kill(session, SIGKILL) }
        XCTAssertEqual(lost.process.wait(), 255, lost.stdout + lost.stderr, file: file, line: line)
        let host = try XCTUnwrap(try FleetWorld.jsonLines(lost.stdout)["slow"], lost.stdout, file: file, line: line)
        XCTAssertEqual(host["warm"] as? Bool, warm, lost.stdout, file: file, line: line)
        XCTAssertEqual(host["outcome"] as? String, "connection-lost", lost.stdout, file: file, line: line)
        XCTAssertNil(host["exitStatus"] as? Int, lost.stdout, file: file, line: line)
        let error = host["error"] as? String ?? ""
        XCTAssertTrue(error.contains("stopped answering") || warm, error, file: file, line: line)
        XCTAssertFalse(error.isEmpty, lost.stdout, file: file, line: line)
        if !warm {
            XCTAssertTrue(error.contains("ServerAliveInterval 1, ServerAliveCountMax 2"), error, file: file, line: line)
        }
        // Given up after the keepalives' silence (2 s × 3 with libssh2's 2 s floor), well before the command timeout.
        let seconds = try XCTUnwrap(host["seconds"] as? Double, lost.stdout, file: file, line: line)
        XCTAssertLessThan(seconds, 120, lost.stdout, file: file, line: line)
    }

    /// A warm session that goes away mid-command (`warm stop`) before the command printed anything: the host is
    /// reported as not finished (255), and the command is not run a second time on a login of its own — it was
    /// started on the host already.
    func testAWarmSessionGoneMidCommandIsNotRunAgain() throws {
        let world = try FleetWorld(["a"])
        XCTAssertExit(try world.home.run("exec", "a", "--persist", "--persist-for", "120", "-n", "--", "true"), 0)
        defer { _ = try? world.home.run("warm", "stop") }
        try eventually("the warm session is listed", context: { (try? world.home.run("warm", "list").stdout) ?? "" }) {
            try world.home.run("warm", "list", "--json").stdout.contains("\"host\" : \"a\"")
        }
        let dry = try world.home.run("run", "a", "--dry-run", "--", "true")
        XCTAssertTrue(dry.stdout.contains("a warm session runs for it"), dry.stdout)
        let go = world.shared + "/go"
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        let command =
            "touch \(world.shared)/ran-$$; while [ ! -e \(go) ] && [ -d \(world.shared) ]; do sleep 0.1; done"
        let run = try BackgroundSshelf(world.home, ["run", "a", "--json", "--command-timeout", "120", "--", command])
        let started = { (try? FileManager.default.contentsOfDirectory(atPath: world.shared))?.count ?? 0 }
        try eventually("the command started through the warm session") { started() == 1 }
        XCTAssertExit(try world.home.run("warm", "stop"), 0)
        XCTAssertEqual(run.process.wait(), 255, run.stdout + run.stderr)
        let host = try XCTUnwrap(try FleetWorld.jsonLines(run.stdout)["a"], run.stdout)
        XCTAssertEqual(host["warm"] as? Bool, true, run.stdout)
        XCTAssertEqual(host["outcome"] as? String, "connection-lost", run.stdout)
        XCTAssertTrue((host["error"] as? String ?? "").contains("warm stop"), run.stdout)
        XCTAssertEqual(started(), 1, "the command ran once: \(run.stdout)")
    }

    /// docs/FLEET.md's exit-status table is the code's: every outcome is named in the row of the code it gives.
    func testTheDocumentedExitStatusTableMatchesTheCode() throws {
        let doc = try String(contentsOfFile: Self.repository + "/docs/FLEET.md", encoding: .utf8)
        let section = try XCTUnwrap(doc.components(separatedBy: "### Exit status").dropFirst().first)
        var rows: [Int32: String] = [:]
        for line in section.split(separator: "\n").prefix(while: { !$0.hasPrefix("#") }) where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let code = Int32(cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))) else { continue }
            rows[code] = cells.dropFirst().joined(separator: "|")
        }
        XCTAssertEqual(Set(rows.keys), [0, 1, 2, 3, 255], section)
        let outcomes: [FleetHostResult.Outcome] = [
            .succeeded, .failed, .unreachable, .hostKeyRefused, .loginFailed, .connectionLost, .timedOut, .killed,
            .notStarted,
        ]
        for outcome in outcomes {
            let code = FleetReport.exitStatus(of: outcome)
            for (row, text) in rows {
                XCTAssertEqual(
                    text.contains("`\(outcome.rawValue)`"), row == code, "\(outcome.rawValue) in the row of \(row)")
            }
        }
        XCTAssertTrue(outcomes.filter(\.isConnectionFailure).allSatisfy { FleetReport.exitStatus(of: $0) == 255 })
    }

    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Sixty hosts failing alike (a closed loopback port) are one status line with their ranges, not sixty; the
    /// JSON lists them in natural order (bulk-6, bulk-59, bulk-60), whatever order they were added in.
    func testSixtyFailingHostsFoldToOneLineInNaturalOrder() throws {
        let home = TempHome()
        let port = try TestPorts.free("127.0.0.1")
        for index in [60, 6, 59] + (1...58).filter({ $0 != 6 }) {
            XCTAssertExit(
                try home.run(
                    "add", "bulk-\(index)", "--host", "127.0.0.1", "--port", String(port), "--user",
                    TestAccount.name, "--group", "bulk"), 0)
        }
        let dry = try home.run("run", "@bulk", "--dry-run", "--", "true")
        XCTAssertExit(dry, 0)
        let planned = dry.stdout.split(separator: "\n").filter { $0.hasPrefix("plan for ") }
            .map { String($0.dropFirst(9).prefix { $0 != " " }) }
        XCTAssertEqual(planned, (1...60).map { "bulk-\($0)" }, dry.stdout)

        let run = try home.run("run", "@bulk", "--yes", "--", "true")
        XCTAssertExit(run, 255)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, run.stdout)
        XCTAssertTrue(
            lines[0].hasPrefix("bulk-[1-60] (60): unreachable: the host refused the connection ([127.0.0.1]:\(port)"),
            run.stdout)
        XCTAssertEqual(lines[1], "    to fix: is sshd running there, and is the port right?", run.stdout)
        XCTAssertEqual(lines[2], "60 hosts: 60 unreachable", run.stdout)

        let json = try home.run("run", "@bulk", "--yes", "--json", "--", "true")
        XCTAssertExit(json, 255)
        let names = try json.stdout.split(separator: "\n").map { line in
            try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["name"] as? String)
        }
        XCTAssertEqual(names, (1...60).map { "bulk-\($0)" }, json.stdout)
    }

    /// A host refused for a changed key carries the fix `exec` gives, in the report and in the JSON.
    func testARefusalCarriesTheFixExecGives() throws {
        let world = try FleetWorld(["a"])
        let impostor = try world.cli.impostorForT()
        defer { withExtendedLifetime(impostor) {} }
        let text = try world.home.run("run", "a", "t", "--", "true")
        XCTAssertExit(text, 255)
        XCTAssertTrue(text.stdout.contains("t: host key refused: WARNING: the host key of t"), text.stdout)
        XCTAssertTrue(text.stdout.contains("\n    to fix: "), text.stdout)
        XCTAssertTrue(text.stdout.contains("sshelf trust t --replace --fingerprint SHA256:"), text.stdout)
        let exec = try world.home.run("exec", "t", "--", "true")
        let execFix = try XCTUnwrap(exec.stderr.split(separator: "\n").first { $0.hasPrefix("sshelf: hint: ") })
        XCTAssertTrue(text.stdout.contains("to fix: " + execFix.dropFirst("sshelf: hint: ".count)), text.stdout)
        let json = try world.home.run("run", "a", "t", "--json", "--", "true")
        let fix = try XCTUnwrap(try FleetWorld.jsonLines(json.stdout)["t"]?["fix"] as? String, json.stdout)
        XCTAssertEqual(fix, String(execFix.dropFirst("sshelf: hint: ".count)))
    }

    /// `@cafe`, `@dead`, `@beef` are groups in every command that reads targets — never id prefixes.
    func testHexLookingGroupNamesAreGroupsInEveryCommand() throws {
        let world = try FleetWorld(["a"], group: "cafe")
        for group in ["dead", "beef"] {
            XCTAssertExit(try world.home.run("add", "in-\(group)", "--host", "127.0.0.1", "--group", group), 0)
        }
        let run = try world.home.run("run", "@cafe", "--", "echo ran")
        XCTAssertExit(run, 0)
        XCTAssertTrue(run.stdout.contains("a (1)\n---------------\nran\n"), run.stdout)
        for group in ["dead", "beef"] {
            let dry = try world.home.run("run", "@\(group)", "--dry-run")
            XCTAssertExit(dry, 0)
            XCTAssertTrue(dry.stdout.contains("plan for in-\(group) "), dry.stdout)
        }

        let file = try world.home.write("copied\n", to: "note.txt")
        let copy = try world.home.run("cp", file, "@cafe:\(world.shared)/")
        XCTAssertExit(copy, 0)
        XCTAssertEqual(try String(contentsOfFile: world.shared + "/note.txt", encoding: .utf8), "copied\n")

        let list = try world.home.run("list", "@cafe", "--names")
        XCTAssertExit(list, 0)
        XCTAssertEqual(list.stdout, "a\n")
        XCTAssertEqual(try world.home.run("list", "@beef", "--names").stdout, "in-beef\n")

        let exec = try world.home.run("exec", "@cafe", "--", "true")
        XCTAssertExit(exec, 2)
        XCTAssertTrue(exec.stderr.contains("'@cafe' is a group of 1 host; this command takes one host"), exec.stderr)
        // A group that does not exist is no id prefix either; the hint says how a host is named by its id.
        let missing = try world.home.run("run", "@abcd", "--", "true")
        XCTAssertExit(missing, 3)
        XCTAssertTrue(missing.stderr.contains("no group 'abcd'"), missing.stderr)
        // By id: id:PREFIX, as --id gives it.
        let id = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(try world.home.run("show", "a", "--json").stdout.utf8))
                as? [String: Any])?["id"] as? String)
        let byID = try world.home.run("run", "id:\(id.prefix(8))", "--", "echo by-id")
        XCTAssertExit(byID, 0)
        XCTAssertTrue(byID.stdout.contains("by-id"), byID.stdout)
        XCTAssertExit(try world.home.run("exec", "--id", String(id.prefix(8)), "--", "true"), 0)
    }

    /// The protected tag guards in any case: a host tagged `Protected` asks for the confirmation too.
    func testAHostTaggedProtectedInAnyCaseAsksForTheConfirmation() throws {
        let world = try FleetWorld(["a"])
        XCTAssertExit(try world.home.run("edit", "a", "--tag", "Protected"), 0)
        let refused = try world.home.run("run", "a", "--", "touch \(world.shared)/ran")
        XCTAssertExit(refused, 2)
        XCTAssertTrue(refused.stderr.contains("a host is tagged protected (a)"), refused.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: world.shared), [], "nothing ran")
    }

    /// `run --dry-run` says what a run does where `connect` would ask: a run asks nothing.
    func testADryRunSaysWhatARunDoesInsteadOfAsking() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "pw", "--host", "127.0.0.1", "--auth", "password"), 0)
        let dry = try home.run("run", "pw", "--dry-run", "--", "true")
        XCTAssertExit(dry, 0)
        XCTAssertFalse(dry.stdout.contains("asked on the terminal"), dry.stdout)
        XCTAssertFalse(dry.stdout.contains("you will be asked"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("a run never asks"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("the run skips this host (host-key-refused) unless --accept-new"), dry.stdout)
    }
}

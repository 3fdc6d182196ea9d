// RecordingTests: recorded sessions end to end — `sshelf connect` to a real sshd in a real tmux pane with the host's
// record setting on, then the recording's replay (the same screen), its asciinema v2 export (parsed), a secret
// typed with echo off found nowhere (every file of the data dir, the recording decrypted), the files' modes, and
// `log verify` finding a flipped byte or a removed recording by name; a password pasted with its Enter in one read
// is not kept as typed input even when the program prints it back; a session killed with SIGKILL replays up to its
// last flush. The whole round runs in both formats: AES-256-GCM where the CPU has the instructions, and the
// secretstream a CPU without them writes.
import Foundation
import TestSupport
import XCTest

final class RecordingTests: XCTestCase {
    private func pane(_ world: SSHCLIWorld, _ script: String) throws -> Tmux {
        try Tmux(
            home: world.home, command: [TestTool.sh.path, "-c", script], environment: world.home.environment,
            columns: 80, rows: 24)
    }

    private func waitForPrompt(_ tmux: Tmux, _ world: SSHCLIWorld) throws {
        try tmux.waitFor("the remote shell's prompt", context: { "sshd log:\n" + tail(world.sshd.log) }) {
            tmux.lastLine($0) == "$"
        }
    }

    /// Types a command line, waits until its echo is on the screen, then presses Enter. Typed input is kept only
    /// when its echo comes before the next key (TypedEcho): an Enter sent at once may reach sshelf before the echo
    /// of the line does on a loaded machine, and the line is then rightly left out.
    private func enterEchoed(_ live: Tmux, _ line: String) throws {
        try live.type(line)
        try live.waitFor("the line's echo") { live.lastLine($0).hasSuffix(line) }
        try live.send("Enter")
    }

    private func recordings(_ world: SSHCLIWorld) -> String { world.home.sshelfHome + "/data/recordings" }

    private func recordingFiles(_ world: SSHCLIWorld) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: recordings(world)).filter { $0.hasSuffix(".rec") }
            .map { recordings(world) + "/" + $0 }
    }

    private func listJSON(_ world: SSHCLIWorld) throws -> [[String: Any]] {
        let result = try world.home.run("sessions", "list", "--json")
        XCTAssertExit(result, 0)
        return try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], result.stdout)
    }

    private func mode(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
    }

    /// The rows of a screen down to (not including) its last non-empty row (the prompt), trailing spaces cut.
    private func rowsAbovePrompt(_ screen: String) -> [String] {
        var rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        while rows.last?.isEmpty == true { rows.removeLast() }
        return Array(rows.dropLast())
    }

    /// Whether this CPU has AES-NI and PCLMULQDQ (what libsodium's check reads), so the recorder writes format 2.
    private var cpuHasAESGCM: Bool {
        let flags = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("flags") }.map { $0.split(separator: " ").map(String.init) }
        return flags.map { $0.contains("aes") && $0.contains("pclmulqdq") } ?? false
    }

    /// Format 2 (AES-256-GCM) on a CPU with the instructions — this one's, where the suite runs.
    func testARecordedSessionReplaysExportsAndKeepsNoSecretTypedWithoutEcho() throws {
        try recordedSessionEndToEnd(withoutAES: false)
    }

    /// Format 1 (secretstream), what a CPU without AES-NI writes (told so by SSHELF_TEST_NO_AES_GCM): everything that
    /// reads a recording still reads it — list, play, export, search, log verify, rm.
    func testARecordingInFormatOneIsWrittenWithoutAESAndReadEverywhere() throws {
        try recordedSessionEndToEnd(withoutAES: true)
    }

    private func recordedSessionEndToEnd(withoutAES: Bool) throws {
        let world = try SSHCLIWorld()
        if withoutAES { world.home.extraEnvironment["SSHELF_TEST_NO_AES_GCM"] = "1" }
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--record", "on"), 0)
        XCTAssertTrue(try world.home.run("show", "t").stdout.contains("record         on\n"))
        let canary = "canary-\(UUID().uuidString.prefix(8))-pw"
        let live = try pane(world, "\(Tmux.quote(CLI.binary)) connect t --record-input; echo EXIT=$?")
        try live.waitFor(text: "recording this session as")
        try waitForPrompt(live, world)
        try enterEchoed(live, "clear; echo marker-$((6*7))")
        try live.waitFor(text: "marker-42")
        // As sudo asks: the terminal's echo off, a line read, echo back on.
        try live.enter("stty -echo; printf 'Password: '; read secret; stty echo; echo; echo got-${#secret}")
        // The prompt printf shows (after stty -echo ran), not the same word in the echoed command line: typed any
        // earlier, the secret would be echoed.
        try live.waitFor("the password prompt") { live.lastLine($0).hasPrefix("Password:") }
        try live.enter(canary)
        try live.waitFor(text: "got-\(canary.count)")
        try waitForPrompt(live, world)
        let screen = try live.screen()
        try live.enter("exit")
        try live.waitFor(text: "EXIT=0")

        let listed = try listJSON(world)
        XCTAssertEqual(listed.count, 1, "\(listed)")
        let entry = try XCTUnwrap(listed.first)
        XCTAssertEqual(entry["state"] as? String, "finished")
        let id = try XCTUnwrap((entry["info"] as? [String: Any])?["id"] as? String).lowercased()
        let short = String(id.prefix(8))

        // Private at rest: the folder 0700, the file 0600.
        XCTAssertEqual(try mode(recordings(world)), 0o700)
        let files = try recordingFiles(world)
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(try mode(files[0]), 0o600)
        // The format the CPU calls for: its magic's last digit.
        let magic = String(decoding: try Data(contentsOf: URL(fileURLWithPath: files[0])).prefix(8), as: UTF8.self)
        XCTAssertEqual(magic, !withoutAES && cpuHasAESGCM ? "SSHELFR2" : "SSHELFR1")

        // The replay shows the screen the session showed (down to its prompt: the replay goes on to type "exit").
        let replay = try Tmux(
            home: world.home, command: [CLI.binary, "play", short, "--max-wait", "0.2"],
            environment: world.home.environment, columns: 80, rows: 24)
        XCTAssertEqual(try replay.waitForExit(), 0)
        // tmux scrolls a dead pane up a line for its "Pane is dead" notice: the screen is read with its history.
        let replayed = try replay.tmux(["capture-pane", "-p", "-t", replay.session, "-S", "-3"]).output
        let liveRows = rowsAbovePrompt(screen)
        let replayRows = rowsAbovePrompt(replayed).filter { !$0.isEmpty && !$0.hasPrefix("Pane is dead") }
        XCTAssertTrue(
            replayRows.indices.contains { replayRows[$0...].starts(with: liveRows) },
            "replayed:\n\(replayed)\nlive:\n\(screen)")

        // asciinema v2: a header object, then [time, code, text] arrays; the output is there, typed keys only echoed.
        let cast = world.home.root + "/session.cast"
        XCTAssertExit(try world.home.run("sessions", "export", short, "--cast", cast), 0)
        XCTAssertEqual(try mode(cast), 0o600)
        let lines = try String(contentsOfFile: cast, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], lines[0])
        XCTAssertEqual(header["version"] as? Int, 2)
        XCTAssertEqual(header["width"] as? Int, 80)
        XCTAssertEqual(header["height"] as? Int, 24)
        var output = "", input = "", last = 0.0
        for line in lines.dropFirst() {
            let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], line)
            XCTAssertEqual(event.count, 3, line)
            let time = try XCTUnwrap(event[0] as? Double, line)
            XCTAssertGreaterThanOrEqual(time, last, "times never go back")
            last = time
            let text = try XCTUnwrap(event[2] as? String, line)
            switch event[1] as? String {
            case "o": output += text
            case "i": input += text
            case "r": XCTAssertNotNil(text.range(of: #"^\d+x\d+$"#, options: .regularExpression), line)
            default: XCTFail("unknown event code: \(line)")
            }
        }
        XCTAssertTrue(output.contains("marker-42"), output)
        XCTAssertTrue(input.contains("echo marker-$((6*7))"), "echoed keys are kept with --record-input: \(input)")

        // The secret typed with echo off: not in the recording (decrypted), not in any file of the data dir.
        XCTAssertFalse(output.contains(canary) || input.contains(canary), "the secret is in the recording")
        XCTAssertExit(try world.home.run("sessions", "search", canary), 1)
        XCTAssertExit(try world.home.run("sessions", "search", "MARKER-42"), 0)
        try FileManager.default.removeItem(atPath: cast)
        let canaryBytes = Data(canary.utf8)
        let walker = FileManager.default.enumerator(atPath: world.home.sshelfHome)
        while let relative = walker?.nextObject() as? String {
            let path = world.home.sshelfHome + "/" + relative
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            XCTAssertNil(data.range(of: canaryBytes), "the secret is in \(relative)")
        }

        // The recording's digest is chained into the release log: a flipped byte and a removal are found, by name.
        XCTAssertExit(try world.home.run("log", "verify"), 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: files[0]))
        var flipped = original
        flipped[flipped.count / 2] ^= 0x01
        try flipped.write(to: URL(fileURLWithPath: files[0]))
        var verify = try world.home.run("log", "verify")
        XCTAssertExit(verify, 4)
        XCTAssertTrue(verify.stderr.contains("recording \(id) was altered"), verify.stderr)
        try FileManager.default.removeItem(atPath: files[0])
        verify = try world.home.run("log", "verify")
        XCTAssertExit(verify, 4)
        XCTAssertTrue(verify.stderr.contains("recording \(id) was removed outside sshelf"), verify.stderr)
        // Put back and removed through sshelf: the removal is in the log, and the log verifies.
        try original.write(to: URL(fileURLWithPath: files[0]))
        XCTAssertExit(try world.home.run("log", "verify"), 0)
        XCTAssertExit(try world.home.run("sessions", "rm", short), 0)
        XCTAssertExit(try world.home.run("log", "verify"), 0)
        XCTAssertEqual(try recordingFiles(world), [])
    }

    /// The typed input and the output of a recording, from its asciinema export.
    private func exported(_ world: SSHCLIWorld, _ short: String) throws -> (input: String, output: String) {
        let cast = world.home.root + "/exported-\(short).cast"
        XCTAssertExit(try world.home.run("sessions", "export", short, "--cast", cast), 0)
        defer { try? FileManager.default.removeItem(atPath: cast) }
        var input = "", output = ""
        for line in try String(contentsOfFile: cast, encoding: .utf8).split(separator: "\n").dropFirst() {
            let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], String(line))
            let text = try XCTUnwrap(event[2] as? String, String(line))
            if event[1] as? String == "i" { input += text }
            if event[1] as? String == "o" { output += text }
        }
        return (input, output)
    }

    func testAPastedPasswordIsNotKeptAsTypedInputEvenWhenPrintedBack() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--record", "on"), 0)
        let live = try pane(world, "\(Tmux.quote(CLI.binary)) connect t --record-input; echo EXIT=$?")
        try live.waitFor(text: "recording this session as")
        try waitForPrompt(live, world)
        try enterEchoed(live, "echo typed-$((6*7))")
        try live.waitFor(text: "typed-42")
        // As sudo asks (echo off, a line read), then the line printed back: the output after the paste starts with
        // exactly the bytes pasted, as an echo would.
        let pasted = "canary-\(UUID().uuidString.prefix(8))-pw"
        try live.enter("stty -echo; printf 'Password: '; read secret; stty echo; printf '%s\\n' \"$secret\"")
        try live.waitFor("the password prompt") { live.lastLine($0).hasPrefix("Password:") }
        try live.paste(pasted + "\n")
        try waitForPrompt(live, world)
        // A paste that starts while echo is on and runs on past the line that turns it off: the shell's terminal
        // echoes the whole paste as it arrives (typed ahead), and the second line is what `read` takes.
        let ahead = "canary-\(UUID().uuidString.prefix(8))-ahead"
        try live.paste("stty -echo; read s2; stty echo; printf '%s\\n' \"$s2\"; echo two-$((6*7))\n\(ahead)\n")
        try live.waitFor(text: "two-42")
        try waitForPrompt(live, world)
        try live.enter("exit")
        try live.waitFor(text: "EXIT=0")

        let id = try XCTUnwrap((try listJSON(world).first?["info"] as? [String: Any])?["id"] as? String)
        let (input, output) = try exported(world, String(id.prefix(8)).lowercased())
        XCTAssertTrue(input.contains("echo typed-$((6*7))"), "typed keys echoed are kept: \(input.debugDescription)")
        XCTAssertFalse(input.contains(pasted), "the pasted password is kept as typed input: \(input)")
        XCTAssertFalse(input.contains(ahead), "the paste past a line end is kept as typed input: \(input)")
        // The output is what the screen showed: the program printed the password back.
        XCTAssertTrue(output.contains(pasted + "\r\n"), output)
    }

    func testASessionKilledWithSIGKILLReplaysUpToItsLastFlush() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--record", "on"), 0)
        let live = try pane(world, "\(Tmux.quote(CLI.binary)) connect t; echo EXIT=$?")
        try waitForPrompt(live, world)
        try live.enter("echo before-$((6*7))")
        try live.waitFor(text: "before-42")
        // Written while the session is still open: the flush does not wait for the end.
        try eventually("the marker to be in the recording being written") {
            try world.home.run("sessions", "search", "before-42").status == 0
        }
        XCTAssertEqual(try listJSON(world).first?["state"] as? String, "recording")
        let programs = ProcessTree.descendants(of: try live.panePID()).filter { ProcessTree.name(of: $0) == "sshelf" }
        XCTAssertEqual(programs.count, 1, "\(programs)")
        kill(try XCTUnwrap(programs.first), SIGKILL)
        try live.waitFor(text: "EXIT=137")
        // Interrupted, listed (which seals its digest into the log), exported up to the marker, and the log verifies.
        XCTAssertEqual(try listJSON(world).first?["state"] as? String, "interrupted")
        let short = String(
            try XCTUnwrap(((try listJSON(world).first?["info"]) as? [String: Any])?["id"] as? String).prefix(8)
        ).lowercased()
        let cast = world.home.root + "/killed.cast"
        XCTAssertExit(try world.home.run("sessions", "export", short, "--cast", cast), 0)
        XCTAssertTrue(try String(contentsOfFile: cast, encoding: .utf8).contains("before-42"))
        let verify = try world.home.run("log", "verify")
        XCTAssertExit(verify, 0)
    }

    func testASessionHandedToOpenSSHIsRecordedThroughAHeldTerminal() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let live = try pane(world, "\(Tmux.quote(CLI.binary)) connect t --openssh --record; echo EXIT=$?")
        try live.waitFor(text: "recording this session as")
        try waitForPrompt(live, world)
        try live.enter("echo via-ssh-$((6*7))")
        try live.waitFor(text: "via-ssh-42")
        try live.resize(columns: 100, rows: 30)
        try live.enter("clear; stty size")
        try live.waitFor(text: "30 100")
        try live.enter("exit 3")
        try live.waitFor(text: "EXIT=3")
        let listed = try listJSON(world)
        XCTAssertEqual(listed.count, 1, "\(listed)")
        XCTAssertEqual(listed.first?["state"] as? String, "finished")
        let info = try XCTUnwrap(listed.first?["info"] as? [String: Any])
        XCTAssertEqual(info["by"] as? String, "openssh")
        let short = String(try XCTUnwrap(info["id"] as? String).prefix(8)).lowercased()
        let cast = world.home.root + "/openssh.cast"
        XCTAssertExit(try world.home.run("sessions", "export", short, "--cast", cast), 0)
        let text = try String(contentsOfFile: cast, encoding: .utf8)
        XCTAssertTrue(text.contains("via-ssh-42"), text)
        XCTAssertTrue(text.contains("\"r\", \"100x30\""), "the window change is recorded: \(text)")
        XCTAssertExit(try world.home.run("log", "verify"), 0)
    }
}

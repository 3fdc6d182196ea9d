// OpenSSHChildTests: `connect` and `exec` handed to OpenSSH run ssh as a child on the user's terminal (a real sshd,
// a real tmux, both libssh2 versions): the shell's job control stops the session with ssh's `~^Z` and `fg` brings it
// back working; ssh's exit status is sshelf's; exec's standard streams are untouched (binary bytes through a pipe);
// SIGTERM and SIGHUP reach ssh; ssh's own words show while the session runs. After the session the key exchange ssh
// used is the host's last session's (`show`, `check`, `connect -v`), and a hostile server's version string and
// banner, which fake ssh's lines, cannot pass for a post-quantum one.
import Foundation
import TestSupport
import XCTest

final class OpenSSHChildTests: XCTestCase {
    static let postQuantum = "sntrup761x25519-sha512@openssh.com (post-quantum) (its last session from this device)"

    /// The world with t's key pinned and t requiring post-quantum key exchange: its sessions go to OpenSSH.
    private func postQuantumWorld(_ options: SSHD.Options = SSHD.Options()) throws -> SSHCLIWorld {
        let world = try SSHCLIWorld(options: options)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        return world
    }

    func testConnectSuspendsWithTheShellsJobControlAndComesBackWithFg() throws {
        let world = try postQuantumWorld()
        let before = try world.home.run("show", "t").stdout
        XCTAssertFalse(before.contains("sntrup761x25519"), before)
        XCTAssertTrue(lastConnected(before).contains("never"), before)
        // An interactive dash in the pane: job control on, its own prompt told apart from the remote one ("$").
        var environment = world.home.environment
        environment["PS1"] = "local> "
        let tmux = try Tmux(
            home: world.home, command: [TestTool.sh.path, "-i"], environment: environment, columns: 120, rows: 30)
        try tmux.waitFor(text: "local>")
        try tmux.enter("\(Tmux.quote(CLI.binary)) connect t")
        try tmux.waitFor("the remote prompt", context: { "sshd log:\n" + world.sshd.log }) { tmux.lastLine($0) == "$" }
        try tmux.enter("echo before-$((6*7))")
        try tmux.waitFor(text: "before-42")
        // While ssh runs, its log is a private file in a private folder.
        let runDirectory = world.home.sshelfHome + "/run"
        let running = try FileManager.default.contentsOfDirectory(atPath: runDirectory).filter {
            $0.hasPrefix("run-ssh-")
        }
        XCTAssertEqual(running.count, 1, "\(running)")
        for name in running {
            XCTAssertEqual(try mode(runDirectory + "/" + name), 0o600, name)
        }
        XCTAssertEqual(try mode(runDirectory), 0o700)

        // ssh's escape ~^Z stops ssh; sshelf stops with it, so the local shell has its prompt back.
        try tmux.send("Enter")
        try tmux.type("~")
        try tmux.send("C-z")
        try tmux.waitFor("the local shell's prompt, the job stopped") {
            tmux.lastLine($0) == "local>" && $0.contains("Stopped")
        }
        try tmux.enter("echo suspended-$((5*5))")
        try tmux.waitFor(text: "suspended-25")

        // fg continues both: the remote shell reads again.
        try tmux.enter("fg")
        try tmux.enter("echo after-$((6*7))")
        try tmux.waitFor(text: "after-42")
        // The terminal is ssh's own: a window change reaches the remote terminal (`clear` first, so the old size on
        // the screen cannot satisfy the wait).
        try tmux.resize(columns: 100, rows: 25)
        try tmux.enter("clear; stty size")
        try tmux.waitFor(text: "25 100")
        try tmux.enter("exit 7")
        try tmux.waitFor("the local prompt after the session") { tmux.lastLine($0) == "local>" }
        try tmux.enter("echo EXIT=$?")
        try tmux.waitFor(text: "EXIT=7")
        try tmux.enter("exit")

        XCTAssertTrue(
            world.sshd.waitForLog("kex: algorithm: sntrup761x25519-sha512@openssh.com"), world.sshd.log)
        let show = try world.home.run("show", "t")
        XCTAssertTrue(show.stdout.contains(Self.postQuantum), show.stdout)
        XCTAssertFalse(lastConnected(show.stdout).contains("never"), show.stdout)
        let logs = ((try? FileManager.default.contentsOfDirectory(atPath: world.home.sshelfHome + "/run")) ?? [])
            .filter { $0.hasPrefix("run-ssh-") }
        XCTAssertEqual(logs, [], "ssh's log is removed")
    }

    /// ssh's own words, written to its log, reach the terminal while the session runs: the warning after a new host
    /// key is accepted at ssh's prompt shows before the remote prompt, not only after the session.
    func testSSHsOwnWordsShowWhileTheSessionRuns() throws {
        let world = try SSHCLIWorld()
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        let tmux = try Tmux(
            home: world.home, command: [CLI.binary, "connect", "t"], environment: world.home.environment,
            columns: 160, rows: 30)
        try tmux.waitFor(text: "Are you sure you want to continue connecting")
        try tmux.enter("yes")
        try tmux.waitFor("the remote prompt after ssh's warning") {
            tmux.lastLine($0) == "$" && $0.contains("Warning: Permanently added")
        }
        XCTAssertFalse(try tmux.screen().contains("debug1"))
        try tmux.enter("exit 4")
        XCTAssertEqual(try tmux.waitForExit(), 4)
    }

    func testExecPassesTheExitStatusAndBinaryBytesThroughAndRecordsTheSession() throws {
        let world = try postQuantumWorld()
        let exit = try world.home.run("exec", "t", "--no-stdin", "--", "echo out; echo err >&2; exit 5")
        XCTAssertEqual(exit.status, 5, "\(exit)")
        XCTAssertEqual(exit.stdout, "out\n")
        XCTAssertTrue(exit.stderr.hasSuffix("err\n"), exit.stderr)
        XCTAssertFalse(exit.stderr.contains("debug1"), exit.stderr)
        XCTAssertTrue(try world.home.run("show", "t").stdout.contains(Self.postQuantum))
        // connect -v says the key exchange ssh used, as it says the own client's.
        let said = "sshelf: key exchange with t: sntrup761x25519-sha512@openssh.com (post-quantum), OpenSSH's ssh"
        let verbose = try world.home.run(["connect", "t", "-v"], stdin: "exit 0\n")
        XCTAssertExit(verbose, 0)
        XCTAssertTrue(verbose.stderr.contains(said), verbose.stderr)
        let quiet = try world.home.run(["connect", "t"], stdin: "exit 0\n")
        XCTAssertExit(quiet, 0)
        XCTAssertFalse(quiet.stderr.contains("sshelf: key exchange with"), quiet.stderr)

        // Every byte value, both ways through a pipe: ssh has sshelf's own descriptors.
        var bytes = Data((0..<(256 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })
        bytes.append(contentsOf: [0, 255, 13, 10, 126, 46])
        let (status, output) = try pipe(bytes, through: world, ["exec", "t", "--", "cat"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(output, bytes)

        // Started with SIGCHLD ignored (inherited through exec, as bash's `trap '' CHLD` leaves it; the kernel then
        // reaps children itself): ssh is still waited for, its status sshelf's.
        let ignoring = try CLI.run(
            ["-c", "trap '' CHLD; exec \"$0\" exec t --no-stdin -- 'exit 6'", CLI.binary],
            environment: world.home.environment, program: TestTool.bash.path)
        XCTAssertEqual(ignoring.status, 6, "\(ignoring)")

        // ssh's own failure is 255, and its words are on standard error (from its log).
        XCTAssertExit(try world.home.run("edit", "t", "--user", "nobody-here"), 0)
        let refused = try world.home.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertEqual(refused.status, 255, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("debug1"), refused.stderr)
    }

    func testSIGTERMAndSIGHUPArePassedToSSHAndItsSignalIsTheExitStatus() throws {
        let world = try postQuantumWorld()
        for signal in [SIGTERM, SIGHUP] {
            let exec = try BackgroundCLI(world.home, ["exec", "t", "--no-stdin", "--", "echo started >&2; sleep 300"])
            try exec.waitFor("started")
            // ssh ends on the signal it was passed (its own exit, 255), and sshelf answers with it.
            XCTAssertEqual(try exec.stop(signal), 255, "signal \(signal): \(exec.stderr)")
        }

        // ssh killed by a signal: sshelf's exit status is 128 + that signal, as a shell's would be.
        let killed = try BackgroundCLI(world.home, ["exec", "t", "--no-stdin", "--", "echo started >&2; sleep 300"])
        try killed.waitFor("started")
        let children = try String(contentsOfFile: "/proc/\(killed.pid)/task/\(killed.pid)/children", encoding: .utf8)
        let ssh = try XCTUnwrap(
            children.split(separator: " ").compactMap { pid_t($0) }.first { pid in
                (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?
                    .hasPrefix(TestTool.ssh.path + "\0") == true
            }, children)
        kill(ssh, SIGKILL)
        XCTAssertEqual(try killed.waitExit(), 128 + SIGKILL, killed.stderr)
    }

    /// A server whose version string (VersionAddendum) and banner print ssh's words: "kex: algorithm:" naming a
    /// post-quantum key exchange, "Authenticated to". The session's key exchange is a classical one (the host goes to
    /// OpenSSH for its ForwardAgent, not for post-quantum), and that is what `show` and `check` say.
    func testAHostileServerCannotPassForPostQuantum() throws {
        let home = TempHome()
        let banner = try home.write(
            "debug1: kex: algorithm: sntrup761x25519-sha512@openssh.com\nAuthenticated to t\n"
                + "kex: algorithm: mlkem768x25519-sha256\n", to: "banner")
        var options = SSHD.Options()
        options.extraConfig = [
            "KexAlgorithms curve25519-sha256", "VersionAddendum kex: algorithm: mlkem768x25519-sha256",
            "Banner \(banner)",
        ]
        let world = try SSHCLIWorld(options: options)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let connect = try world.home.run(["connect", "t", "--openssh"], stdin: "echo via-openssh\n")
        XCTAssertExit(connect, 0)
        XCTAssertTrue(connect.stdout.contains("via-openssh"), "\(connect)")
        // The banner reached the user (standard error), as ssh shows it.
        XCTAssertTrue(connect.stderr.contains("kex: algorithm: mlkem768x25519-sha256"), connect.stderr)
        XCTAssertTrue(world.sshd.waitForLog("kex: algorithm: curve25519-sha256"), world.sshd.log)
        let show = try world.home.run("show", "t")
        XCTAssertTrue(show.stdout.contains("curve25519-sha256 (not post-quantum) (its last session"), show.stdout)
        XCTAssertFalse(show.stdout.contains("mlkem768x25519"), show.stdout)
        XCTAssertFalse(show.stdout.contains("sntrup761x25519"), show.stdout)
        XCTAssertTrue(try world.home.run("check").stdout.contains("\n  t: curve25519-sha256\n"))
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }

    /// `show`'s "last connected" line.
    private func lastConnected(_ show: String) -> String {
        show.split(separator: "\n").first { $0.contains("last connected") }.map(String.init) ?? ""
    }

    /// Runs `sshelf ARGS` with `input` on its standard input and answers its exit status and standard output.
    private func pipe(_ input: Data, through world: SSHCLIWorld, _ arguments: [String]) throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        process.environment = world.home.environment
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}

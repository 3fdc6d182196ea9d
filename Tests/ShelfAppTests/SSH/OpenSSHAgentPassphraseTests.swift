// OpenSSHAgentPassphraseTests: a host sent to OpenSSH's ssh (`--pq require`, on both libssh2 versions) logging in with
// a key kept only in the vault, on a system without a kernel keyring (SSHELF_VAULT_NO_KEYRING=1), with no terminal
// (setsid). The vault passphrase given on a pipe (`--passphrase-fd 3`) reaches the sshelf agent ssh signs through —
// exec, connect, run, cp and forward up log in — and neither ssh nor the agent holds that descriptor (/proc/PID/fd); a
// wrong passphrase and a passphrase given nowhere are refused before ssh starts, in sshelf's words, never ssh's
// "Permission denied". SSH_MATRIX_TESTS.
import Foundation
import TestSupport
import XCTest

final class OpenSSHAgentPassphraseTests: XCTestCase {
    static let passphrase = "vault pass phrase"

    /// Host t requiring post-quantum key exchange, logging in with the world's key moved into the vault (no file
    /// left), the vault given a passphrase; no kernel keyring, so every sshelf process starts with it locked.
    private func lockedVaultKeyWorld() throws -> SSHCLIWorld {
        let world = try SSHCLIWorld()
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        // t's identity (named after its key file) keeps the key in the vault from here on.
        XCTAssertExit(try world.home.run("identity", "import", "key", world.key.privatePath, "--remove-file"), 0)
        XCTAssertTrue(try world.home.run("vault", "list").stdout.contains("identity.privkey"))
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        return world
    }

    /// `sshelf ARGS` with no controlling terminal; with `passphrase`, that line is readable on descriptor 3 from a
    /// named pipe (`fifo`), written by cat from a file in the home.
    private func spawn(
        _ world: SSHCLIWorld, _ arguments: [String], passphrase: String?, fifo: String, output: String,
        errors: String, input: String? = nil
    ) throws -> SpawnedProcess {
        var script = "exec \"$0\" \"$@\""
        if let passphrase {
            let file = try world.home.write(passphrase + "\n", to: "passphrase-\(UUID().uuidString.prefix(6))")
            XCTAssertEqual(mkfifo(fifo, 0o600), 0)
            script = "cat '\(file)' > '\(fifo)' & exec \"$0\" \"$@\" 3<'\(fifo)'"
        }
        return try SpawnedProcess(
            TestTool.setsid.path, [TestTool.sh.path, "-c", script, CLI.binary] + arguments,
            environment: world.home.environment, input: input, output: output, errors: errors)
    }

    private func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// What each descriptor of `pid` is (readlink of /proc/PID/fd/N).
    private func descriptors(of pid: pid_t) -> [String] {
        let folder = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
        }
    }

    func testAPassphraseOnAPipeReachesTheAgentSSHSignsThrough() throws {
        let world = try lockedVaultKeyWorld()
        let fifo = world.home.root + "/passphrase.fifo"
        let output = world.home.root + "/exec.out", errors = world.home.root + "/exec.err"
        let exec = try spawn(
            world, ["exec", "t", "--no-stdin", "--passphrase-fd", "3", "--", "echo logged-in; sleep 60"],
            passphrase: Self.passphrase, fifo: fifo, output: output, errors: errors)
        try eventually(
            "exec to log in through OpenSSH with the agent", context: { self.read(errors) + self.read(output) }
        ) { self.read(output).contains("logged-in") }
        XCTAssertTrue(read(errors).contains("handing the session to OpenSSH's ssh"), read(errors))
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        XCTAssertTrue(world.sshd.log.contains("sntrup761x25519"), world.sshd.log)

        // Neither ssh nor the agent it signs through holds the descriptor the passphrase came on.
        let ssh = try XCTUnwrap(
            ([exec.pid] + ProcessTree.descendants(of: exec.pid)).first { ProcessTree.name(of: $0) == "ssh" },
            ProcessTree.describe(exec.pid))
        XCTAssertFalse(descriptors(of: ssh).contains(fifo), "ssh holds the passphrase pipe: \(descriptors(of: ssh))")
        let status = try world.home.run("agent", "status", "--json")
        let agentPid = try XCTUnwrap(
            status.stdout.firstMatch(of: /"pid"\s*:\s*([0-9]+)/).flatMap { pid_t($0.1) }, status.stdout)
        let agentHolds = descriptors(of: agentPid)
        XCTAssertFalse(agentHolds.contains(fifo), "the agent holds the passphrase pipe: \(agentHolds)")
        exec.stop()

        // connect the same way, with a fresh (locked) agent.
        XCTAssertExit(try world.home.run("agent", "stop"), 0)
        unlink(fifo)
        let shell = try world.home.write("echo via-shell; exit 3\n", to: "shell-script")
        let connectErrors = world.home.root + "/connect.err", connectOutput = world.home.root + "/connect.out"
        let connect = try spawn(
            world, ["connect", "t", "--passphrase-fd", "3"], passphrase: Self.passphrase, fifo: fifo,
            output: connectOutput, errors: connectErrors, input: shell)
        XCTAssertEqual(connect.wait(), 3, "the shell's exit status: " + read(connectErrors))
        XCTAssertTrue(read(connectOutput).contains("via-shell"), read(connectOutput))
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertFalse(read(connectErrors).contains("Permission denied"), read(connectErrors))
    }

    /// `run` and `cp` hand the same passphrase to the agent (their ssh runs in batch mode: its guard asks nobody).
    func testRunAndCopyHandThePassphraseToTheAgent() throws {
        let world = try lockedVaultKeyWorld()
        let fifo = world.home.root + "/passphrase.fifo"
        let output = world.home.root + "/run.out", errors = world.home.root + "/run.err"
        let run = try spawn(
            world, ["run", "t", "--passphrase-fd", "3", "--", "echo via-run"], passphrase: Self.passphrase,
            fifo: fifo, output: output, errors: errors)
        XCTAssertEqual(run.wait(), 0, read(output) + read(errors))
        XCTAssertTrue(read(output).contains("via-run\n"), read(output))
        XCTAssertTrue(read(output).contains("through OpenSSH"), read(output))
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)

        XCTAssertExit(try world.home.run("agent", "stop"), 0)
        unlink(fifo)
        let source = try world.home.write("copied with the agent\n", to: "agent-source")
        let shared = "/tmp/sshelf-agentfd-\(UUID().uuidString.prefix(8))"
        defer { unlink(shared) }
        let copy = try spawn(
            world, ["cp", source, "t:\(shared)", "--passphrase-fd", "3"], passphrase: Self.passphrase, fifo: fifo,
            output: output, errors: errors)
        XCTAssertEqual(copy.wait(), 0, read(output) + read(errors))
        XCTAssertEqual(try String(contentsOfFile: shared, encoding: .utf8), "copied with the agent\n")
        XCTAssertTrue(read(output).contains("copied through OpenSSH's scp"), read(output))

        // Without it the run does not start (its release-log line needs the vault too), saying how to give it.
        XCTAssertExit(try world.home.run("agent", "stop"), 0)
        let accepted = world.sshd.logCount("Accepted publickey")
        let bare = try spawn(
            world, ["run", "t", "--", "echo via-run"], passphrase: nil, fifo: fifo, output: output, errors: errors)
        XCTAssertNotEqual(bare.wait(), 0)
        XCTAssertTrue(read(errors).contains("--passphrase-fd N"), read(output) + read(errors))
        XCTAssertFalse(read(output).contains("via-run"), read(output))
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), accepted, world.sshd.log)
    }

    /// `forward up --passphrase-fd 3` keeps the passphrase for the agent its post-quantum host's `ssh -N` signs
    /// through.
    func testForwardUpHandsItsPassphraseToTheAgent() throws {
        let world = try lockedVaultKeyWorld()
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart"), 0)
        let up = try BackgroundCLI(world.home, ["forward", "up", "--passphrase-fd", "3"], fd3: Self.passphrase)
        try up.waitFor("t: active through OpenSSH's ssh")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("agent".utf8)), Array("tnega".utf8))
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        XCTAssertFalse(up.stderr.contains("nothing here can ask"), up.stderr)
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
    }

    func testAWrongPassphraseIsRefusedBeforeSSHStarts() throws {
        let world = try lockedVaultKeyWorld()
        let fifo = world.home.root + "/passphrase.fifo"
        let output = world.home.root + "/exec.out", errors = world.home.root + "/exec.err"
        let exec = try spawn(
            world, ["exec", "t", "--no-stdin", "--passphrase-fd", "3", "--", "echo", "logged-in"],
            passphrase: "not the vault passphrase", fifo: fifo, output: output, errors: errors)
        XCTAssertNotEqual(exec.wait(), 0)
        let said = read(errors)
        XCTAssertTrue(
            said.contains(
                "the sshelf agent did not open the vault with the passphrase from --passphrase-fd 3 (not the vault "
                    + "passphrase, or the agent is locked): t was not contacted"), said)
        XCTAssertFalse(said.contains("Permission denied"), said)
        XCTAssertFalse(read(output).contains("logged-in"))
        XCTAssertFalse(world.sshd.log.contains("sntrup761x25519"), "ssh never started: \(world.sshd.log)")
    }

    func testWithNoPassphraseAndNoTerminalTheErrorSaysWhatToDoBeforeSSHStarts() throws {
        let world = try lockedVaultKeyWorld()
        let output = world.home.root + "/exec.out", errors = world.home.root + "/exec.err"
        let exec = try spawn(
            world, ["exec", "t", "--no-stdin", "--", "echo", "logged-in"], passphrase: nil,
            fifo: world.home.root + "/unused.fifo", output: output, errors: errors)
        XCTAssertNotEqual(exec.wait(), 0)
        let said = read(errors)
        XCTAssertTrue(
            said.contains(
                "t logs in with key 'id_ed25519' from the sshelf vault, which is locked for the sshelf agent that "
                    + "OpenSSH's ssh signs through, and nothing here can ask for the vault passphrase (no terminal): t "
                    + "was not contacted"), said)
        XCTAssertTrue(said.contains("--passphrase-fd N"), said)
        XCTAssertTrue(said.contains("sshelf agent start --unlock"), said)
        XCTAssertFalse(said.contains("sshelf vault unlock"), "it unlocks nothing beyond itself here: \(said)")
        XCTAssertFalse(said.contains("Permission denied"), said)
        XCTAssertFalse(world.sshd.log.contains("sntrup761x25519"), "ssh never started: \(world.sshd.log)")
    }
}

// ExecCommandTests: `sshelf exec` through the real binary and a real sshd — first-use refusal (nothing sent),
// --accept-new pinning the key (host record and known_hosts, 0600), exit status and stderr kept apart,
// last-connected time, a password from --password-fd, `connect` without a terminal running stdin as a script, and
// `connect --dry-run` showing no secret.
import Foundation
import TestSupport
import XCTest

final class ExecCommandTests: XCTestCase {
    func testUnknownHostKeyIsRefusedWithoutAcceptNew() throws {
        let world = try SSHCLIWorld()
        let result = try world.home.run("exec", "t", "--", "echo", "hi")
        XCTAssertExit(result, 255)
        XCTAssertTrue(result.stderr.contains("is not known"), result.stderr)
        XCTAssertTrue(result.stderr.contains(try world.fingerprint(world.sshd)), result.stderr)
        XCTAssertTrue(result.stderr.contains("--accept-new"), result.stderr)
        world.sshd.waitForConnectionsEnded()
        XCTAssertFalse(world.sshd.log.contains("userauth-request"), world.sshd.log)
    }

    func testAcceptNewPinsTheKeyAndExitStatusComesBack() throws {
        let world = try SSHCLIWorld()
        let result = try world.home.run("exec", "t", "--accept-new", "--", "echo out; echo err >&2; exit 3")
        XCTAssertExit(result, 3)
        XCTAssertEqual(result.stdout, "out\n")
        XCTAssertTrue(result.stderr.hasSuffix("err\n"), result.stderr)
        XCTAssertTrue(result.stderr.contains("accepting new host key"), result.stderr)

        let show = try world.home.run("show", "t", "--json")
        XCTAssertTrue(show.stdout.contains("pinnedHostKey"), show.stdout)
        XCTAssertTrue(show.stdout.contains(world.sshd.hostPublicKey(.ed25519).split(separator: " ")[1]), show.stdout)
        XCTAssertTrue(show.stdout.contains("lastConnectedAt"), show.stdout)
        let known = try String(contentsOfFile: world.knownHostsPath, encoding: .utf8)
        XCTAssertTrue(known.contains(world.sshd.knownHostsName), known)
        let mode =
            try FileManager.default.attributesOfItem(atPath: world.knownHostsPath)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)

        let again = try world.home.run("exec", "t", "--", "true")
        XCTAssertExit(again, 0)
        XCTAssertEqual(again.stderr, "")
    }

    func testPasswordFromADescriptor() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        let result = try world.home.run(
            ["exec", "t", "--accept-new", "--no-stdin", "--password-fd", "0", "--", "whoami"],
            stdin: TestAccount.password + "\n")
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "\(TestAccount.name)\n")
        XCTAssertTrue(world.sshd.waitForLog("Accepted password"), world.sshd.log)

        let wrong = try world.home.run(
            ["exec", "t", "--no-stdin", "--password-fd", "0", "--", "whoami"], stdin: "nope\n")
        XCTAssertExit(wrong, 255)
        XCTAssertTrue(wrong.stderr.contains("authentication failed"), wrong.stderr)
    }

    /// `--remember` keeps a password that logged in, behind the vault's gate, in the class its use needs; the next
    /// connection reads it from the vault (after the host key check) and asks nothing.
    func testRememberedPasswordComesFromTheVaultNextTime() throws {
        let world = try SSHCLIWorld()
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password"), 0)
        let first = try world.home.run(
            ["exec", "t", "--accept-new", "--no-stdin", "--password-fd", "0", "--remember", "--", "true"],
            stdin: TestAccount.password + "\n")
        XCTAssertExit(first, 0)
        let list = try world.home.run("vault", "list")
        XCTAssertTrue(list.stdout.contains("host.password  whenUnlockedThisDeviceOnly"), list.stdout)
        XCTAssertTrue(list.stdout.contains("host.remember  whenUnlockedThisDeviceOnly"), list.stdout)
        XCTAssertTrue(try world.home.run("show", "t").stdout.contains("in the vault as host."))
        let second = try world.home.run("exec", "t", "--no-stdin", "--", "whoami")
        XCTAssertExit(second, 0)
        XCTAssertEqual(second.stdout, "\(TestAccount.name)\n")
        XCTAssertFalse(try world.home.run("vault", "list").stdout.contains("CANARY"))
    }

    /// As ssh: without a terminal on stdin, `connect` asks for no PTY and the login shell reads stdin as a script —
    /// its exit status comes back, stderr stays apart, and a line `~.` is the script's, not an escape. RequestTTY
    /// force still asks for one.
    func testConnectWithoutATerminalRunsStdinAsAScript() throws {
        let world = try SSHCLIWorld()
        let script = "echo from-script\ntty || echo no-tty\n~.\necho after-tilde\necho err >&2\nexit 4\n"
        let result = try world.home.run(["connect", "t", "--accept-new"], stdin: script)
        XCTAssertExit(result, 4)
        XCTAssertEqual(result.stdout, "from-script\nnot a tty\nno-tty\nafter-tilde\n")
        XCTAssertTrue(result.stderr.contains("sshelf: no terminal (PTY) is asked for: stdin is not a terminal\n"))
        XCTAssertTrue(result.stderr.hasSuffix("err\n"), result.stderr)

        XCTAssertExit(try world.home.run("edit", "t", "--option", "RequestTTY force"), 0)
        let forced = try world.home.run(["connect", "t"], stdin: "tty\nexit 5\n")
        XCTAssertExit(forced, 5)
        XCTAssertTrue(forced.stdout.contains("/dev/pts/"), forced.stdout)
        XCTAssertFalse(forced.stderr.contains("no terminal"), forced.stderr)
    }

    /// `exec -t` gives the command a terminal (as ssh -tt), even with a warm session for the host running (whose
    /// channels have none: it logs in anew); with --persist it is refused before connecting.
    func testTTYGivesTheCommandATerminal() throws {
        let world = try SSHCLIWorld()
        let plain = try world.home.run("exec", "t", "--accept-new", "--", "tty")
        XCTAssertExit(plain, 1)
        XCTAssertEqual(plain.stdout, "not a tty\n")
        XCTAssertExit(try world.home.run("exec", "t", "--persist", "--", "true"), 0)
        defer { _ = try? world.home.run("warm", "stop", "t") }
        let logins = world.sshd.logCount("Accepted publickey")
        let forced = try world.home.run("exec", "-t", "t", "--", "tty")
        XCTAssertExit(forced, 0)
        XCTAssertTrue(forced.stdout.hasPrefix("/dev/pts/"), forced.stdout)
        XCTAssertTrue(
            world.sshd.waitForLog("Accepted publickey", count: logins + 1), "a new login: \(world.sshd.log)")
        let both = try world.home.run("exec", "-t", "--persist", "t", "--", "tty")
        XCTAssertExit(both, 2)
        XCTAssertTrue(both.stderr.contains("--tty (a terminal for the command) cannot go through a warm session"))
    }

    /// Without stdin to forward (`exec -n`, stdin /dev/null, a `run`), the command's input ends at once, as
    /// `ssh -n` gives it /dev/null: one that reads it finishes instead of waiting for ever.
    func testACommandWithoutStdinReadsItsEndAtOnce() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("exec", "t", "--accept-new", "--", "true"), 0)
        for arguments in [["exec", "-n", "t", "--", "wc -c"], ["exec", "t", "--", "wc -c"]] {
            let result = try world.home.run(arguments)
            XCTAssertExit(result, 0)
            XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespaces), "0\n", "\(arguments)")
        }
        let fleet = try world.home.run("run", "t", "--", "wc -c")
        XCTAssertExit(fleet, 0)
        XCTAssertTrue(fleet.stdout.contains("\n0\n"), fleet.stdout)
    }

    func testDryRunShowsThePlanAndNoSecret() throws {
        let world = try SSHCLIWorld()
        let result = try world.home.run("connect", "t", "--dry-run")
        XCTAssertExit(result, 0)
        XCTAssertTrue(result.stdout.contains("plan for t (1 hop)"), result.stdout)
        XCTAssertTrue(result.stdout.contains(world.key.privatePath), result.stdout)
        XCTAssertTrue(result.stdout.contains("unknown: you will be asked"), result.stdout)
        let secretLine = String(decoding: world.key.privateBytes, as: UTF8.self).split(separator: "\n")[1]
        XCTAssertFalse(result.stdout.contains(secretLine), "no key material in the plan")
        XCTAssertEqual(world.sshd.logCount("Connection from"), 0, "a dry run does not connect")
    }

    func testBinaryOutputThroughTheBinaryIsByteExact() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let remote = "/tmp/sshelf-cli-binary-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: remote) }
        let local = try Shell.run(
            TestTool.sh.path,
            ["-c", "\"$0\" exec t -n -- 'head -c 4000000 /dev/urandom | tee \(remote)' | sha256sum", CLI.binary],
            environment: world.home.environment)
        let expected = try Shell.run(TestTool.sha256sum.path, [remote])
        XCTAssertEqual(local.prefix(64), expected.prefix(64))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: remote)[.size] as? NSNumber, 4_000_000)
    }
}

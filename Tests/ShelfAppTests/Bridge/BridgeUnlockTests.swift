// BridgeUnlockTests: after `sshelf vault lock`, plain OpenSSH through the ssh_config bridge asks for the vault
// passphrase where the user is and then logs in — in the terminal ssh runs in (tmux, a wrong try first), for
// `git push` the same, through SSH_ASKPASS without a terminal — and, where nothing can ask (BatchMode=yes, no
// askpass), prints one line naming the locked vault and `sshelf vault unlock` and ends ssh: never "Load key …pub:
// error in libcrypto" and a password prompt, and no connection is made. Real OpenSSH, real sshd, the kernel keyring.
import Foundation
import TestSupport
import XCTest

final class BridgeUnlockTests: XCTestCase {
    private let passphrase = "bridge-unlock-pass"

    /// A host logging in with the vault key, the bridge installed, the agent running, the vault locked.
    private func lockedWorld() throws -> (BridgeWorld, SSHD) {
        let world = try BridgeWorld()
        // The unlock is the login session's (the kernel keyring), as on a user's machine.
        world.home.extraEnvironment["SSHELF_VAULT_NO_KEYRING"] = "0"
        let server = try world.server()
        try world.addHost("db1", on: server)
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        try world.startAgent()
        XCTAssertExit(try world.home.run("vault", "lock"), 0)
        return (world, server)
    }

    private var lockedLine: String {
        "sshelf: db1 logs in with key 'vaultkey' from the sshelf vault, which is locked: run 'sshelf vault unlock' "
            + "(or 'ssh-add -X'), then run ssh again\n"
    }

    func testWithNothingToAskSshPrintsOneLineAndConnectsNowhere() throws {
        let (world, server) = try lockedWorld()
        let before = server.log.count
        let batch = try world.ssh(["db1", "true"])
        XCTAssertEqual(batch.status, 255, "\(batch)")
        XCTAssertEqual(batch.stderr, lockedLine)
        XCTAssertFalse(batch.stderr.contains("libcrypto"), batch.stderr)
        XCTAssertFalse(
            server.log.dropFirst(before).contains("Connection from"), "no connection before an unlock: \(server.log)")

        // ssh -G (what tools and `sshelf check` run) asks nothing and says nothing.
        let inspect = try world.tool(TestTool.ssh.path, ["-F", world.userConfig, "-G", "db1"])
        XCTAssertExit(inspect, 0)
        XCTAssertFalse(inspect.stderr.contains("sshelf"), inspect.stderr)

        // Unlocked, the same ssh logs in; the guard adds nothing to its output.
        XCTAssertExit(try world.home.run(["vault", "unlock", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        let open = try world.ssh(["db1", "echo", "up"])
        XCTAssertExit(open, 0)
        XCTAssertEqual(open.stdout, "up\n")
        XCTAssertFalse(open.stderr.contains("sshelf"), open.stderr)
    }

    func testTheAgentStoppedIsOneLineToo() throws {
        let (world, _) = try lockedWorld()
        XCTAssertExit(try world.home.run("agent", "stop"), 0)
        let stopped = try world.ssh(["db1", "true"])
        XCTAssertEqual(stopped.status, 255)
        XCTAssertEqual(
            stopped.stderr,
            "sshelf: the key of this host is in the sshelf vault and the sshelf agent is not running: run sshelf "
                + "agent start\n")
    }

    func testSSHAsksInItsTerminalAndLogsIn() throws {
        let (world, server) = try lockedWorld()
        var environment = world.home.environment
        environment["SSH_AUTH_SOCK"] = nil
        let tui = try Tmux(
            home: world.home,
            command: [TestTool.ssh.path, "-F", world.userConfig, "db1", "echo via-$((6*7))"],
            environment: environment, columns: 160, rows: 20)
        let prompt = "Vault passphrase for sshelf (key 'vaultkey' for db1): "
        try tui.waitFor(text: prompt.trimmingCharacters(in: .whitespaces))
        try tui.type("not-the-passphrase")
        try tui.send("Enter")
        try tui.waitFor(text: "sshelf: that is not the vault passphrase; try again")
        try tui.type(passphrase)
        try tui.send("Enter")
        try tui.waitFor(text: "via-42")
        XCTAssertEqual(try tui.waitForExit(), 0)
        let screen = try tui.screen()
        XCTAssertFalse(screen.contains("libcrypto"), screen)
        XCTAssertFalse(screen.contains("password:"), screen)
        XCTAssertFalse(screen.contains(passphrase), "typed with echo off: \(screen)")
        XCTAssertTrue(server.log.contains("Accepted publickey"), server.log)
        // The agent took the passphrase through its back-off (the wrong one is in its log) and unlocked the session
        // for every sshelf process.
        let log = world.text(world.home.sshelfHome + "/state/agent.log")
        XCTAssertTrue(log.contains("gave a wrong vault passphrase to unlock"), log)
        XCTAssertTrue(try world.home.run("vault", "status").stdout.contains("session:     unlocked"))
    }

    func testGitPushAsksInItsTerminal() throws {
        let (world, _) = try lockedWorld()
        // The bare repository on the server belongs to the login user, as it would (git refuses a push to another's).
        let remote = "/tmp/sshelf-unlock-\(UUID().uuidString.prefix(8)).git"
        defer { try? FileManager.default.removeItem(atPath: remote) }
        let work = world.home.root + "/push-work"
        try Shell.run(TestTool.git.path, ["init", "-q", "--bare", remote])
        let owner = try XCTUnwrap(getpwnam(TestAccount.name)).pointee
        for path in [remote] + (FileManager.default.subpaths(atPath: remote) ?? []).map({ remote + "/" + $0 }) {
            XCTAssertEqual(lchown(path, owner.pw_uid, owner.pw_gid), 0, path)
        }
        try Shell.run(TestTool.git.path, ["init", "-q", work])
        try Shell.run(
            TestTool.git.path,
            ["-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"])
        var environment = world.home.environment
        environment["SSH_AUTH_SOCK"] = nil
        environment["GIT_SSH_COMMAND"] = "\(TestTool.ssh.path) -F \(world.userConfig)"
        let tui = try Tmux(
            home: world.home,
            command: [TestTool.git.path, "-C", work, "push", "db1:\(remote)", "HEAD:refs/heads/main"],
            environment: environment, columns: 160, rows: 20)
        try tui.waitFor(text: "Vault passphrase for sshelf (key 'vaultkey' for db1):")
        try tui.type(passphrase)
        try tui.send("Enter")
        let status = try tui.waitForExit()
        let screen = try tui.screen()
        XCTAssertEqual(status, 0, screen)
        let pushed = try Shell.run(TestTool.git.path, ["--git-dir", remote, "rev-parse", "main"])
        let local = try Shell.run(TestTool.git.path, ["-C", work, "rev-parse", "HEAD"])
        XCTAssertEqual(pushed, local)
    }

    func testWithoutATerminalSSHAskpassIsAsked() throws {
        let (world, _) = try lockedWorld()
        let askpass = try world.home.write(
            "#!/bin/sh\necho \"$1\" > \"$0.prompt\"\necho '\(passphrase)'\n", to: "askpass")
        chmod(askpass, 0o700)
        let result = try world.tool(
            TestTool.ssh.path, ["-F", world.userConfig, "db1", "echo", "asked"],
            environment: ["SSH_ASKPASS": askpass, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"])
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "asked\n")
        XCTAssertEqual(world.text(askpass + ".prompt"), "Vault passphrase for sshelf (key 'vaultkey' for db1): \n")

        // Cancelled (askpass fails): the one line, no password prompt.
        XCTAssertExit(try world.home.run("vault", "lock"), 0)
        let cancel = try world.home.write("#!/bin/sh\nexit 1\n", to: "cancel")
        chmod(cancel, 0o700)
        let cancelled = try world.tool(
            TestTool.ssh.path, ["-F", world.userConfig, "db1", "true"],
            environment: ["SSH_ASKPASS": cancel, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"])
        XCTAssertEqual(cancelled.status, 255)
        XCTAssertEqual(cancelled.stderr, "sshelf: no passphrase given: " + lockedLine.dropFirst("sshelf: ".count))
    }

    func testWithoutATerminalAnOpenTUIAsksInADialog() throws {
        let (world, server) = try lockedWorld()
        let tui = try Tmux(home: world.home, columns: 160, rows: 30)
        try tui.waitFor(text: "1 host")
        // ssh with no controlling terminal (setsid), as git run by an editor: the open TUI asks.
        let finished = expectation(description: "ssh ended")
        let outcome = Locked<CLIResult?>(nil)
        DispatchQueue.global().async {
            outcome.set(
                try? world.tool(
                    TestTool.setsid.path, ["-w", TestTool.ssh.path, "-F", world.userConfig, "db1", "echo", "tui-ok"]))
            finished.fulfill()
        }
        try tui.waitFor(text: "ssh to db1 needs key 'vaultkey', which the vault keeps locked.")
        try tui.type(passphrase)
        try tui.send("Enter")
        wait(for: [finished], timeout: Deadline.standard)
        let result = try XCTUnwrap(outcome.value)
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "tui-ok\n")
        XCTAssertTrue(server.log.contains("Accepted publickey"), server.log)
        try tui.waitFor(text: "vault unlocked: ssh goes on")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

/// A value set on one thread and read on another.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value { lock.withLock { stored } }
}

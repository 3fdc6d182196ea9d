// VaultSessionFlowTests: one vault session per login, end to end, with a vault passphrase and the default classes
// (whenUnlockedThisDeviceOnly keys and passwords) and the real kernel keyring: one `vault unlock`, then other
// processes remember a password, start a forward with a vault key, sign through the agent and exec; one `vault lock`
// and each of them refuses, saying what to run — and running it works. Real sshd, real agent, real vault files.
import Foundation
import TestSupport
import XCTest

final class VaultSessionFlowTests: XCTestCase {
    static let passphrase = "one session pass"

    /// Host `t` logs in with a key made by `keygen` (kept whenUnlocked…), host `pw` with a password; both pinned;
    /// the vault has a passphrase and its session is locked.
    private func world() throws -> SSHCLIWorld {
        let world = try SSHCLIWorld()
        let home = world.home
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        addTeardown { _ = try? home.run("vault", "lock") }
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        let made = try home.run(["keygen", "made", "--passphrase-fd", "3"], fd3: Self.passphrase)
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertExit(try home.run("edit", "t", "--identity", "made", "--auth", "publickey"), 0)
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(
            try home.run(
                "add", "pw", "--host", world.sshd.options.listenAddress, "--port", "\(world.sshd.port)",
                "--user", TestAccount.name, "--auth", "password"), 0)
        XCTAssertExit(try home.run("trust", "pw", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try home.run("vault", "lock"), 0)
        return world
    }

    /// `sshelf ARGS` with descriptor 3 reading `fd3` and descriptor 4 reading `fd4`.
    private func run(_ home: TempHome, _ arguments: [String], fd3: String, fd4: String) throws -> CLIResult {
        let three = try home.write(fd3 + "\n", to: "fd3-\(UUID().uuidString.prefix(6))")
        let four = try home.write(fd4 + "\n", to: "fd4-\(UUID().uuidString.prefix(6))")
        return try CLI.run(
            ["-c", "exec \"$0\" \"$@\" 3<'\(three)' 4<'\(four)'", CLI.binary] + arguments,
            environment: home.environment, shell: true)
    }

    /// The class of the first item of `family`, from `vault list --json`.
    private func storedClass(_ home: TempHome, _ family: String) throws -> String? {
        let listed = try home.run("vault", "list", "--json")
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        return items.first { $0["family"] as? String == family }?["accessibility"] as? String
    }

    func testOneUnlockServesEveryProcessAndOneLockStopsThemAll() throws {
        let world = try world()
        let home = world.home
        let agent = AgentWorld(over: home, sshd: world.sshd)
        try agent.startAgent()
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)"), 0)

        // Unlock once, in its own process.
        let unlocked = try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase)
        XCTAssertExit(unlocked, 0)
        XCTAssertTrue(unlocked.stdout.contains("unlocked for all your sshelf processes"), unlocked.stdout)
        XCTAssertTrue(
            try home.run("vault", "status").stdout.contains(
                "session:     unlocked for all your sshelf processes, 15 min left"))

        // Another process remembers a password (whenUnlockedThisDeviceOnly, by the table) without being asked for the
        // passphrase; the next one logs in with it.
        let remembered = try home.run(
            ["exec", "pw", "--password-fd", "3", "--remember", "--no-stdin", "--", "true"],
            fd3: TestAccount.password)
        XCTAssertExit(remembered, 0)
        XCTAssertFalse(remembered.stderr.contains("could not remember"), remembered.stderr)
        XCTAssertEqual(try storedClass(home, "host.password"), "whenUnlockedThisDeviceOnly")
        XCTAssertExit(try home.run("exec", "pw", "--no-stdin", "--", "true"), 0)
        // Another starts a forward with the vault key.
        let forward = try BackgroundCLI(home, ["forward", "start", "t"])
        try forward.waitFor("press Ctrl-C")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("fwd".utf8)), Array("dwf".utf8))
        XCTAssertEqual(try forward.stop(SIGINT), 0, forward.stderr)
        // The agent signs with it; exec reads it.
        XCTAssertTrue(try agent.sshAdd(["-l"]).stdout.contains(" made (ED25519)"), agent.agentLog)
        XCTAssertExit(try agent.ssh(), 0)
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "true"), 0)

        // Lock once: each of them refuses, saying what to run.
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let exec = try home.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(exec, 255)
        XCTAssertTrue(exec.stderr.contains("the vault session is locked"), exec.stderr)
        XCTAssertTrue(exec.stderr.contains("sshelf: hint: sshelf vault unlock"), exec.stderr)
        XCTAssertNotEqual(try home.run("exec", "pw", "--no-stdin", "--", "true").status, 0, "the stored password too")
        let refused = try home.run("forward", "start", "t")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("sshelf vault unlock"), refused.stderr)
        XCTAssertNotEqual(try agent.ssh().status, 0)
        XCTAssertFalse(try agent.sshAdd(["-l"]).stdout.contains(" made (ED25519)"), "not offered while locked")
        try agent.waitForAgentLog("not listing 'made': the vault is locked for their class; run 'sshelf vault unlock'")
        let notKept = try run(
            home, ["exec", "pw", "--password-fd", "4", "--remember", "--no-stdin", "--", "true"],
            fd3: "", fd4: TestAccount.password)
        XCTAssertExit(notKept, 0)  // the typed password still logs in
        XCTAssertTrue(
            notKept.stderr.contains(
                "could not remember the password: it is stored whenUnlockedThisDeviceOnly, and the "
                    + "vault session is locked"),
            notKept.stderr)
        XCTAssertTrue(notKept.stderr.contains("sshelf vault unlock"), notKept.stderr)

        // Following the hint: one unlock, and every one of them works again.
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        XCTAssertExit(try agent.ssh(), 0)
        try agent.waitForAgentLog("the vault session is open: every key is listed again")
    }

    /// The passphrase handed to the command itself remembers the password (and unlocks the session for the others).
    func testRememberWithThePassphraseOnADescriptorWhileLocked() throws {
        let world = try world()
        let home = world.home
        let given = try run(
            home,
            [
                "exec", "pw", "--password-fd", "4", "--remember", "--passphrase-fd", "3", "--no-stdin",
                "--", "true",
            ], fd3: Self.passphrase, fd4: TestAccount.password)
        XCTAssertExit(given, 0)
        XCTAssertFalse(given.stderr.contains("could not remember"), given.stderr)
        XCTAssertEqual(try storedClass(home, "host.password"), "whenUnlockedThisDeviceOnly")
        XCTAssertExit(try home.run("exec", "pw", "--no-stdin", "--", "true"), 0)
    }

    /// `agent start --unlock` on a running agent unlocks the session and says so; the agent then lists and signs.
    func testAgentStartUnlockOnARunningAgentUnlocksTheSession() throws {
        let world = try world()
        let agent = AgentWorld(over: world.home, sshd: world.sshd)
        try agent.startAgent()
        XCTAssertNotEqual(try agent.ssh().status, 0)
        let status = try world.home.run("agent", "status")
        XCTAssertTrue(status.stdout.contains("session locked"), status.stdout)
        XCTAssertTrue(
            status.stdout.contains("locked for made (not listed until 'sshelf vault unlock', "), status.stdout)
        let unlocked = try world.home.run(["agent", "start", "--unlock", "--passphrase-fd", "3"], fd3: Self.passphrase)
        XCTAssertExit(unlocked, 0)
        XCTAssertTrue(unlocked.stderr.contains("unlocked the vault session: the agent (pid "), unlocked.stderr)
        XCTAssertTrue(unlocked.stdout.contains("already running"), unlocked.stdout)
        XCTAssertExit(try agent.ssh(), 0)
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 0)  // and every other process
    }

    /// Without the kernel keyring the CLI cannot share an unlock, but an agent given the passphrase holds one: exec
    /// then logs in through the agent (SSH_AUTH_SOCK), as `connect --dry-run` lists, instead of failing on the vault.
    func testExecUsesTheAgentWhenItsOwnVaultIsLocked() throws {
        let world = try world()
        let home = world.home
        home.extraEnvironment["SSHELF_VAULT_NO_KEYRING"] = "1"
        let agent = AgentWorld(over: home, sshd: world.sshd)
        addTeardown { _ = try? home.run("agent", "stop") }
        let started = try home.run(["agent", "start", "--unlock", "--passphrase-fd", "3"], fd3: Self.passphrase)
        XCTAssertExit(started, 0)
        XCTAssertTrue(started.stderr.contains("unlocked the vault in the agent (pid "), started.stderr)
        XCTAssertExit(try agent.ssh(), 0)  // the agent was given the passphrase
        let alone = try home.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(alone, 255)
        XCTAssertTrue(alone.stderr.contains("--passphrase-fd N"), alone.stderr)

        home.extraEnvironment["SSH_AUTH_SOCK"] = agent.socket
        let plan = try home.run("connect", "t", "--dry-run")
        XCTAssertTrue(plan.stdout.contains("agent: ssh-agent at \(agent.socket)"), "\(plan)")
        let through = try home.run("exec", "t", "--no-stdin", "--", "echo", "agent")
        XCTAssertExit(through, 0)
        XCTAssertEqual(through.stdout, "agent\n")
        try agent.waitForAgentLog("signed with key 'made'")
    }
}

// LockedCredentialHintTests: when a credential the login needs is locked in the vault, `exec` and `forward up` say
// why in the user's words (the item, its class, when that class opens) and every fix they offer is followed here
// and works: --passphrase-fd, `vault unlock` (the session: a waiting tunnel comes up at once), `vault set-class`, and
// `vault unlock` only where the kernel keyring keeps it. A key made by `keygen` is never told to be "imported again
// from its FILE". Real sshd, real vault files.
import Foundation
import TestSupport
import XCTest

final class LockedCredentialHintTests: XCTestCase {
    static let passphrase = "correct horse battery"

    /// A world whose host `t` logs in with a key made by `keygen` into a vault with a passphrase.
    /// A world without the kernel keyring whose host is pinned and whose key is stored afterFirstUnlockThisDeviceOnly
    /// (what a forward rule run without anybody there needs).
    func pinnedWorldWithAfterFirstUnlockKey() throws -> (SSHCLIWorld, key: String) {
        let (world, key) = try keygenWorld(keyring: false)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(
            try world.home.run(
                ["vault", "set-class", key, "afterFirstUnlockThisDeviceOnly", "--passphrase-fd", "3"],
                fd3: Self.passphrase), 0)
        return (world, key)
    }

    func keygenWorld(keyring: Bool) throws -> (SSHCLIWorld, key: String) {
        let world = try SSHCLIWorld()
        world.home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        if !keyring { world.home.extraEnvironment["SSHELF_VAULT_NO_KEYRING"] = "1" }
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        let made = try world.home.run(["keygen", "made", "--passphrase-fd", "3"], fd3: Self.passphrase)
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertExit(try world.home.run("edit", "t", "--identity", "made", "--auth", "publickey"), 0)
        let items = try world.home.run("vault", "list", "--json")
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(items.stdout.utf8)) as? [[String: Any]])
        let key = try XCTUnwrap(list.compactMap { $0["key"] as? String }.first { $0.hasSuffix(".privkey") })
        // Setting the passphrase and keygen unlocked the session (any passphrase entry does): start locked.
        XCTAssertExit(try world.home.run("vault", "lock"), 0)
        addTeardown { _ = try? world.home.run("vault", "lock") }
        return (world, key)
    }

    func testExecExplainsAWhenUnlockedKeyAndBothFixesWork() throws {
        let (world, _) = try keygenWorld(keyring: true)
        let home = world.home
        let locked = try home.run("exec", "t", "--accept-new", "--no-stdin", "--", "echo", "ok")
        XCTAssertExit(locked, 255)
        XCTAssertTrue(
            locked.stderr.contains(
                "the private key of identity 'made' cannot be read: it is stored whenUnlockedThisDeviceOnly, and the "
                    + "vault session is locked"),
            locked.stderr)
        XCTAssertTrue(
            locked.stderr.contains("sshelf: hint: sshelf vault unlock (opens it for every sshelf process"),
            locked.stderr)
        XCTAssertTrue(locked.stderr.contains("--passphrase-fd N"), locked.stderr)
        XCTAssertFalse(locked.stderr.contains("FILE"), locked.stderr)

        // Fix 1: the passphrase on a descriptor. A wrong one is called wrong, not "locked".
        let wrong = try home.run(
            ["exec", "t", "--no-stdin", "--passphrase-fd", "3", "--", "echo", "ok"], fd3: "not it")
        XCTAssertExit(wrong, 255)
        XCTAssertTrue(wrong.stderr.contains("the vault passphrase given was wrong"), wrong.stderr)
        let given = try home.run(
            ["exec", "t", "--no-stdin", "--passphrase-fd", "3", "--", "echo", "ok"], fd3: Self.passphrase)
        XCTAssertExit(given, 0)
        XCTAssertEqual(given.stdout, "ok\n")
        // ... which unlocked the session: the next command needs no passphrase.
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "echo", "ok"), 0)

        // Fix 2, the hint's first: one unlock, in another process, for every later command.
        XCTAssertExit(try home.run("vault", "lock"), 0)
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "echo", "ok"), 255)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "echo", "ok"), 0)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 3, world.sshd.log)
    }

    /// Without the kernel keyring `vault unlock` cannot outlive its own process: it is not offered, and indeed
    /// does not help; the passphrase on a descriptor does.
    func testWithoutTheKeyringOnlyTheFixesThatWorkAreOffered() throws {
        let (world, key) = try keygenWorld(keyring: false)
        let home = world.home
        XCTAssertExit(
            try home.run(
                ["vault", "set-class", key, "afterFirstUnlockThisDeviceOnly", "--passphrase-fd", "3"],
                fd3: Self.passphrase), 0)
        let locked = try home.run("exec", "t", "--accept-new", "--no-stdin", "--", "echo", "ok")
        XCTAssertExit(locked, 255)
        XCTAssertTrue(
            locked.stderr.contains("without the kernel keyring, an unlock does not outlive the process"), locked.stderr)
        let hint = locked.stderr.components(separatedBy: "sshelf: hint: ").last ?? ""
        XCTAssertTrue(hint.contains("--passphrase-fd N"), hint)
        XCTAssertFalse(hint.contains("vault unlock"), "not offered where it cannot help: \(hint)")
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        XCTAssertExit(try home.run("exec", "t", "--no-stdin", "--", "echo", "ok"), 255)
        let given = try home.run(
            ["exec", "t", "--no-stdin", "--passphrase-fd", "3", "--", "echo", "ok"], fd3: Self.passphrase)
        XCTAssertExit(given, 0)

        // forward start and trust take it the same way (trust logs in to the jump hosts on the way).
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)"), 0)
        let refused = try home.run("forward", "start", "t")
        XCTAssertExit(refused, 255)
        XCTAssertTrue(refused.stderr.contains("--passphrase-fd N"), refused.stderr)
        let running = try BackgroundCLI(home, ["forward", "start", "t", "--passphrase-fd", "3"], fd3: Self.passphrase)
        try running.waitFor("press Ctrl-C")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("start".utf8)), Array("trats".utf8))
        XCTAssertEqual(try running.stop(SIGINT), 0, running.stderr)
        XCTAssertExit(
            try home.run("add", "inner", "--host", "127.0.0.1", "--port", String(world.sshd.port), "--jump", "t"), 0)
        XCTAssertExit(try home.run("trust", "inner", "--fingerprint", try world.fingerprint(world.sshd)), 255)
        XCTAssertExit(
            try home.run(
                ["trust", "inner", "--fingerprint", try world.fingerprint(world.sshd), "--passphrase-fd", "3"],
                fd3: Self.passphrase), 0)
    }

    /// `forward up` with a key made by keygen and kept whenUnlocked, the session locked: explained, nothing sent, and
    /// both fixes offered (never "import the key again (… FILE)"). Following the first — `vault unlock` in another
    /// process — brings the waiting tunnel up within a second, without restarting the supervisor; the second moves the
    /// key to the class that outlives the idle timeout.
    func testForwardUpWaitsForTheSessionAndOffersSetClassForAKeygenKey() throws {
        let (world, key) = try keygenWorld(keyring: true)
        let home = world.home
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        let added = try home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart")
        XCTAssertExit(added, 0)
        // Marking it autostart says which credential locks with the session, and offers the move.
        XCTAssertTrue(
            added.stderr.contains(
                "note: 'sshelf forward up' reads the private key of identity 'made' (whenUnlockedThisDeviceOnly) only "
                    + "while the vault session is unlocked"),
            added.stderr)
        XCTAssertTrue(
            added.stderr.contains("  sshelf vault set-class \(key) afterFirstUnlockThisDeviceOnly\n"), added.stderr)

        let up = try BackgroundCLI(home, ["forward", "up"])
        try up.waitFor("t: failed")
        XCTAssertTrue(
            up.stderr.contains(
                "the private key of identity 'made' cannot be read: it is stored whenUnlockedThisDeviceOnly, which "
                    + "opens only while the vault session is unlocked"),
            up.stderr)
        XCTAssertTrue(
            up.stderr.contains("sshelf vault unlock (a waiting tunnel then comes up within a second"), up.stderr)
        XCTAssertTrue(
            up.stderr.contains(
                "to stay up unattended: sshelf vault set-class \(key) afterFirstUnlockThisDeviceOnly, then 'sshelf "
                    + "vault unlock' once per login"),
            up.stderr)
        XCTAssertFalse(up.stderr.contains("import the key again"), up.stderr)
        XCTAssertFalse(up.stderr.contains("FILE"), up.stderr)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 0, "nothing was sent")

        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        try up.waitFor("t: active")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("session".utf8)), Array("session".utf8.reversed()))
        XCTAssertEqual(try up.stop(SIGINT), 0, up.stderr)

        XCTAssertExit(
            try home.run(
                ["vault", "set-class", key, "afterFirstUnlockThisDeviceOnly", "--passphrase-fd", "3"],
                fd3: Self.passphrase), 0)
        XCTAssertTrue(try home.run("vault", "list").stdout.contains("identity.privkey  afterFirstUnlockThisDeviceOnly"))
        XCTAssertFalse(try home.run("vault", "audit").stdout.contains("weaker-than-use"), "the audit agrees")
        let third = try home.run("forward", "add", "t", "--dynamic", "\(try TrafficSocket.freePort())", "--autostart")
        XCTAssertExit(third, 0)
        XCTAssertFalse(third.stderr.contains("note:"), "nothing left to move: \(third)")
        XCTAssertExit(try home.run("vault", "lock"), 0)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        let fixed = try BackgroundCLI(home, ["forward", "up"])
        try fixed.waitFor("t: active")
        XCTAssertEqual(
            try TrafficSocket.roundTrip(port: port, Array("unattended".utf8)), Array("unattended".utf8.reversed()))
        XCTAssertEqual(try fixed.stop(SIGINT), 0, fixed.stderr)
    }

    /// Without the keyring, `forward up --passphrase-fd` opens the afterFirstUnlock items for the supervisor; a wrong
    /// passphrase stops it at once.
    func testForwardUpTakesThePassphraseOnADescriptor() throws {
        let (world, _) = try pinnedWorldWithAfterFirstUnlockKey()
        let home = world.home
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart"), 0)

        let without = try BackgroundCLI(home, ["forward", "up"])
        try without.waitFor("t: failed")
        XCTAssertTrue(without.stderr.contains("--passphrase-fd N"), without.stderr)
        XCTAssertEqual(try without.stop(SIGTERM), 0, without.stderr)

        let wrong = try BackgroundCLI(home, ["forward", "up", "--passphrase-fd", "3"], fd3: "not it")
        XCTAssertEqual(try wrong.waitExit(), 1, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("the vault passphrase is not correct"), wrong.stderr)

        let given = try BackgroundCLI(home, ["forward", "up", "--passphrase-fd", "3"], fd3: Self.passphrase)
        try given.waitFor("t: active")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("fd".utf8)), Array("df".utf8))
        XCTAssertEqual(try given.stop(SIGINT), 0, given.stderr)
    }

    /// The service runs the same rule and cannot take the passphrase at all: its log line says why in its own words
    /// (who logs in, what can take the passphrase instead) and names no flag of a command it is not; `forward status`
    /// words the saved hint the same way for the service's rules, `--json` keeps the face-neutral words and no face's
    /// data.
    func testTheServiceSaysWhatToDoInItsOwnWords() throws {
        let (world, key) = try pinnedWorldWithAfterFirstUnlockKey()
        let home = world.home
        let port = try TrafficSocket.freePort()
        XCTAssertExit(try home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:9", "--autostart"), 0)

        let service = try RunningService(home)
        addTeardown { _ = try? service.process.stop(SIGTERM) }
        let found = try eventually(
            "the service to log the refusal",
            observe: { service.log.split(separator: "\n").first { $0.contains("forwards: t: failed: ") } },
            until: { $0 != nil }, context: { service.log })
        let line = String(try XCTUnwrap(found))
        XCTAssertTrue(
            line.contains(
                "the private key of identity 'made' cannot be read: it is stored afterFirstUnlockThisDeviceOnly, "
                    + "which only a process you type the vault passphrase into can read, and the sshelf service logs "
                    + "in with nobody there to type it"),
            line)
        // The key is in the class unattended logins read already: the hint names what is left, not `vault set-class`
        // to the class it has (which would only answer that it is stored so already).
        XCTAssertTrue(
            line.contains(
                "(the service is never given the vault passphrase: stop it ('sshelf service stop') and run "
                    + "'sshelf forward up' in its place, giving it the passphrase when starting it: this system keeps "
                    + "no unlock between processes (no kernel keyring)) (next attempt in"),
            line)
        XCTAssertFalse(line.contains("set-class \(key)"), line)
        XCTAssertFalse(line.contains("--passphrase-fd"), "the service takes no such flag: \(line)")
        XCTAssertFalse(line.contains("'sshelf forward up' logs in"), line)
        XCTAssertEqual(world.sshd.logCount("Accepted publickey"), 0, "nothing was sent")

        // The state file follows the log line (the service republishes on the runner's change).
        let status = try eventually(
            "forward status to show the failure", observe: { try home.run("forward", "status") },
            until: { $0.stdout.contains(" failed ") })
        XCTAssertTrue(status.stdout.contains("(the sshelf service)"), "\(status)")
        XCTAssertTrue(
            status.stdout.contains("the service is never given the vault passphrase: stop it"),
            "the service's rules are worded as the service takes the fix: \(status)")
        let json = try home.run("forward", "status", "--json")
        XCTAssertTrue(
            json.stdout.contains("give the vault passphrase when starting it: this system keeps"), json.stdout)
        XCTAssertFalse(json.stdout.contains("guidance"), "scripts get the words, not a face's data: \(json.stdout)")
        XCTAssertEqual(try service.process.stop(SIGTERM), 0, service.log)
    }
}

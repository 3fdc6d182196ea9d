// AgentSSHTests: the sshelf agent with OpenSSH's own client against the test sshd — vault keys (ed25519 from keygen,
// ECDSA from identity import) log in, `ssh-add -l/-L/-d` list and remove (the vault keeps the key), `ssh-add KEY` lands
// in the vault with the policy's class, RSA signs with SHA-2 and refuses SHA-1, every signature is in the release
// log, the socket and the files the agent writes have private modes and hold no private key byte.
import Foundation
import ShelfCore
import TestSupport
import XCTest

final class AgentSSHTests: XCTestCase {
    func testVaultKeysLogInThroughTheAgentAndRemovingOnlyStopsServing() throws {
        let world = try AgentWorld()
        let made = try world.home.run("keygen", "made")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let ecdsa = try TestKey.generate(.ecdsa)
        try world.sshd.authorize(ecdsa.publicLine)
        XCTAssertExit(try world.home.run(["identity", "import", "ec", ecdsa.privatePath, "--remove-file"]), 0)
        try world.startAgent(umask: 0)

        // Private whatever the umask.
        XCTAssertEqual(AgentWorld.mode(world.socket), 0o600)
        XCTAssertEqual(AgentWorld.mode(world.agentDirectory), 0o700)
        XCTAssertEqual(AgentWorld.mode(world.agentDirectory + "/state"), 0o600)
        XCTAssertEqual(AgentWorld.mode(world.home.sshelfHome + "/state/agent.log"), 0o600)

        let listed = try world.sshAdd(["-l"])
        XCTAssertExit(listed, 0)
        XCTAssertTrue(listed.stdout.contains(" made (ED25519)"), listed.stdout)
        XCTAssertTrue(listed.stdout.contains(" ec (ECDSA)"), listed.stdout)
        // ssh-add -L prints the public key lines themselves, as `identity show` does, named by identity.
        let lines = try world.sshAdd(["-L"])
        XCTAssertExit(lines, 0)
        let madeKey = made.stdout.split(separator: " ").prefix(2).joined(separator: " ")
        let ec = ecdsa.publicLine.split(separator: " ").prefix(2).joined(separator: " ")
        XCTAssertEqual(Set(lines.stdout.split(separator: "\n").map(String.init)), [madeKey + " made", ec + " ec"])

        XCTAssertExit(try world.ssh(), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        XCTAssertTrue(
            world.sshd.log.contains("ECDSA"), "the ECDSA key (listed first, by name) logged in:\n\(world.sshd.log)")
        XCTAssertFalse(world.sshd.log.contains("ED25519 SHA256"), world.sshd.log)

        // ssh-add -d: the agent stops serving the key; the vault (and the identity) keep it.
        let removed = try world.sshAdd(["-d", try world.publicKeyFile("ec")])
        XCTAssertExit(removed, 0)
        let after = try world.sshAdd(["-l"])
        XCTAssertFalse(after.stdout.contains(" ec "), after.stdout)
        XCTAssertTrue(after.stdout.contains(" made (ED25519)"), after.stdout)
        XCTAssertEqual(try world.vaultItems().filter { $0["family"] as? String == "identity.privkey" }.count, 2)

        XCTAssertExit(try world.ssh(), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey", count: 2), world.sshd.log)
        XCTAssertTrue(world.sshd.log.contains("ED25519 SHA256"), "the ed25519 key logged in:\n\(world.sshd.log)")

        let signatures = try world.releases().filter { $0["what"] as? String == "signature" }
        XCTAssertEqual(signatures.count, 2, "one line per signature")
        for line in signatures {
            XCTAssertEqual(line["by"] as? String, "agent")
            XCTAssertTrue((line["process"] as? String)?.hasPrefix("ssh (pid ") == true, "\(line)")
            XCTAssertNil(line["host"], "no host in the store has this server's key pinned")
            XCTAssertTrue((line["detail"] as? String)?.contains("server key SHA256:") == true, "\(line)")
        }
        XCTAssertExit(try world.home.run(["log", "verify"]), 0)

        // ssh-add -D removes everything from the agent, nothing from the vault; the agent stops cleanly.
        XCTAssertExit(try world.sshAdd(["-D"]), 0)
        XCTAssertEqual(try world.sshAdd(["-l"]).status, 1, "the agent has no identities")
        XCTAssertExit(try world.home.run(["agent", "stop"]), 0)
        XCTAssertNil(AgentWorld.mode(world.socket), "the socket is gone")
        XCTAssertNil(AgentWorld.mode(world.agentDirectory + "/state"), "the state file is gone")
    }

    func testSSHAddStoresANewKeyInTheVaultWithThePolicysClass() throws {
        let world = try AgentWorld()
        try world.startAgent()
        let key = try TestKey.generate(.ed25519)
        let scalar = try privateScalar(ofKeyFile: key.privatePath)
        try world.sshd.authorize(key.publicLine)
        XCTAssertExit(try world.sshAdd([key.privatePath]), 0)
        try FileManager.default.removeItem(atPath: key.privatePath)

        let identity = try XCTUnwrap(try world.identities().first { $0["name"] as? String == "sshelf-test" })
        XCTAssertEqual(identity["publicKey"] as? String, key.publicLine, "the comment names it; the line is the .pub")
        XCTAssertEqual(try world.home.run(["identity", "show", "sshelf-test"]).stdout, key.publicLine + "\n")
        let reference = try XCTUnwrap(identity["privateKeyRef"] as? String)
        let item = try XCTUnwrap(try world.vaultItems().first { $0["key"] as? String == reference })
        XCTAssertEqual(
            item["accessibility"] as? String, "whenUnlockedThisDeviceOnly", "an identity no tunnel uses: interactive")

        // The key file is gone: the agent signs from the vault.
        XCTAssertExit(try world.ssh(), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)

        // Adding the same key again is not a second identity; -c and -t apply to this agent's serving of it.
        let again = try TestKey.generate(.ecdsa)
        XCTAssertExit(try world.sshAdd(["-c", "-t", "600", again.privatePath]), 0)
        let constrained = try XCTUnwrap(try world.identities().first { $0["publicKey"] as? String == again.publicLine })
        XCTAssertEqual(constrained["confirmEachUse"] as? Bool, true, "a new key keeps the constraints as its options")
        XCTAssertEqual(constrained["agentLifetime"] as? Int, 600)
        XCTAssertEqual(try world.identities().count, 2)

        // No byte of the private key in any file sshelf wrote (the vault holds it encrypted).
        XCTAssertEqual(SecretScan.hits(world.home.sshelfHome, for: ["ed25519 seed": scalar]), [])
        XCTAssertEqual(
            SecretScan.hits(
                world.home.sshelfHome, for: ["ECDSA scalar": try privateScalar(ofKeyFile: again.privatePath)]), [])
        XCTAssertFalse(
            SecretScan.hits(world.home.sshelfHome, for: ["public": Array(key.publicLine.utf8.prefix(40))]).isEmpty,
            "the scan sees what is there")
    }

    /// The usual policy, not a fixed class: a key an autostart tunnel's host uses must be readable unattended, so
    /// ssh-add stores the key of such an identity (imported from ssh_config with its .pub, key not yet in the vault)
    /// as afterFirstUnlockThisDeviceOnly, and the identity now serves from the vault.
    func testSSHAddStoresATunnelsKeyInTheUnattendedClass() throws {
        let world = try AgentWorld()
        let key = try TestKey.generate(.ed25519)
        let config = try world.home.write(
            "Host tun\n  HostName 127.0.0.1\n  Port \(world.sshd.port)\n  IdentityFile \(key.privatePath)\n",
            to: "tunnel-config")
        XCTAssertExit(try world.home.run(["import", "ssh-config", config]), 0)
        XCTAssertExit(try world.home.run(["forward", "add", "tun", "--local", "15999:localhost:22", "--autostart"]), 0)
        let before = try XCTUnwrap(try world.identities().first { $0["publicKey"] as? String == key.publicLine })
        XCTAssertNil(before["privateKeyRef"] as? String, "a key file identity: nothing in the vault yet")

        try world.startAgent()
        XCTAssertExit(try world.sshAdd([key.privatePath]), 0)
        let after = try XCTUnwrap(try world.identities().first { $0["publicKey"] as? String == key.publicLine })
        XCTAssertEqual(after["name"] as? String, before["name"] as? String, "the same identity, not a new one")
        let reference = try XCTUnwrap(after["privateKeyRef"] as? String)
        let item = try XCTUnwrap(try world.vaultItems().first { $0["key"] as? String == reference })
        XCTAssertEqual(
            item["accessibility"] as? String, "afterFirstUnlockThisDeviceOnly", "a tunnel reads it unattended")
        XCTAssertEqual(try world.identities().count, 1)
    }

    func testAnEncryptedKeyImportedWithItsPassphraseIsServed() throws {
        let world = try AgentWorld()
        let key = try TestKey.generate(.ed25519, passphrase: "file pass")
        try world.sshd.authorize(key.publicLine)
        let imported = try world.home.run(
            [
                "identity", "import", "enc", key.privatePath, "--key-passphrase-fd", "0",
                "--remove-file",
            ], stdin: "file pass\n")
        XCTAssertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("stored decrypted"), imported.stdout)
        XCTAssertFalse(
            try world.vaultItems().contains { $0["family"] as? String == "identity.passphrase" },
            "the passphrase opened the key once; it is not kept")
        try world.startAgent()
        XCTAssertExit(try world.ssh(), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
    }

    func testAKeyWithALifetimeIsServedUntilItEnds() throws {
        let world = try AgentWorld()
        try world.startAgent()
        let key = try TestKey.generate(.ed25519)
        XCTAssertExit(try world.sshAdd(["-t", "4", key.privatePath]), 0)
        XCTAssertTrue(try world.sshAdd(["-l"]).stdout.contains("sshelf-test"), "served at first")
        try eventually("the key to stop being served") { try world.sshAdd(["-l"]).status == 1 }
        XCTAssertTrue(world.agentLog.contains("lifetime"), world.agentLog)
        XCTAssertEqual(try world.identities().count, 1, "the vault and the store keep it")
    }

    func testRSASignsWithSHA2AndASHA1RequestIsRefused() throws {
        let world = try AgentWorld(
            options: {
                var options = SSHD.Options()
                options.extraConfig = ["PubkeyAcceptedAlgorithms +ssh-rsa"]
                return options
            }())
        try world.startAgent()
        let key = try TestKey.generate(.rsa)
        try world.sshd.authorize(key.publicLine)
        XCTAssertExit(try world.sshAdd([key.privatePath]), 0)
        XCTAssertExit(try world.ssh(), 0)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        XCTAssertTrue(world.sshd.log.contains("RSA"), world.sshd.log)
        XCTAssertTrue(try world.releases().contains { ($0["detail"] as? String)?.contains("rsa-sha2-512") == true })

        // A client that asks for ssh-rsa (SHA-1) gets a failure, and the agent says why.
        let sha1 = try world.ssh(["-o", "PubkeyAcceptedAlgorithms=ssh-rsa"])
        XCTAssertNotEqual(sha1.status, 0, "\(sha1)")
        try world.waitForAgentLog("refused an ssh-rsa (SHA-1) signature")
        XCTAssertEqual(try world.releases().count, 1, "a refused signature is not a release")
    }

    func testALockedVaultIsRefusedUntilTheAgentGetsThePassphrase() throws {
        let world = try AgentWorld()
        let passphrase = "agent-vault-pass"
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        let made = try world.home.run(["keygen", "locked", "--passphrase-fd", "0"], stdin: passphrase + "\n")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        try world.startAgent()

        XCTAssertFalse(
            try world.sshAdd(["-l"]).stdout.contains(" locked (ED25519)"),
            "not offered while the agent cannot sign with it")
        XCTAssertNotEqual(try world.ssh().status, 0, "a whenUnlocked key in a locked vault is not used")
        // No kernel keyring here (AgentWorld): 'vault unlock' would open only its own process, so the log names
        // what reaches the agent.
        try world.waitForAgentLog(
            "not listing 'locked': the vault is locked for their class; run 'sshelf agent start --unlock' (or "
                + "'ssh-add -X') to serve them: this system keeps no unlock between processes (no kernel keyring), "
                + "so 'sshelf vault unlock' does not reach the agent")
        let status = try world.home.run(["agent", "status"]).stdout
        XCTAssertTrue(
            status.contains(
                "locked for locked (not listed until 'sshelf agent start --unlock' or 'ssh-add -X': without a kernel "
                    + "keyring, 'sshelf vault unlock' does not reach the agent)"),
            "status names what reaches it: \(status)")
        XCTAssertEqual(try world.releases().count, 0)

        // ssh-add -X with the vault passphrase gives it to this agent (ssh-add reads it through SSH_ASKPASS).
        let askpass = try world.home.write("#!/bin/sh\necho '\(passphrase)'\n", to: "askpass")
        chmod(askpass, 0o700)
        let unlock = try world.sshAdd(
            ["-X"], environment: ["SSH_ASKPASS": askpass, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"])
        XCTAssertExit(unlock, 0)
        XCTAssertTrue(try world.sshAdd(["-l"]).stdout.contains(" locked (ED25519)"), "listed once it can sign")
        XCTAssertExit(try world.ssh(), 0)

        // ssh-add -x locks the agent itself: nothing listed, nothing signed, until -X with the same passphrase.
        let lockPass = try world.home.write("#!/bin/sh\necho 'lock-it'\n", to: "lockpass")
        chmod(lockPass, 0o700)
        let askEnvironment = ["SSH_ASKPASS": lockPass, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"]
        XCTAssertExit(try world.sshAdd(["-x"], environment: askEnvironment), 0)
        XCTAssertEqual(try world.sshAdd(["-l"]).status, 1, "a locked agent lists nothing")
        XCTAssertNotEqual(try world.ssh().status, 0)
        XCTAssertNotEqual(
            try world.sshAdd(
                ["-X"], environment: ["SSH_ASKPASS": askpass, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0"]
            ).status, 0,
            "the vault passphrase does not unlock a locked agent")
        XCTAssertExit(try world.sshAdd(["-X"], environment: askEnvironment), 0)
        XCTAssertExit(try world.ssh(), 0)
    }

    func testAgentStartUnlockGivesTheAgentTheVaultPassphrase() throws {
        let world = try AgentWorld()
        XCTAssertExit(try world.home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: "start-pass\n"), 0)
        let made = try world.home.run(["keygen", "later", "--passphrase-fd", "0"], stdin: "start-pass\n")
        XCTAssertExit(made, 0)
        try world.sshd.authorize(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        try world.startAgent()
        let before = try world.home.run(["agent", "status"])
        XCTAssertTrue(before.stdout.contains("locked for later"), before.stdout)
        XCTAssertNotEqual(try world.ssh().status, 0)

        let wrong = try world.home.run(["agent", "start", "--unlock", "--passphrase-fd", "3"], fd3: "not-it")
        XCTAssertEqual(wrong.status, 1, "\(wrong)")
        XCTAssertTrue(wrong.stderr.contains("the vault passphrase is not correct"), wrong.stderr)
        let unlocked = try world.home.run(["agent", "start", "--unlock", "--passphrase-fd", "3"], fd3: "start-pass")
        XCTAssertExit(unlocked, 0)
        XCTAssertTrue(unlocked.stderr.contains("unlocked the vault in the agent (pid "), "it says so: \(unlocked)")
        XCTAssertFalse(try world.home.run(["agent", "status"]).stdout.contains("locked for"))
        XCTAssertExit(try world.ssh(), 0)
    }

    func testAnotherUserIsRefusedAndLogged() throws {
        guard getuid() == 0 else { throw skipped("needs root to run a client as another user (nobody)") }
        let world = try AgentWorld()
        XCTAssertExit(try world.home.run("keygen", "mine"), 0)
        try world.startAgent()
        // Open the folders and the socket to everyone, so only the agent's own uid check stands in the way.
        let opened = [world.home.sshelfHome, world.home.sshelfHome + "/run", world.agentDirectory]
        for directory in opened { chmod(directory, 0o711) }
        chmod(world.socket, 0o666)
        defer {
            for directory in opened { chmod(directory, 0o700) }
            chmod(world.socket, 0o600)
        }
        let nobody = try world.tool(
            TestTool.setpriv.path,
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                TestTool.sshAdd.path, "-l",
            ])
        XCTAssertNotEqual(nobody.status, 0, "\(nobody)")
        XCTAssertFalse(nobody.stdout.contains("mine"), "no key was listed to another user")
        try world.waitForAgentLog("refused a connection from uid 65534")
        XCTAssertExit(try world.sshAdd(["-l"]), 0)
    }

    func testStatusStartStopAndPrintEnv() throws {
        let world = try AgentWorld()
        XCTAssertEqual(try world.home.run(["agent", "status"]).status, 3, "not running")
        XCTAssertEqual(
            try world.home.run(["agent", "--print-env"]).stdout,
            "SSH_AUTH_SOCK=\(world.socket); export SSH_AUTH_SOCK;\n")
        XCTAssertExit(try world.home.run("keygen", "one"), 0)
        try world.startAgent()
        let again = try world.home.run(["agent", "start", "--print-env"])
        XCTAssertExit(again, 0)
        XCTAssertEqual(
            again.stdout, "SSH_AUTH_SOCK=\(world.socket); export SSH_AUTH_SOCK;\n", "already running: prints where")
        let status = try world.home.run(["agent", "status"])
        XCTAssertExit(status, 0)
        XCTAssertTrue(status.stdout.contains(world.socket), status.stdout)
        XCTAssertTrue(status.stdout.contains("keys       1: one"), status.stdout)
        XCTAssertTrue(status.stdout.contains("locked     no"), status.stdout)
        let json = try world.home.run(["agent", "status", "--json"])
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["running"] as? Bool, true)
        let agent = try XCTUnwrap(parsed["agent"] as? [String: Any])
        let pid = try XCTUnwrap(agent["pid"] as? Int)
        XCTAssertEqual(agent["keys"] as? [String], ["one"])
        XCTAssertEqual(kill(pid_t(pid), 0), 0, "the pid is a live process")
        // A second foreground agent refuses to take the socket over.
        let second = try world.home.run(["agent"])
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("already running (pid \(pid))"), second.stderr)
        XCTAssertExit(try world.home.run(["agent", "stop"]), 0)
        try eventually("the agent process to end") { kill(pid_t(pid), 0) != 0 }
        XCTAssertEqual(try world.home.run(["agent", "status"]).status, 3)
    }
}

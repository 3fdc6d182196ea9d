// CopyIDTests: `sshelf copy-id` against the real sshd — the test account gets its own home for this test (sshd's
// SetEnv HOME, and AuthorizedKeysFile pointing into it), logs in by password once, and afterwards OpenSSH's
// `ssh -i KEY` logs in with the installed key. Twice adds one line; a file without a final newline stays intact;
// a comment full of shell syntax is written as it is.
import Foundation
import TestSupport
import XCTest

final class CopyIDTests: XCTestCase {
    struct Remote {
        let world: SSHCLIWorld
        let home: String
        var sshDirectory: String { home + "/.ssh" }
        var authorizedKeys: String { sshDirectory + "/authorized_keys" }
    }

    /// A host "t" that logs in by password, as sshelftest with a private home.
    func remote() throws -> Remote {
        let home = TestScratch.root + "/remote-home-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try Shell.run(TestTool.chown.path, [TestAccount.name, home])
        var options = SSHD.Options()
        options.extraConfig = [
            "Match User \(TestAccount.name)", "  SetEnv HOME=\(home)",
            "  AuthorizedKeysFile \(home)/.ssh/authorized_keys",
        ]
        let world = try SSHCLIWorld(options: options)
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try world.home.run("edit", "t", "--auth", "password", "--identity", ""), 0)
        return Remote(world: world, home: home)
    }

    func ssh(_ remote: Remote, key: String) throws -> CLIResult {
        try CLI.run(
            [
                "-c", "exec \"$0\" \"$@\"", TestTool.ssh.path, "-F", "none", "-i", key, "-o", "IdentitiesOnly=yes",
                "-o", "IdentityAgent=none", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "BatchMode=yes", "-o", "PreferredAuthentications=publickey", "-o", "LogLevel=ERROR",
                "-p", String(remote.world.sshd.port), "\(TestAccount.name)@127.0.0.1", "echo", "in",
            ],
            environment: remote.world.home.environment, shell: true)
    }

    func copyID(_ remote: Remote, _ extra: [String]) throws -> CLIResult {
        try remote.world.home.run(
            ["copy-id", "t", "--accept-new", "--password-fd", "3"] + extra, fd3: TestAccount.password)
    }

    func testTwiceAddsOneLineAndTheKeyThenLogsIn() throws {
        let remote = try remote()
        let key = try TestKey.generate(.ed25519)
        XCTAssertExit(try remote.world.home.run(["identity", "import", "laptop", key.privatePath]), 0)
        XCTAssertNotEqual(try ssh(remote, key: key.privatePath).status, 0, "not authorized yet")

        let first = try copyID(remote, ["--identity", "laptop"])
        XCTAssertExit(first, 0)
        XCTAssertTrue(first.stdout.contains("installed identity 'laptop'"), first.stdout)
        let second = try copyID(remote, ["--identity", "laptop"])
        XCTAssertExit(second, 0)
        XCTAssertTrue(second.stdout.contains("already has identity 'laptop'"), second.stdout)

        let lines = try String(contentsOfFile: remote.authorizedKeys, encoding: .utf8)
        XCTAssertEqual(lines, key.publicLine + "\n", "one line, the .pub as written")
        XCTAssertEqual(AgentWorld.mode(remote.sshDirectory), 0o700)
        XCTAssertEqual(AgentWorld.mode(remote.authorizedKeys), 0o600)
        let owner =
            try FileManager.default.attributesOfItem(atPath: remote.authorizedKeys)[.ownerAccountName] as? String
        XCTAssertEqual(owner, TestAccount.name)

        let login = try ssh(remote, key: key.privatePath)
        XCTAssertExit(login, 0)
        XCTAssertEqual(login.stdout, "in\n")
        // The password came on a descriptor, not from the vault: nothing was released, nothing logged.
        let logged = try JSONSerialization.jsonObject(
            with: Data(try remote.world.home.run(["log", "--json"]).stdout.utf8))
        XCTAssertEqual((logged as? [Any])?.count, 0)
    }

    func testAPasswordFromTheVaultIsAReleaseLoggedAsCopyID() throws {
        let remote = try remote()
        XCTAssertExit(
            try remote.world.home.run(["vault", "set-password", "t", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        let key = try TestKey.generate(.ed25519)
        XCTAssertExit(try remote.world.home.run(["identity", "import", "laptop", key.privatePath]), 0)
        XCTAssertExit(try remote.world.home.run(["copy-id", "t", "--accept-new", "--identity", "laptop"]), 0)
        XCTAssertExit(try ssh(remote, key: key.privatePath), 0)
        let logged =
            try JSONSerialization.jsonObject(
                with: Data(try remote.world.home.run(["log", "--json"]).stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(logged?.count, 1, "\(String(describing: logged))")
        XCTAssertEqual(logged?.first?["by"] as? String, "copy-id")
        XCTAssertEqual(logged?.first?["what"] as? String, "password")
        XCTAssertEqual(logged?.first?["host"] as? String, "t")
        XCTAssertExit(try remote.world.home.run(["log", "verify"]), 0)
    }

    func testAnExistingFileKeepsItsLinesAndAnyCommentIsWrittenAsItIs() throws {
        let remote = try remote()
        try FileManager.default.createDirectory(atPath: remote.sshDirectory, withIntermediateDirectories: true)
        let other = try TestKey.generate(.ecdsa)
        // No final newline; the same key as ours already present under other options must count as present.
        let existing = "# keep me\nfrom=\"127.0.0.1\" \(other.publicLine)"
        try existing.write(toFile: remote.authorizedKeys, atomically: false, encoding: .utf8)
        chmod(remote.authorizedKeys, 0o640)
        try Shell.run(TestTool.chown.path, ["-R", TestAccount.name, remote.sshDirectory])

        let key = try TestKey.generate(.ed25519)
        let pubParts = key.publicLine.split(separator: " ")
        let hostile = "\(pubParts[0]) \(pubParts[1]) it's $(touch /tmp/pwned-sshelf) `id` \"quoted\" ; rm -rf ~ \\"
        try (hostile + "\n").write(toFile: key.privatePath + ".pub", atomically: true, encoding: .utf8)
        XCTAssertExit(try remote.world.home.run(["identity", "import", "odd", key.privatePath]), 0)
        XCTAssertEqual(try remote.world.home.run(["identity", "show", "odd"]).stdout, hostile + "\n")
        XCTAssertExit(try copyID(remote, ["--identity", "odd"]), 0)

        let text = try String(contentsOfFile: remote.authorizedKeys, encoding: .utf8)
        XCTAssertEqual(text, existing + "\n" + hostile + "\n", "the old lines kept, the new one on a line of its own")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/pwned-sshelf"), "nothing in the comment ran")
        XCTAssertEqual(AgentWorld.mode(remote.authorizedKeys), 0o640, "an existing file keeps its mode")

        // The other key, under an options prefix, is recognised as present.
        XCTAssertExit(try remote.world.home.run(["identity", "import", "other", other.privatePath]), 0)
        let present = try copyID(remote, ["--identity", "other"])
        XCTAssertTrue(present.stdout.contains("already has"), present.stdout)
        XCTAssertExit(try ssh(remote, key: key.privatePath), 0)
    }

    func testAHostWithoutAnIdentityNeedsOne() throws {
        let remote = try remote()
        let result = try copyID(remote, [])
        XCTAssertEqual(result.status, 2, "\(result)")
        XCTAssertTrue(result.stderr.contains("--identity NAME"), result.stderr)
    }

    func testCInTheTUIInstallsTheHostsIdentity() throws {
        let remote = try remote()
        let key = try TestKey.generate(.ed25519)
        XCTAssertExit(try remote.world.home.run(["identity", "import", "laptop", key.privatePath]), 0)
        XCTAssertExit(try remote.world.home.run("edit", "t", "--identity", "laptop"), 0)
        XCTAssertExit(
            try remote.world.home.run("trust", "t", "--fingerprint", try remote.world.fingerprint(remote.world.sshd)), 0
        )
        let tui = try Tmux(home: remote.world.home, columns: 120, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("c")
        try tui.waitFor(text: "'s password:")
        try tui.type(TestAccount.password)
        try tui.send("Enter")
        try tui.waitFor(text: "installed identity 'laptop' in ~/.ssh/authorized_keys on t")
        XCTAssertEqual(try String(contentsOfFile: remote.authorizedKeys, encoding: .utf8), key.publicLine + "\n")
        XCTAssertExit(try ssh(remote, key: key.privatePath), 0)
        try tui.send("q")
        try tui.waitFor("the TUI to quit") { _ in (try? tui.exitStatus()) != nil }
    }

    /// From the TUI's identity list: `c` asks which host, the login asks the host's password in the TUI, and the
    /// selected key (not the host's own: it has none) is installed — OpenSSH then logs in with it.
    func testTheTUIIdentityListInstallsTheSelectedKeyOnTheHostTyped() throws {
        let remote = try remote()
        let home = remote.world.home
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try remote.world.fingerprint(remote.world.sshd)), 0)
        let key = try TestKey.generate(.ed25519)
        XCTAssertExit(try home.run(["identity", "import", "laptop", key.privatePath]), 0)
        let tui = try Tmux(home: home, columns: 120, rows: 30)
        try tui.waitFor(text: "1 host")
        try tui.send("I")
        try tui.waitFor(text: "laptop")
        try tui.send("j")  // past the world's own id_ed25519
        try tui.send("c")
        try tui.waitFor(text: "Install laptop on a host")
        try tui.type("nosuch")
        try tui.send("Enter")
        try tui.waitFor(text: "no host is named 'nosuch'")
        try tui.send("C-u")
        try tui.type("t")
        try tui.send("Enter")
        try tui.waitFor(text: "'s password:")
        try tui.type(TestAccount.password)
        try tui.send("Enter")
        try tui.waitFor(text: "installed identity 'laptop' in ~/.ssh/authorized_keys on t")
        XCTAssertExit(try ssh(remote, key: key.privatePath), 0)
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }
}

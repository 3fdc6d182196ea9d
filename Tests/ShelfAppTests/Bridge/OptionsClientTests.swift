// OptionsClientTests: the kept options sshelf's own client honours, against the real sshd — keepalives that end a
// session whose server stopped answering (the sshd session paused with SIGSTOP), method preferences the sshd log
// shows, compression, SetEnv/SendEnv where sshd accepts them, StrictHostKeyChecking (never weaker for a changed key),
// IdentityFile order, ConnectTimeout; what it cannot do is named once, and `connect --openssh` runs the real ssh
// with ForwardAgent and the sshelf agent.
import Foundation
import TestSupport
import XCTest

final class OptionsClientTests: XCTestCase {
    func testKeepalivesEndASessionWhoseServerStoppedAnswering() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        try world.addHost("t", on: server, options: ["ServerAliveInterval 1", "ServerAliveCountMax 2"])
        let running = try BackgroundCLI(world.home, ["exec", "t", "-n", "--", "sleep 600"])
        XCTAssertTrue(server.waitForLog("Starting session: command"), server.log)
        // Answered keepalives keep a quiet session alive.
        XCTAssertTrue(server.waitForLog("rtype keepalive@", count: 2), server.log)
        let paused = try server.sessionPIDs()
        XCTAssertFalse(paused.isEmpty)
        for pid in paused { kill(pid, SIGSTOP) }
        defer {
            for pid in paused { kill(pid, SIGCONT) }
            _ = try? server.killSessions()
        }
        let status = try running.waitExit()
        XCTAssertEqual(status, 255)
        XCTAssertTrue(running.stderr.contains("t stopped answering: nothing came back for"), running.stderr)
        XCTAssertTrue(running.stderr.contains("ServerAliveInterval 1, ServerAliveCountMax 2"), running.stderr)
    }

    func testMethodPreferencesAndCompressionReachTheServer() throws {
        let world = try BridgeWorld()
        var options = SSHD.Options()
        options.hostKeyTypes = [.ed25519, .ecdsa]
        let server = try world.server(options)
        XCTAssertExit(
            try world.home.run([
                "add", "t", "--host", "127.0.0.1", "--port", String(server.port), "--user", "sshelftest", "--identity",
                "vaultkey",
                "--option", "KexAlgorithms ecdh-sha2-nistp384", "--option", "HostKeyAlgorithms ecdsa-sha2-nistp256",
                "--option", "Ciphers aes256-ctr", "--option", "MACs hmac-sha2-512", "--option", "Compression yes",
            ]), 0)
        let ran = try world.home.run(["exec", "t", "--accept-new", "--", "echo", "negotiated"])
        XCTAssertExit(ran, 0)
        XCTAssertEqual(ran.stdout, "negotiated\n")
        XCTAssertTrue(server.waitForLog("kex: algorithm: ecdh-sha2-nistp384"), server.log)
        XCTAssertTrue(server.log.contains("kex: host key algorithm: ecdsa-sha2-nistp256"), server.log)
        XCTAssertTrue(
            server.log.contains("kex: client->server cipher: aes256-ctr MAC: hmac-sha2-512 compression: zlib"),
            server.log)
        // The key that was accepted (and pinned) is the ECDSA one the option asked for.
        let ecdsa = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", server.directory + "/ssh_host_ecdsa_key.pub"])
        XCTAssertTrue(
            try world.home.run(["show", "t"]).stdout.contains(
                "host key       ecdsa-sha2-nistp256 \(ecdsa.split(separator: " ")[1]) pinned"))

        // What the loaded library has decides, as the product asks it at run time (`version --verbose` lists its
        // ciphers): chacha20-poly1305 is in libssh2 1.11, not in 1.10, where naming only it is a clear error naming
        // the option (ssh itself accepts it).
        let verbose = try world.home.run(["version", "--verbose"]).stdout
        let ciphers = try XCTUnwrap(verbose.split(separator: "\n").first { $0.hasPrefix("  ciphers: ") }, verbose)
        XCTAssertExit(try world.home.run(["edit", "t", "--option", "Ciphers chacha20-poly1305@openssh.com"]), 0)
        let chacha = try world.home.run(["exec", "t", "--", "echo", "chacha"])
        if ciphers.contains("chacha20-poly1305@openssh.com") {
            XCTAssertExit(chacha, 0)
            XCTAssertEqual(chacha.stdout, "chacha\n")
            XCTAssertTrue(server.waitForLog("kex: client->server cipher: chacha20-poly1305@openssh.com"), server.log)
        } else {
            XCTAssertExit(chacha, 255)
            XCTAssertTrue(
                chacha.stderr.contains("Ciphers chacha20-poly1305@openssh.com leaves nothing libssh2"),
                chacha.stderr)
            XCTAssertTrue(chacha.stderr.contains("--openssh"), chacha.stderr)
        }
        // A list with nothing either library can do (libssh2 has no UMAC) is that error on both.
        XCTAssertExit(
            try world.home.run([
                "edit", "t", "--option", "Ciphers aes256-ctr",
                "--option", "MACs umac-128@openssh.com",
            ]), 0)
        let refused = try world.home.run(["exec", "t", "--", "true"])
        XCTAssertExit(refused, 255)
        XCTAssertTrue(refused.stderr.contains("MACs umac-128@openssh.com leaves nothing libssh2"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--openssh"), refused.stderr)
    }

    func testEnvironmentOptionsWhereTheServerAcceptsThem() throws {
        let world = try BridgeWorld()
        var options = SSHD.Options()
        options.extraConfig = ["AcceptEnv SSHELF_*"]
        let server = try world.server(options)
        try world.addHost(
            "t", on: server, options: ["SetEnv SSHELF_SET=\"from setenv\" OTHER_SET=refused", "SendEnv SSHELF_SENT"])
        world.home.extraEnvironment["SSHELF_SENT"] = "from sendenv"
        world.home.extraEnvironment["SSHELF_NOT_SENT"] = "stays here"
        let ran = try world.home.run([
            "exec", "t", "--", "echo \"$SSHELF_SET|$SSHELF_SENT|$SSHELF_NOT_SENT|$OTHER_SET\"",
        ])
        XCTAssertExit(ran, 0)
        XCTAssertEqual(ran.stdout, "from setenv|from sendenv||\n")
    }

    /// The CLI path, not only the transport: a host's ProxyCommand option (from `--option`, as an import keeps it)
    /// carries `sshelf exec`, its tokens expanded (the command leaves a mark naming what it was given).
    func testAHostsProxyCommandCarriesExec() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        let mark = world.home.root + "/proxy-ran"
        try world.addHost("t", on: server)
        XCTAssertExit(
            try world.home.run([
                "edit", "t", "--option",
                "ProxyCommand sh -c 'echo %n %r %h %p > \(mark); exec \(TestTool.nc.path) %h %p'",
            ]), 0)
        let ran = try world.home.run(["exec", "t", "-n", "--", "echo", "through the proxy"])
        XCTAssertExit(ran, 0)
        XCTAssertEqual(ran.stdout, "through the proxy\n")
        XCTAssertEqual(
            try String(contentsOfFile: mark, encoding: .utf8),
            "t \(TestAccount.name) \(server.options.listenAddress) \(server.port)\n")
    }

    func testRequestTTYForceGivesExecATerminal() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        try world.addHost("plain", on: server)
        try world.addHost("forced", on: server, options: ["RequestTTY force"])
        let without = try world.home.run(["exec", "plain", "-n", "--", "tty"])
        XCTAssertEqual(without.stdout, "not a tty\n", "\(without)")
        let with = try world.home.run(["exec", "forced", "-n", "--", "tty"])
        XCTAssertExit(with, 0)
        XCTAssertTrue(with.stdout.hasPrefix("/dev/pts/"), "RequestTTY force: the command has a PTY: \(with)")
    }

    func testStrictHostKeyCheckingNeverWeakensTheChangedKeyRule() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        XCTAssertExit(
            try world.home.run([
                "add", "t", "--host", "127.0.0.1", "--port", String(server.port), "--user", "sshelftest", "--identity",
                "vaultkey",
                "--option", "StrictHostKeyChecking yes",
            ]), 0)
        let strict = try world.home.run(["exec", "t", "--", "true"])
        XCTAssertExit(strict, 255)
        XCTAssertTrue(strict.stderr.contains("is not known"), strict.stderr)

        // accept-new: a new key is taken and pinned without a question.
        XCTAssertExit(try world.home.run(["edit", "t", "--option", "StrictHostKeyChecking accept-new"]), 0)
        XCTAssertExit(try world.home.run(["exec", "t", "--", "true"]), 0)
        let key = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", server.directory + "/ssh_host_ed25519_key.pub"])
        XCTAssertTrue(
            try world.home.run(["show", "t"]).stdout.contains("ssh-ed25519 \(key.split(separator: " ")[1]) pinned"))

        // "no" takes unknown keys too, but a changed key stays a hard failure.
        XCTAssertExit(try world.home.run(["edit", "t", "--option", "StrictHostKeyChecking no"]), 0)
        let impostor = try world.server()
        XCTAssertExit(try world.home.run(["edit", "t", "--port", String(impostor.port)]), 0)
        let changed = try world.home.run(["exec", "t", "--", "true"])
        XCTAssertExit(changed, 255)
        XCTAssertTrue(changed.stderr.contains("has CHANGED"), changed.stderr)
    }

    func testIdentityFilesAreTriedInOrderAndTimeoutsComeFromTheHost() throws {
        let world = try BridgeWorld()
        let fileKey = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.passwordAuthentication = false
        options.authorizedKeys = [fileKey.publicLine]
        let server = try SSHD.start(options)  // accepts only the file key, not the vault one
        XCTAssertExit(
            try world.home.run([
                "add", "t", "--host", "127.0.0.1", "--port", String(server.port), "--user", "sshelftest", "--identity",
                "vaultkey",
                "--option", "IdentityFile /nonexistent/first", "--option", "IdentityFile \(fileKey.privatePath)",
                "--option", "StrictHostKeyChecking accept-new",
            ]), 0)
        XCTAssertExit(try world.home.run(["exec", "t", "--", "true"]), 0)
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)
        XCTAssertEqual(
            server.logCount("Failed publickey"), 1, "the vault key first, then the file that exists:\n\(server.log)")

        let silent = try SilentListener()
        XCTAssertExit(
            try world.home.run([
                "add", "slow", "--host", "127.0.0.1", "--port", String(silent.port),
                "--option", "ConnectTimeout 1",
            ]), 0)
        let slow = try world.home.run(["exec", "slow", "--", "true"])
        XCTAssertExit(slow, 255)
        XCTAssertTrue(slow.stderr.contains("the SSH handshake with slow timed out (no answer within 1 s)"), slow.stderr)
    }

    func testWhatOnlyOpenSSHCanDoIsNamedAndHandedOverWithTheAgent() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        try world.addHost("t", on: server, options: ["ForwardAgent yes", "ControlMaster auto", "ControlPath none"])
        try world.addHost("c", on: server, options: ["ControlMaster auto", "ControlPath none"])

        // sshelf's own client connects without them, and says so once, naming them.
        let own = try world.home.run(["connect", "c"], stdin: "exit\n")
        XCTAssertExit(own, 0)
        XCTAssertEqual(own.stderr.components(separatedBy: "sshelf: note:").count - 1, 1, own.stderr)
        XCTAssertTrue(own.stderr.contains("c sets ControlMaster, which sshelf's own client"), own.stderr)
        XCTAssertTrue(own.stderr.contains("sshelf connect c --openssh"), own.stderr)

        // --openssh: the real ssh, through the bridge, with the sshelf agent started for the vault key and forwarded.
        let plan = try world.home.run(["connect", "t", "--openssh", "--dry-run"])
        XCTAssertExit(plan, 0)
        XCTAssertTrue(
            plan.stdout.contains("SSH_AUTH_SOCK=\(world.agentSocket) /usr/bin/ssh -F \(world.bridge) t"), plan.stdout)
        let handed = try world.home.run(["connect", "t", "--openssh"], stdin: "ssh-add -l; exit 7\n")
        defer { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertEqual(handed.status, 7, "ssh's exit status is ours: \(handed)")
        XCTAssertTrue(handed.stderr.contains("started the sshelf agent"), handed.stderr)
        XCTAssertTrue(handed.stdout.contains(" vaultkey (ED25519)"), "the forwarded agent is sshelf's: \(handed)")
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)
        XCTAssertFalse(handed.stdout.contains("note:") || handed.stderr.contains("sshelf: note:"), "\(handed)")

        // Without --openssh, ForwardAgent hands the session over by itself, saying why in one line.
        let asked = try world.home.run(["connect", "t"], stdin: "ssh-add -l; exit 7\n")
        XCTAssertEqual(asked.status, 7, "\(asked)")
        XCTAssertEqual(asked.stderr.components(separatedBy: "sshelf: note:").count - 1, 1, asked.stderr)
        XCTAssertTrue(
            asked.stderr.contains("sshelf: note: t sets ForwardAgent, which sshelf's own client"), asked.stderr)
        XCTAssertTrue(asked.stdout.contains(" vaultkey (ED25519)"), "\(asked)")
    }
}

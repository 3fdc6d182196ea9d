// HostCertificateTests: host certificates through sshelf's own client against a real sshd with HostCertificate —
// trusted through a `@cert-authority` line or a CA pin (`trust --ca`) with no prompt and no pin; a certificate for
// another name, an expired one, a revoked CA and a CA line for other hosts all refused before any authentication.
import Foundation
import ShelfStore
import TestSupport
import XCTest

final class HostCertificateTests: XCTestCase {
    /// A world whose sshd serves host certificates signed by a fresh CA, and that CA's public key line.
    private func world(principals: [String] = ["127.0.0.1"], validity: String = "-5m:+1h") throws
        -> (world: SSHCLIWorld, caLine: String)
    {
        let ca = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.hostKeyTypes = [.ed25519, .ecdsa]
        options.hostCertificate = SSHD.HostCertificate(
            caPrivatePath: ca.privatePath, principals: principals, validity: validity)
        let world = try SSHCLIWorld(options: options)
        return (world, ca.publicLine.split(separator: " ").prefix(2).joined(separator: " "))
    }

    private func userKnownHosts(_ world: SSHCLIWorld, _ lines: [String]) throws {
        _ = try world.home.write(lines.joined(separator: "\n") + "\n", to: ".ssh/known_hosts")
    }

    /// The refusal came before any authentication: the server saw no userauth request.
    private func assertNothingSent(_ world: SSHCLIWorld, file: StaticString = #filePath, line: UInt = #line) {
        world.sshd.waitForConnectionsEnded()
        XCTAssertFalse(world.sshd.log.contains("userauth-request"), world.sshd.log, file: file, line: line)
    }

    func testACertifiedHostIsTrustedThroughItsCAWithoutAPrompt() throws {
        let (world, caLine) = try world()
        try userKnownHosts(world, ["@cert-authority [127.0.0.1]:* \(caLine)"])
        // No terminal and no --accept-new: an unknown key would be refused; the CA vouches for this one.
        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "certified")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "certified\n")
        XCTAssertTrue(exec.stderr.contains("host certificate (serial 7"), exec.stderr)
        XCTAssertTrue(exec.stderr.contains("@cert-authority line in ~/.ssh/known_hosts"), exec.stderr)
        // The CA is what is trusted: the key is not pinned, so the host may rotate it under a new certificate.
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.knownHostsPath), "no key was pinned")
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        XCTAssertEqual(try world.home.run("show", "t").stdout.contains("(not pinned)"), true)
    }

    /// `connect -v` says the certificate vouched (which CA, serial, principal, until when); `show` and the details
    /// say it after, until a session trusted otherwise.
    func testShowAndConnectSayACertificateVouchedForTheKey() throws {
        let (world, caLine) = try world()
        try userKnownHosts(world, ["@cert-authority [127.0.0.1]:* \(caLine)"])
        let caFingerprint = try XCTUnwrap(
            try Shell.run(
                TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", world.home.write(caLine, to: "ca.pub")]
            )
            .split(separator: " ").dropFirst().first.map(String.init))
        XCTAssertFalse(try world.home.run("show", "t").stdout.contains("host cert"), "never connected")
        let connect = try world.home.run(["connect", "t", "-v"], stdin: "exit\n")
        XCTAssertExit(connect, 0)
        XCTAssertTrue(
            connect.stderr.contains(
                "is vouched for by a host certificate (serial 7, principal 127.0.0.1, valid until "),
            connect.stderr)
        XCTAssertTrue(connect.stderr.contains("signed by the CA \(caFingerprint)"), connect.stderr)
        let shown = try world.home.run("show", "t").stdout
        XCTAssertTrue(
            shown.contains("host cert      key vouched for by a host certificate (serial 7, principal 127.0.0.1, "),
            shown)
        XCTAssertTrue(shown.contains("signed by the CA \(caFingerprint)"), shown)
        XCTAssertTrue(shown.contains("(its last session from this device)"), shown)
        // What the TUI's details pane reads (`Catalog.hostCertificates`).
        let store = try Store(path: world.home.sshelfHome + "/data/store.sqlite")
        XCTAssertEqual(try store.lastHostCertificates().values.first?.contains("serial 7, principal 127.0.0.1"), true)

        // Pinned from now on: the next session is trusted by the pin, and the certificate line goes.
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        XCTAssertFalse(try world.home.run("show", "t").stdout.contains("host cert"))
    }

    func testTrustCAPinsTheCAAndItVouchesForTheHost() throws {
        let (world, caLine) = try world()
        let caFile = try world.home.write(caLine + "\n", to: "team_ca.pub")
        let missing = try world.home.run("trust", "--ca", caFile)
        XCTAssertExit(missing, 2)
        XCTAssertTrue(missing.stderr.contains("needs --hosts PATTERN"), missing.stderr)
        let garbage = try world.home.run("trust", "--ca", "not a key", "--hosts", "*")
        XCTAssertExit(garbage, 4)
        XCTAssertTrue(garbage.stderr.contains("neither a public key line nor a file"), garbage.stderr)
        let badPattern = try world.home.run("trust", "--ca", caFile, "--hosts", "a b")
        XCTAssertExit(badPattern, 4)
        XCTAssertTrue(badPattern.stderr.contains("is not a list of host patterns"), badPattern.stderr)

        let trusted = try world.home.run("trust", "--ca", caFile, "--hosts", "[127.0.0.1]:*")
        XCTAssertExit(trusted, 0)
        XCTAssertTrue(trusted.stdout.contains("trusting the CA ssh-ed25519 SHA256:"), trusted.stdout)
        let again = try world.home.run("trust", "--ca", caLine, "--hosts", "[127.0.0.1]:*")
        XCTAssertExit(again, 0)
        XCTAssertTrue(again.stdout.contains("(pinned already)"), again.stdout)
        // A CA pin is a store record (it syncs): sshelf's known_hosts is not written.
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.knownHostsPath))
        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "certified")
        XCTAssertExit(exec, 0)
        XCTAssertTrue(exec.stderr.contains("pinned in sshelf's CA pins"), exec.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.knownHostsPath), "no key was pinned")

        // A `@cert-authority` line an older sshelf wrote to its known_hosts still vouches; --remove takes both.
        XCTAssertExit(try world.home.run("trust", "--ca", caLine, "--remove"), 0)
        try "@cert-authority [127.0.0.1]:* \(caLine)\n".write(
            toFile: world.knownHostsPath, atomically: true, encoding: .utf8)
        let fromLine = try world.home.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(fromLine, 0)
        XCTAssertTrue(fromLine.stderr.contains("@cert-authority line in sshelf's known_hosts"), fromLine.stderr)
        XCTAssertExit(try world.home.run("trust", "--ca", caLine, "--remove"), 0)
        XCTAssertEqual(try String(contentsOfFile: world.knownHostsPath, encoding: .utf8), "")
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: world.knownHostsPath)[.posixPermissions] as? Int, 0o600)
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 255)
        let none = try world.home.run("trust", "--ca", caLine, "--remove")
        XCTAssertExit(none, 3)
        XCTAssertTrue(none.stderr.contains("is not trusted"), none.stderr)
    }

    /// Behind a jump host the target's certificate is read through the jump (a second direct-tcpip channel of the
    /// verified jump session: the target's log shows the probe's version line and no other client, ssh-keyscan's
    /// from this machine) and checked as a direct target's is, bound to the key the inner handshake through the jump
    /// proved: the right name trusted with no prompt, a wrong principal refused before any credential reaches it.
    func testBehindAJumpHostTheTargetsCertificateIsChecked() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        let ca = try TestKey.generate(.ed25519)
        let caLine = ca.publicLine.split(separator: " ").prefix(2).joined(separator: " ")
        try userKnownHosts(world, ["@cert-authority * \(caLine)"])
        func inner(_ principals: [String], address: String) throws -> SSHD {
            var options = SSHD.Options()
            options.authorizedKeys = [world.key.publicLine]
            options.listenAddress = address
            options.hostCertificate = SSHD.HostCertificate(
                caPrivatePath: ca.privatePath, principals: principals, validity: "-5m:+1h")
            return try SSHD.start(options)
        }
        let good = try inner(["127.0.0.3"], address: "127.0.0.3")
        try world.addHost("good", good, extra: "  ProxyJump t")
        let exec = try world.home.run("exec", "good", "--no-stdin", "--", "echo", "via jump")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "via jump\n")
        XCTAssertTrue(
            exec.stderr.contains("vouched for by a host certificate (serial 7, principal 127.0.0.3"), exec.stderr)
        XCTAssertTrue(good.log.contains("remote software version sshelf_certificate_probe"), good.log)
        XCTAssertFalse(good.log.contains("remote software version OpenSSH"), good.log)
        XCTAssertTrue(world.sshd.log.contains("direct-tcpip"), world.sshd.log)

        let wrong = try inner(["db.example.org"], address: "127.0.0.4")
        try world.addHost("wrong", wrong, extra: "  ProxyJump t")
        let refused = try world.home.run("exec", "wrong", "--no-stdin", "--", "true")
        XCTAssertExit(refused, 255)
        XCTAssertTrue(refused.stderr.contains("it is for db.example.org, not for 127.0.0.4"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nothing was sent"), refused.stderr)
        wrong.waitForConnectionsEnded()
        XCTAssertFalse(wrong.log.contains("userauth-request"), wrong.log)
    }

    /// Behind a ProxyCommand the certificate is read through the command (run once more for it), not from the
    /// address: the host's name resolves nowhere (`.invalid`), so only the command reaches its sshd. Trusted with no
    /// prompt; the same server named otherwise than its certificate says is refused before any credential.
    func testBehindAProxyCommandTheCertificateIsReadThroughTheCommand() throws {
        let world = try SSHCLIWorld()
        let ca = try TestKey.generate(.ed25519)
        let caLine = ca.publicLine.split(separator: " ").prefix(2).joined(separator: " ")
        try userKnownHosts(world, ["@cert-authority * \(caLine)"])
        var options = SSHD.Options()
        options.authorizedKeys = [world.key.publicLine]
        options.listenAddress = "127.0.0.3"
        options.hostCertificate = SSHD.HostCertificate(
            caPrivatePath: ca.privatePath, principals: ["hidden.invalid"], validity: "-5m:+1h")
        let hidden = try SSHD.start(options)
        func add(_ name: String, hostName: String) throws {
            let config = try world.home.write(
                """
                Host \(name)
                  HostName \(hostName)
                  Port \(hidden.port)
                  User \(TestAccount.name)
                  IdentityFile \(world.key.privatePath)
                  ProxyCommand \(TestTool.nc.path) 127.0.0.3 \(hidden.port)
                """, to: ".ssh/config-\(name)")
            XCTAssertExit(try world.home.run("import", "ssh-config", config), 0)
        }
        try add("hidden", hostName: "hidden.invalid")
        let exec = try world.home.run("exec", "hidden", "--no-stdin", "--", "echo", "via the command")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "via the command\n")
        XCTAssertTrue(
            exec.stderr.contains("vouched for by a host certificate (serial 7, principal hidden.invalid"), exec.stderr)
        XCTAssertTrue(hidden.log.contains("remote software version sshelf_certificate_probe"), hidden.log)

        hidden.waitForConnectionsEnded(2)  // the probe's and the login's
        let logins = hidden.log.components(separatedBy: "userauth-request").count
        try add("misnamed", hostName: "other.invalid")
        let refused = try world.home.run("exec", "misnamed", "--no-stdin", "--", "true")
        XCTAssertExit(refused, 255)
        XCTAssertTrue(refused.stderr.contains("it is for hidden.invalid, not for other.invalid"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nothing was sent"), refused.stderr)
        hidden.waitForConnectionsEnded(4)
        XCTAssertEqual(hidden.log.components(separatedBy: "userauth-request").count, logins, hidden.log)
    }

    func testACertificateForAnotherNameIsRefused() throws {
        let (world, caLine) = try world(principals: ["db.example.org"])
        try userKnownHosts(world, ["@cert-authority * \(caLine)"])
        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(exec, 255)
        XCTAssertTrue(exec.stderr.contains("it is for db.example.org, not for 127.0.0.1"), exec.stderr)
        XCTAssertTrue(exec.stderr.contains("nothing was sent"), exec.stderr)
        assertNothingSent(world)
    }

    func testAnExpiredCertificateIsRefused() throws {
        let (world, caLine) = try world(validity: "-2d:-1d")
        try userKnownHosts(world, ["@cert-authority * \(caLine)"])
        let exec = try world.home.run("exec", "t", "--no-stdin", "--accept-new", "--", "true")
        XCTAssertExit(exec, 255)
        XCTAssertTrue(exec.stderr.contains("it expired at "), exec.stderr)
        assertNothingSent(world)
    }

    func testARevokedCAIsRefused() throws {
        let (world, caLine) = try world()
        try userKnownHosts(world, ["@cert-authority * \(caLine)", "@revoked * \(caLine)"])
        let exec = try world.home.run("exec", "t", "--no-stdin", "--accept-new", "--", "true")
        XCTAssertExit(exec, 255)
        XCTAssertTrue(exec.stderr.contains("is @revoked"), exec.stderr)
        assertNothingSent(world)
    }

    func testACALineForOtherHostsDoesNotVouch() throws {
        let (world, caLine) = try world()
        try userKnownHosts(world, ["@cert-authority *.example.org \(caLine)"])
        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "true")
        XCTAssertExit(exec, 255)
        XCTAssertTrue(exec.stderr.contains("is not known"), exec.stderr)
        assertNothingSent(world)
    }
}

// CertificateAuthorityTests: `sshelf ca` against a real sshd with TrustedUserCAKeys — a CA made in the vault issues
// a certificate (checked by ssh-keygen -L) that logs in where the identity's plain key is not authorized; serials
// count up, each issue is a release-log line; bad input is refused with what to do.
import Foundation
import TestSupport
import XCTest

final class CertificateAuthorityTests: XCTestCase {
    /// ssh-keygen's exit status and its output (both streams): `-Q` answers with its status.
    private func keygenStatus(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestTool.sshKeygen.path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    func testAVaultCAIssuesACertificateThatLogsInWhereThePlainKeyIsNot() throws {
        let world = try CAWorld()
        let (home, sshd, caLine, caFile) = (world.home, world.sshd, world.caLine, world.caFile)
        let certificatePath = world.certificatePath
        XCTAssertTrue(caLine.hasPrefix("ssh-ed25519 ") && caLine.hasSuffix(" sshelf-ca:team"), caLine)
        XCTAssertEqual(try home.run("ca", "show", "team").stdout, caLine + "\n")
        XCTAssertTrue(
            try world.releases().contains {
                $0["what"] as? String == "CA key created" && $0["by"] as? String == "ca init"
            })

        // The plain key is not authorized: refused.
        XCTAssertNotEqual(try home.run("exec", "c", "--no-stdin", "--", "true").status, 0)
        XCTAssertEqual(sshd.logCount("Accepted publickey"), 0, sshd.log)

        let signed = try home.run(
            "ca", "sign", "work", "--ca", "team", "--principals", TestAccount.name, "--valid", "1h", "--out",
            certificatePath)
        XCTAssertExit(signed, 0)
        XCTAssertEqual(try String(contentsOfFile: certificatePath, encoding: .utf8), signed.stdout)
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: certificatePath)[.posixPermissions] as? Int, 0o600)
        // OpenSSH reads it as sshelf meant it.
        let listed = try Shell.run(TestTool.sshKeygen.path, ["-L", "-f", certificatePath])
        XCTAssertTrue(listed.contains("Type: ssh-ed25519-cert-v01@openssh.com user certificate"), listed)
        XCTAssertTrue(listed.contains("Serial: 1"), listed)
        XCTAssertTrue(listed.contains("Key ID: \"sshelf:team:work:1\""), listed)
        XCTAssertTrue(listed.contains("Principals: ") && listed.contains(TestAccount.name), listed)
        XCTAssertTrue(listed.contains("permit-pty"), listed)
        let caFingerprint = try Shell.run(TestTool.sshKeygen.path, ["-l", "-f", caFile])
        XCTAssertTrue(listed.contains("Signing CA: ED25519 " + caFingerprint.split(separator: " ")[1]), listed)

        let newer = try home.run("version", "--verbose").stdout.contains("  yes user certificates (CertificateFile)")
        if newer {
            let exec = try home.run("exec", "c", "--no-stdin", "--", "echo", "by-certificate")
            XCTAssertExit(exec, 0)
            XCTAssertEqual(exec.stdout, "by-certificate\n")
            XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
            XCTAssertTrue(sshd.log.contains("ED25519-CERT"), sshd.log)
            XCTAssertTrue(sshd.log.contains("serial 1"), sshd.log)
        }

        // Serials count up; each issue is a release-log line with the CA, serial, identity, principals, validity.
        let again = try home.run("ca", "sign", "work", "--ca", "team", "--principals", "deploy,\(TestAccount.name)")
        XCTAssertExit(again, 0)
        let issued = try world.releases().filter { $0["what"] as? String == "certificate" }
        XCTAssertEqual(issued.count, 2, "\(issued)")
        let detail = issued.last?["detail"] as? String ?? ""
        XCTAssertTrue(detail.contains("CA 'team' serial 2 for identity 'work'"), detail)
        XCTAssertTrue(detail.contains("principals deploy,\(TestAccount.name) valid "), detail)
        XCTAssertEqual(issued.last?["by"] as? String, "ca sign")
        let list = try home.run("ca", "list")
        XCTAssertTrue(list.stdout.contains("team  SHA256:"), list.stdout)
        XCTAssertTrue(list.stdout.contains("2 issued"), list.stdout)
        XCTAssertTrue(list.stdout.contains("serial 2  work  deploy,\(TestAccount.name)  until "), list.stdout)
    }

    func testCARevokeWritesAListSshdRefusesTheCertificateWith() throws {
        let scratch = TempHome()
        defer { withExtendedLifetime(scratch) {} }
        let krl = scratch.root + "/team.krl"
        let world = try CAWorld(extraConfig: ["RevokedKeys \(krl)"])
        let (home, sshd, certificatePath) = (world.home, world.sshd, world.certificatePath)
        let sign = ["ca", "sign", "work", "--ca", "team", "--principals", TestAccount.name, "--out", certificatePath]
        XCTAssertExit(try home.run(sign), 0)
        let revoked = try home.run("ca", "revoke", "1", "--ca", "team", "--out", krl)
        XCTAssertExit(revoked, 0)
        XCTAssertTrue(revoked.stdout.contains("revoked serial 1; wrote the revocation list to \(krl)"), revoked.stdout)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: krl)[.posixPermissions] as? Int, 0o600)
        // OpenSSH's own reading of the list: serial 1 is revoked, serial 2 is not.
        let query = try keygenStatus(["-Q", "-f", krl, certificatePath])
        XCTAssertNotEqual(query.status, 0, query.output)
        XCTAssertTrue(query.output.contains("REVOKED"), query.output)
        XCTAssertExit(try home.run(sign), 0)
        let fresh = try keygenStatus(["-Q", "-f", krl, certificatePath])
        XCTAssertEqual(fresh.status, 0, fresh.output)

        // Logged in with serial 2: by sshelf's own client on libssh2 1.11; on 1.10 through OpenSSH's ssh with the
        // sshelf agent's key and the certificate (the path certificate logins take there).
        let newer = try home.run("version", "--verbose").stdout.contains("  yes user certificates (CertificateFile)")
        let first = try home.run("exec", "c", "--no-stdin", "--", "true")
        XCTAssertExit(first, 0)
        XCTAssertEqual(first.stderr.contains("handing the session to OpenSSH's ssh"), !newer, first.stderr)
        XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
        // Revoking the identity revokes serials 1 and 2, and it gets no certificate again.
        let all = try home.run("ca", "revoke", "work", "--ca", "team", "--out", krl)
        XCTAssertExit(all, 0)
        XCTAssertTrue(all.stdout.contains("revoked serial 1, 2;"), all.stdout)
        let now = try keygenStatus(["-Q", "-f", krl, certificatePath])
        XCTAssertTrue(now.output.contains("REVOKED"), now.output)
        let refused = try home.run("exec", "c", "--no-stdin", "--", "true")
        XCTAssertNotEqual(refused.status, 0, refused.stderr)
        XCTAssertEqual(refused.stderr.contains("handing the session to OpenSSH's ssh"), !newer, refused.stderr)
        XCTAssertTrue(sshd.waitForLog("revoked"), sshd.log)
        XCTAssertEqual(sshd.logCount("Accepted publickey"), 1, sshd.log)
        let again = try home.run(sign)
        XCTAssertExit(again, 4)
        XCTAssertTrue(again.stderr.contains("revoked identity 'work'"), again.stderr)
    }

    func testSignHostMakesAHostCertificateClientsTrustThroughTheCA() throws {
        let keys = try SSHD.start()
        keys.stop()
        let hostKey = keys.directory + "/ssh_host_ed25519_key.pub"
        var options = SSHD.Options()
        options.hostKeysFrom = keys.directory
        options.extraConfig = ["HostCertificate \(keys.directory)/ssh_host_ed25519_key-cert.pub"]
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let made = try home.run("ca", "init", "team")
        XCTAssertExit(made, 0)
        let signed = try home.run(
            "ca", "sign-host", hostKey, "--ca", "team", "--principals", "127.0.0.1", "--valid", "1d")
        XCTAssertExit(signed, 0)
        XCTAssertTrue(signed.stdout.contains("ssh_host_ed25519_key-cert.pub (serial 1)"), signed.stdout)
        let listed = try Shell.run(
            TestTool.sshKeygen.path, ["-L", "-f", keys.directory + "/ssh_host_ed25519_key-cert.pub"])
        XCTAssertTrue(listed.contains("host certificate"), listed)

        let world = try SSHCLIWorld(options: options)
        world.home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let caKey = made.stdout.split(separator: " ").prefix(2).joined(separator: " ")
        _ = try world.home.write("@cert-authority [127.0.0.1]:* \(caKey)\n", to: ".ssh/known_hosts")
        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "host-certified")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "host-certified\n")
        XCTAssertTrue(exec.stderr.contains("a host certificate (serial 1"), exec.stderr)
        XCTAssertTrue(
            try CAWorld.releases(home).contains {
                $0["what"] as? String == "host certificate" && $0["by"] as? String == "ca sign-host"
            })
    }

    func testATiedIdentityIsRenewedBeforeALoginWithoutAPromptAndLogged() throws {
        let world = try CAWorld()
        let (home, sshd) = (world.home, world.sshd)
        // Issued two hours ago (the clock set back), valid for one: it has expired by the login.
        let past = Int(Date().timeIntervalSince1970) - 7200
        home.extraEnvironment["SSHELF_TEST_NOW"] = String(past)
        let signed = try home.run(
            "ca", "sign", "work", "--ca", "team", "--principals", TestAccount.name, "--valid", "1h", "--renew")
        XCTAssertExit(signed, 0)
        home.extraEnvironment["SSHELF_TEST_NOW"] = nil

        let newer = try home.run("version", "--verbose").stdout.contains("  yes user certificates (CertificateFile)")
        let exec = try home.run("exec", "c", "--no-stdin", "--", "echo", "renewed")
        XCTAssertTrue(
            exec.stderr.contains("sshelf: note: renewed the certificate of identity 'work' (CA 'team', serial 2, "),
            exec.stderr)
        let issued = try world.releases().filter { $0["what"] as? String == "certificate" }
        XCTAssertEqual(issued.map { $0["by"] as? String }, ["ca sign", "exec"], "\(issued)")
        // libssh2 1.11: sshelf's own client offers it; 1.10: the login goes through OpenSSH's ssh, with the line
        // saying why and the sshelf agent's key beside the renewed certificate.
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "renewed\n")
        XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
        XCTAssertTrue(sshd.log.contains("(serial 2)"), sshd.log)
        XCTAssertEqual(exec.stderr.contains("handing the session to OpenSSH's ssh"), !newer, exec.stderr)
        // Fresh now: the next login renews nothing.
        let again = try home.run("exec", "c", "--no-stdin", "--", "true")
        XCTAssertFalse(again.stderr.contains("renewed"), again.stderr)
        XCTAssertEqual(try world.releases().filter { $0["what"] as? String == "certificate" }.count, 2)
    }

    /// `result` (a command on host c) renewed the expired certificate before it logged in, said so, logged in with
    /// the renewed one (serial 2), and the release log names `by` as its issuer after `ca sign`.
    private func assertRenewedBeforeItsLogin(
        _ result: CLIResult, in world: CAWorld, by: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertTrue(
            result.stderr.contains("sshelf: note: renewed the certificate of identity 'work' (CA 'team', serial 2, "),
            result.stderr, file: file, line: line)
        XCTAssertExit(result, 0, file: file, line: line)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log, file: file, line: line)
        XCTAssertTrue(world.sshd.log.contains("(serial 2)"), world.sshd.log, file: file, line: line)
        XCTAssertEqual(try world.issuers(), ["ca sign", by], file: file, line: line)
    }

    /// `run` renews the certificate of a tied identity before its hosts log in, as connect and exec do (one shared
    /// function, the clock from SSHELF_TEST_NOW), the release-log line naming `run`.
    func testRunRenewsATiedCertificateBeforeItsHostsLogIn() throws {
        let world = try CAWorld()
        let home = world.home
        try world.signExpired()

        let run = try home.run("run", "c", "--", "echo", "fleet")
        try assertRenewedBeforeItsLogin(run, in: world, by: "run")
        XCTAssertTrue(run.stdout.contains("fleet"), run.stdout)
    }

    /// `cp` renews it before its copy's login too, the release-log line naming `cp`.
    func testCopyRenewsATiedCertificateBeforeItsLogin() throws {
        let world = try CAWorld()
        let home = world.home
        try world.signExpired()
        // A file the login's account can read (its home), copied down here.
        let folder = "/home/\(TestAccount.name)/sshelf-cp-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("copied with a fresh certificate\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/notes.txt")

        let copy = try home.run("cp", "c:" + folder + "/notes.txt", home.root + "/notes.txt")
        try assertRenewedBeforeItsLogin(copy, in: world, by: "cp")
        XCTAssertEqual(
            try String(contentsOfFile: home.root + "/notes.txt", encoding: .utf8), "copied with a fresh certificate\n")
    }

    /// `forward start` renews it before its login too, the release-log line naming `forward`.
    func testForwardStartRenewsATiedCertificateBeforeItsLogin() throws {
        let world = try CAWorld()
        let home = world.home
        try world.signExpired()
        let port = try TrafficSocket.freePort(), closed = try TrafficSocket.freePort()
        XCTAssertExit(try home.run("forward", "add", "c", "--local", "\(port):127.0.0.1:\(closed)"), 0)

        let running = try BackgroundCLI(home, ["forward", "start", "c"])
        try running.waitFor("sshelf: note: renewed the certificate of identity 'work' (CA 'team', serial 2, ")
        _ = try running.stop(SIGINT)
        XCTAssertEqual(try world.issuers(), ["ca sign", "forward"])
    }

    /// Renewal (the CA's key) and the login (the identity's key) both need the vault passphrase: `--passphrase-fd`
    /// holds it once, and the process reads it once.
    func testAPassphraseGivenOnceServesTheRenewalAndTheLogin() throws {
        let world = try CAWorld()
        let (home, sshd) = (world.home, world.sshd)
        guard try home.run("version", "--verbose").stdout.contains("  yes user certificates (CertificateFile)") else {
            // On 1.10 the login goes to OpenSSH with the sshelf agent, which takes the passphrase on its own.
            throw skipped("the loaded libssh2 cannot log in with a user certificate itself (1.11 or later can)")
        }
        home.extraEnvironment["SSHELF_TEST_WEAK_KDF"] = "1"
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "vault pass phrase"), 0)
        let past = Int(Date().timeIntervalSince1970) - 7200
        home.extraEnvironment["SSHELF_TEST_NOW"] = String(past)
        let signed = try home.run(
            [
                "ca", "sign", "work", "--ca", "team", "--principals", TestAccount.name, "--valid", "1h", "--renew",
                "--passphrase-fd", "3",
            ], fd3: "vault pass phrase")
        XCTAssertExit(signed, 0)
        home.extraEnvironment["SSHELF_TEST_NOW"] = nil

        let exec = try home.run(
            ["exec", "c", "--no-stdin", "--passphrase-fd", "3", "--", "echo", "renewed"], fd3: "vault pass phrase")
        XCTAssertTrue(exec.stderr.contains("renewed the certificate of identity 'work'"), exec.stderr)
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "renewed\n")
        XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
        XCTAssertTrue(sshd.log.contains("(serial 2)"), sshd.log)
    }

    func testBadInputIsRefusedWithWhatToDo() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let badName = try home.run("ca", "init", "no good")
        XCTAssertExit(badName, 4)
        XCTAssertTrue(badName.stderr.contains("is not a CA name"), badName.stderr)
        XCTAssertExit(try home.run("ca", "init", "team"), 0)
        let twice = try home.run("ca", "init", "team")
        XCTAssertExit(twice, 4)
        XCTAssertTrue(twice.stderr.contains("exists already"), twice.stderr)
        XCTAssertExit(try home.run("keygen", "work"), 0)
        let noCA = try home.run("ca", "sign", "work", "--principals", "deploy")
        XCTAssertExit(noCA, 2)
        XCTAssertTrue(noCA.stderr.contains("--ca NAME"), noCA.stderr)
        let unknown = try home.run("ca", "sign", "work", "--ca", "tea", "--principals", "deploy")
        XCTAssertExit(unknown, 3)
        XCTAssertTrue(unknown.stderr.contains("the CAs on this device: team"), unknown.stderr)
        let badValid = try home.run("ca", "sign", "work", "--ca", "team", "--principals", "deploy", "--valid", "8x")
        XCTAssertExit(badValid, 4)
        XCTAssertTrue(badValid.stderr.contains("e.g. --valid 30m, 8h or 7d"), badValid.stderr)
        let noPrincipals = try home.run("ca", "sign", "work", "--ca", "team")
        XCTAssertExit(noPrincipals, 2)
        XCTAssertTrue(try home.run("ca", "list").stdout.contains("0 issued"))
    }
}

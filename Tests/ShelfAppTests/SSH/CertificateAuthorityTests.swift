// CertificateAuthorityTests: `sshelf ca` against a real sshd with TrustedUserCAKeys — a CA made in the vault issues
// a certificate (checked by ssh-keygen -L) that logs in where the identity's plain key is not authorized; serials
// count up, each issue is a release-log line; bad input is refused with what to do.
import Foundation
import TestSupport
import XCTest

final class CertificateAuthorityTests: XCTestCase {
    /// A home with CA "team" and identity "work" (both in the vault), an sshd trusting the CA with no authorized
    /// key, and host "c" on it whose CertificateFile is `certificatePath`.
    private func world() throws -> (home: TempHome, sshd: SSHD, caLine: String, caFile: String, certificatePath: String) {
        try TestAccount.ensure()
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let made = try home.run("ca", "init", "team")
        XCTAssertExit(made, 0)
        let caLine = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let caFile = try home.write(caLine + "\n", to: "trusted_user_ca.pub")
        var options = SSHD.Options()
        options.extraConfig = ["TrustedUserCAKeys \(caFile)"]
        let sshd = try SSHD.start(options)
        XCTAssertExit(try home.run("keygen", "work"), 0)
        let certificatePath = home.root + "/work-cert.pub"
        let config = try home.write(
            """
            Host c
              HostName \(sshd.options.listenAddress)
              Port \(sshd.port)
              User \(TestAccount.name)
              CertificateFile \(certificatePath)
            """, to: ".ssh/config-c")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        XCTAssertExit(try home.run("edit", "c", "--identity", "work", "--auth", "publickey"), 0)
        let fingerprint = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", sshd.directory + "/ssh_host_ed25519_key.pub"])
        XCTAssertExit(try home.run("trust", "c", "--fingerprint", String(fingerprint.split(separator: " ")[1])), 0)
        return (home, sshd, caLine, caFile, certificatePath)
    }

    private func releases(_ home: TempHome) throws -> [[String: Any]] {
        let log = try home.run("log", "--json")
        XCTAssertExit(log, 0)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
    }

    func testAVaultCAIssuesACertificateThatLogsInWhereThePlainKeyIsNot() throws {
        let (home, sshd, caLine, caFile, certificatePath) = try world()
        XCTAssertTrue(caLine.hasPrefix("ssh-ed25519 ") && caLine.hasSuffix(" sshelf-ca:team"), caLine)
        XCTAssertEqual(try home.run("ca", "show", "team").stdout, caLine + "\n")
        XCTAssertTrue(
            try releases(home).contains { $0["what"] as? String == "CA key created" && $0["by"] as? String == "ca init" })

        // The plain key is not authorized: refused.
        XCTAssertNotEqual(try home.run("exec", "c", "--no-stdin", "--", "true").status, 0)
        XCTAssertEqual(sshd.logCount("Accepted publickey"), 0, sshd.log)

        let signed = try home.run(
            "ca", "sign", "work", "--ca", "team", "--principals", TestAccount.name, "--valid", "1h", "--out",
            certificatePath)
        XCTAssertExit(signed, 0)
        XCTAssertEqual(try String(contentsOfFile: certificatePath, encoding: .utf8), signed.stdout)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: certificatePath)[.posixPermissions] as? Int, 0o600)
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
        let issued = try releases(home).filter { $0["what"] as? String == "certificate" }
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

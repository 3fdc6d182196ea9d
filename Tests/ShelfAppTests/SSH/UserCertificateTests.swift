// UserCertificateTests: OpenSSH user certificates through sshelf's own client — a key signed with `ssh-keygen -s`
// logs in to an sshd that trusts the CA (TrustedUserCAKeys) and has no authorized_keys line for it, when the host's
// CertificateFile names the certificate; a key the vault holds too; a certificate of another key is not offered.
import Foundation
import TestSupport
import XCTest

final class UserCertificateTests: XCTestCase {
    /// A CA, a user key and its certificate for sshelftest; an sshd trusting the CA and no key.
    private func certified() throws -> (home: TempHome, sshd: SSHD, key: TestKey, certificate: String, other: String) {
        try TestAccount.ensure()
        let ca = try TestKey.generate(.ed25519)
        let key = try TestKey.generate(.ed25519)
        let stranger = try TestKey.generate(.ed25519)
        for signed in [key, stranger] {
            try Shell.run(
                TestTool.sshKeygen.path,
                [
                    "-q", "-s", ca.privatePath, "-I", "sshelf-test", "-n", TestAccount.name, "-V", "-5m:+1h",
                    signed.privatePath + ".pub",
                ])
        }
        var options = SSHD.Options()
        options.extraConfig = ["TrustedUserCAKeys \(ca.privatePath).pub"]
        let sshd = try SSHD.start(options)
        return (TempHome(), sshd, key, key.privatePath + "-cert.pub", stranger.privatePath + "-cert.pub")
    }

    private func addHost(_ home: TempHome, _ sshd: SSHD, key: TestKey, certificates: [String]) throws {
        let config = try home.write(
            """
            Host c
              HostName \(sshd.options.listenAddress)
              Port \(sshd.port)
              User \(TestAccount.name)
              IdentityFile \(key.privatePath)
            \(certificates.map { "  CertificateFile \($0)" }.joined(separator: "\n"))
            """, to: ".ssh/config-c")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        let fingerprint = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", sshd.directory + "/ssh_host_ed25519_key.pub"])
        XCTAssertExit(try home.run("trust", "c", "--fingerprint", String(fingerprint.split(separator: " ")[1])), 0)
    }

    func testACertifiedKeyLogsInWithItsCertificate() throws {
        let (home, sshd, key, certificate, other) = try certified()
        try addHost(home, sshd, key: key, certificates: [other, certificate])
        let newer = try home.run("version", "--verbose").stdout.contains("  yes user certificates (CertificateFile)")
        guard newer else {
            // libssh2 1.10: connect hands the host to OpenSSH, whose ssh logs in with the certificate.
            let connect = try home.run(["connect", "c"], stdin: "echo via-openssh; exit 4\n")
            XCTAssertEqual(connect.status, 4, "\(connect)")
            XCTAssertTrue(connect.stdout.contains("via-openssh"), "\(connect)")
            XCTAssertTrue(
                connect.stderr.contains(
                    "sshelf: note: c sets CertificateFile, which sshelf's own client cannot use with libssh2 1.10"),
                connect.stderr)
            XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
            XCTAssertTrue(sshd.log.contains("ED25519-CERT"), sshd.log)
            return
        }
        let exec = try home.run("exec", "c", "--no-stdin", "--", "echo", "cert-ok")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "cert-ok\n")
        XCTAssertTrue(sshd.waitForLog("Accepted publickey"), sshd.log)
        XCTAssertTrue(sshd.log.contains("ED25519-CERT"), "the certificate logged in:\n\(sshd.log)")
        XCTAssertFalse(exec.stderr.contains("note:"), "CertificateFile is applied, not noted: \(exec.stderr)")

        // The same key moved into the vault (to the identity that holds it): its public key finds the certificate.
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("identity", "import", "id_ed25519", key.privatePath, "--remove-file"), 0)
        XCTAssertExit(try home.run("exec", "c", "--no-stdin", "--", "true"), 0)
        XCTAssertTrue(sshd.waitForLog("Accepted publickey", count: 2), sshd.log)
    }

    func testWithoutItsCertificateTheKeyIsRefused() throws {
        let (home, sshd, key, _, other) = try certified()
        try addHost(home, sshd, key: key, certificates: [other])
        let exec = try home.run("exec", "c", "--no-stdin", "--", "true")
        XCTAssertNotEqual(exec.status, 0, "\(exec)")
        XCTAssertEqual(sshd.logCount("Accepted publickey"), 0, sshd.log)
        let newer = try home.run("version", "--verbose").stdout.contains("  yes user certificates (CertificateFile)")
        guard newer else {
            // libssh2 1.10: exec hands the host to OpenSSH (as connect does), whose choice of what to offer is its
            // own; sshelf's part is the hand-over, said on stderr, and the refusal.
            XCTAssertTrue(exec.stderr.contains("CertificateFile"), "the hand-over is said: \(exec.stderr)")
            return
        }
        XCTAssertFalse(sshd.log.contains("ED25519-CERT"), "another key's certificate is not offered:\n\(sshd.log)")
    }
}

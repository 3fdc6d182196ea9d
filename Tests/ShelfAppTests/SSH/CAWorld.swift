// CAWorld: a home with CA "team" and identity "work" (both in the vault), an sshd trusting the CA with no authorized
// key, and host "c" on it (pinned, identity "work", publickey only) — the setting of the certificate tests.
import Foundation
import TestSupport
import XCTest

struct CAWorld {
    let home: TempHome
    let sshd: SSHD
    /// The CA's public line, and the file sshd's TrustedUserCAKeys reads it from.
    let caLine: String
    let caFile: String
    /// Host c's CertificateFile (nothing is written there unless a test does).
    let certificatePath: String

    init(extraConfig: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        try TestAccount.ensure()
        home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        let made = try home.run("ca", "init", "team")
        XCTAssertExit(made, 0, file: file, line: line)
        caLine = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        caFile = try home.write(caLine + "\n", to: "trusted_user_ca.pub")
        var options = SSHD.Options()
        options.extraConfig = ["TrustedUserCAKeys \(caFile)"] + extraConfig
        sshd = try SSHD.start(options)
        XCTAssertExit(try home.run("keygen", "work"), 0, file: file, line: line)
        certificatePath = home.root + "/work-cert.pub"
        let config = try home.write(
            """
            Host c
              HostName \(sshd.options.listenAddress)
              Port \(sshd.port)
              User \(TestAccount.name)
              CertificateFile \(certificatePath)
            """, to: ".ssh/config-c")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0, file: file, line: line)
        XCTAssertExit(try home.run("edit", "c", "--identity", "work", "--auth", "publickey"), 0, file: file, line: line)
        let fingerprint = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", sshd.directory + "/ssh_host_ed25519_key.pub"])
        XCTAssertExit(
            try home.run("trust", "c", "--fingerprint", String(fingerprint.split(separator: " ")[1])), 0, file: file,
            line: line)
    }

    /// Ties identity "work" to CA "team" with a one-hour certificate issued two hours ago (the clock set back): it
    /// has expired by the time the test logs in, so the next login path must renew it.
    func signExpired() throws {
        let past = Int(Date().timeIntervalSince1970) - 7200
        home.extraEnvironment["SSHELF_TEST_NOW"] = String(past)
        defer { home.extraEnvironment["SSHELF_TEST_NOW"] = nil }
        XCTAssertExit(
            try home.run(
                "ca", "sign", "work", "--ca", "team", "--principals", TestAccount.name, "--valid", "1h", "--renew"), 0)
    }

    /// The release log as `sshelf log --json` prints it.
    func releases() throws -> [[String: Any]] { try Self.releases(home) }

    /// `home`'s release log as `sshelf log --json` prints it (a home that is not a CAWorld's too).
    static func releases(_ home: TempHome) throws -> [[String: Any]] {
        let log = try home.run("log", "--json")
        XCTAssertExit(log, 0)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
    }

    /// Who issued each certificate in the release log, in order (`ca sign`, then the renewals' commands).
    func issuers() throws -> [String] {
        try releases().filter { $0["what"] as? String == "certificate" }.compactMap { $0["by"] as? String }
    }
}

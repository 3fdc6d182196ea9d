// SSHCLIWorld: a TempHome with a real sshd and one host "t" imported from an ssh_config whose IdentityFile is a
// fresh ed25519 key — what the CLI SSH tests start from.
import Foundation
import TestSupport
import XCTest

final class SSHCLIWorld {
    let home = TempHome()
    let key: TestKey
    var sshd: SSHD

    init(options: SSHD.Options = SSHD.Options()) throws {
        try TestAccount.ensure()
        key = try TestKey.generate(.ed25519)
        var options = options
        options.authorizedKeys.append(key.publicLine)
        sshd = try SSHD.start(options)
        try addHost("t", sshd)
    }

    /// Imports host `name` on `server`, logging in with `identityFile` (the world's key unless told).
    func addHost(_ name: String, _ server: SSHD, identityFile: String? = nil, extra: String = "") throws {
        let config = try home.write(
            """
            Host \(name)
              HostName \(server.options.listenAddress)
              Port \(server.port)
              User \(TestAccount.name)
              IdentityFile \(identityFile ?? key.privatePath)
            \(extra)
            """, to: ".ssh/config-\(name)")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
    }

    /// Host "enc", trusted, logging in with a key file of its own (`id_work`, so identity "id_work") encrypted with
    /// `keyPassphrase` and authorized on the server: where the tests of a key passphrase asked and remembered start.
    /// The vault takes the weak KDF (these tests set vault passphrases); `test` locks the vault session at its end.
    func addEncryptedKeyHost(_ keyPassphrase: String, lockingAfter test: XCTestCase) throws {
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        test.addTeardown { [home] in _ = try? home.run("vault", "lock") }
        let keyPath = home.root + "/id_work"
        try Shell.run(
            TestTool.sshKeygen.path, ["-q", "-t", "ed25519", "-N", keyPassphrase, "-C", "work", "-f", keyPath])
        try sshd.authorize(
            try String(contentsOfFile: keyPath + ".pub", encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines))
        try addHost("enc", sshd, identityFile: keyPath)
        XCTAssertExit(try home.run("trust", "enc", "--fingerprint", try fingerprint(sshd)), 0)
    }

    /// The `SHA256:` fingerprint of the server's ed25519 host key, from ssh-keygen.
    func fingerprint(_ server: SSHD) throws -> String {
        let out = try Shell.run(
            TestTool.sshKeygen.path, ["-l", "-E", "sha256", "-f", server.directory + "/ssh_host_ed25519_key.pub"])
        return String(out.split(separator: " ")[1])
    }

    var knownHostsPath: String { home.sshelfHome + "/data/known_hosts" }

    /// Pins t's key, then points t at another server (other host keys, same account): a changed host key.
    /// Keep the returned server alive for as long as t should reach it.
    func impostorForT() throws -> SSHD {
        XCTAssertExit(try home.run("trust", "t", "--fingerprint", try fingerprint(sshd)), 0)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let impostor = try SSHD.start(options)
        XCTAssertExit(try home.run("edit", "t", "--port", String(impostor.port)), 0)
        return impostor
    }

    /// A local forward rule on host "t" from a free loopback port to `targetPort` on the server's side; its port.
    func addLocalRule(to targetPort: Int, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try home.run("forward", "add", "t", "--local", "\(port):127.0.0.1:\(targetPort)"), 0,
            file: file, line: line)
        return port
    }
}

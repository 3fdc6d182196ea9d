// RSALoginTests: an RSA key imported into the vault, end to end with the real sshd, on whichever libssh2 the binary
// loaded (make test runs this against Debian 12's 1.10 and against 1.11.1). On 1.11 sshelf's own client signs with
// rsa-sha2-512; on 1.10 `connect` and `exec` hand the host to OpenSSH's ssh with the sshelf agent, saying why in
// one line (libssh2 1.10's own refusal, with its fixes, is AuthTests').
import Foundation
import TestSupport
import XCTest

final class RSALoginTests: XCTestCase {
    func testAnRSAIdentityOnEachLibrary() throws {
        let world = try BridgeWorld()
        let key = try TestKey.generate(.rsa)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let server = try SSHD.start(options)
        XCTAssertExit(try world.home.run("identity", "import", "rsa1", key.privatePath), 0)
        XCTAssertExit(
            try world.home.run(
                "add", "r1", "--host", server.options.listenAddress,
                "--port", String(server.port), "--user", TestAccount.name, "--identity", "rsa1"), 0)
        XCTAssertExit(try world.home.run("trust", "r1", "--fingerprint", try world.fingerprint(server)), 0)
        defer { _ = try? world.home.run(["agent", "stop"]) }
        let newer = try world.home.run("version", "--verbose").stdout.contains("  yes RSA keys sign with rsa-sha2")

        // exec logs in through libssh2 1.11 itself, or on 1.10 goes to OpenSSH as connect does (EveryKeyTests).
        let exec = try world.home.run("exec", "r1", "--no-stdin", "--", "echo", "rsa-ok")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "rsa-ok\n")
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)
        XCTAssertTrue(server.log.contains("pkalg rsa-sha2-512"), server.log)
        XCTAssertEqual(exec.stderr.contains("handing the session to OpenSSH's ssh"), !newer, exec.stderr)

        let connect = try world.home.run(["connect", "r1"], stdin: "echo via-shell; exit 3\n")
        XCTAssertEqual(connect.status, 3, "the shell's exit status: \(connect)")
        XCTAssertTrue(connect.stdout.contains("via-shell"), "\(connect)")
        let handed = "; handing the session to OpenSSH's ssh with the sshelf agent"
        if newer {
            XCTAssertFalse(connect.stderr.contains(handed), connect.stderr)
        } else {
            let note = "sshelf: note: r1 logs in with the RSA key of identity 'rsa1', which libssh2 1.10"
            XCTAssertTrue(connect.stderr.contains(note), connect.stderr)
            XCTAssertEqual(connect.stderr.components(separatedBy: handed).count - 1, 1, connect.stderr)
            // OpenSSH signed with rsa-sha2-512 through the sshelf agent (the key is only in the vault's store).
            XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)
            XCTAssertTrue(server.log.contains("pkalg rsa-sha2-512"), server.log)
        }
    }
}

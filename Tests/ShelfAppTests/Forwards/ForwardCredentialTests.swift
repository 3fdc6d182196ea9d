// ForwardCredentialTests: the supervisor refuses a credential only when the vault cannot open it now, never by its
// class's name. On a vault without a passphrase every class opens with the device key, so a host password stored
// whenUnlocked… (set before the host had autostart forwards) brings the forward up; `vault audit` still flags the
// class as weaker than the use (it would lock with a passphrase), and its fix (`vault set-class`) keeps it working.
import Foundation
import TestSupport
import XCTest

final class ForwardCredentialTests: XCTestCase {

    func testAVaultWithoutAPassphraseServesAWhenUnlockedPasswordToTheSupervisor() throws {
        try TestAccount.ensure()
        let sshd = try SSHD.start()
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        XCTAssertExit(
            try home.run(
                "add", "pw", "--host", "127.0.0.1", "--port", "\(sshd.port)", "--user", TestAccount.name,
                "--auth", "password"), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "pw", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        XCTAssertExit(try home.run("exec", "pw", "--accept-new", "--no-stdin", "--", "true"), 0)
        XCTAssertTrue(sshd.waitForLog("Accepted password"), sshd.log)
        XCTAssertTrue(try home.run("vault", "list").stdout.contains("host.password  whenUnlockedThisDeviceOnly"))
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try home.run("forward", "add", "pw", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart"), 0)

        let up = try BackgroundCLI(home, ["forward", "up"])
        try up.waitFor("pw: active")
        XCTAssertFalse(up.stderr.contains("cannot be read"), up.stderr)
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("open".utf8)), Array("nepo".utf8))
        XCTAssertEqual(try up.stop(SIGINT), 0, up.stderr)

        let audit = try home.run("vault", "audit")
        XCTAssertTrue(audit.stdout.contains("weaker-than-use"), "\(audit)")
        XCTAssertTrue(audit.stdout.contains("needed by an autostarted forward"), "\(audit)")
        let key = try XCTUnwrap(audit.stdout.firstMatch(of: /host\.[0-9a-f-]{36}\.password/)?.0, audit.stdout)
        XCTAssertExit(try home.run("vault", "set-class", String(key), "afterFirstUnlockThisDeviceOnly"), 0)
        XCTAssertFalse(try home.run("vault", "audit").stdout.contains("weaker-than-use"), "the audit agrees")
        let fixed = try BackgroundCLI(home, ["forward", "up"])
        try fixed.waitFor("pw: active")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("fixed".utf8)), Array("dexif".utf8))
        XCTAssertEqual(try fixed.stop(SIGINT), 0, fixed.stderr)
    }
}

// ForwardCredentialTests: the supervisor reads credentials only through classes unattended reads may open. A host
// password stored whenUnlocked… (set before the host had autostart forwards) is reported with the fix and never
// sent; `vault audit` flags the same item; following the fix (`vault set-class`) brings the forward up, and so does
// storing it again (now afterFirstUnlock…).
import Foundation
import TestSupport
import XCTest

final class ForwardCredentialTests: XCTestCase {

    func testWhenUnlockedPasswordIsReportedWithTheFix() throws {
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
        let target = try ReverseServer()
        let port = try TrafficSocket.freePort()
        XCTAssertExit(
            try home.run("forward", "add", "pw", "--local", "\(port):127.0.0.1:\(target.port)", "--autostart"), 0)

        let up = try BackgroundCLI(home, ["forward", "up"])
        try up.waitFor("pw: failed")
        XCTAssertTrue(up.stderr.contains("the password of host 'pw' cannot be read: it is stored whenUnlockedThisDeviceOnly"), up.stderr)
        // The vault has no passphrase: the fix is the class alone, with no unlock to add.
        let fix = try XCTUnwrap(up.stderr.firstMatch(of: /let unattended logins read it: (sshelf vault set-class host\.[0-9a-f-]{36}\.password afterFirstUnlockThisDeviceOnly)\)/)?.1, up.stderr)
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
        XCTAssertEqual(sshd.logCount("Accepted password"), 1, "the supervisor sent no password")
        XCTAssertEqual(sshd.logCount("Failed password"), 0, sshd.log)

        let audit = try home.run("vault", "audit")
        XCTAssertTrue(audit.stdout.contains("weaker-than-use"), "\(audit)")
        XCTAssertTrue(audit.stdout.contains("needed by an autostarted forward"), "\(audit)")

        let moved = try home.run(fix.split(separator: " ").dropFirst().map(String.init))
        XCTAssertExit(moved, 0)
        XCTAssertFalse(try home.run("vault", "audit").stdout.contains("weaker-than-use"), "the audit agrees")
        let fixed = try BackgroundCLI(home, ["forward", "up"])
        try fixed.waitFor("pw: active")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("fixed".utf8)), Array("dexif".utf8))
        XCTAssertEqual(try fixed.stop(SIGINT), 0, fixed.stderr)

        // Storing it again picks the class by use as well.
        XCTAssertExit(try home.run(["vault", "set-class", String(fix.split(separator: " ")[3]), "whenUnlockedThisDeviceOnly"]), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "pw", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        let again = try BackgroundCLI(home, ["forward", "up"])
        try again.waitFor("pw: active")
        XCTAssertEqual(try again.stop(SIGINT), 0, again.stderr)
    }
}

// ForwardCredentialTests: the supervisor reads credentials only through classes unattended reads may open. A host
// password stored whenUnlocked… (set before the host had autostart forwards) is reported with the fix and never
// sent; `vault audit` flags the same item; storing it again (now afterFirstUnlock…) brings the forward up.
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
        XCTAssertTrue(up.stderr.contains("whenUnlockedThisDeviceOnly"), up.stderr)
        XCTAssertTrue(up.stderr.contains("sshelf vault set-password pw"), up.stderr)
        XCTAssertEqual(try up.stop(SIGTERM), 0, up.stderr)
        XCTAssertEqual(sshd.logCount("Accepted password"), 1, "the supervisor sent no password")
        XCTAssertEqual(sshd.logCount("Failed password"), 0, sshd.log)

        let audit = try home.run("vault", "audit")
        XCTAssertTrue(audit.stdout.contains("weaker-than-use"), "\(audit)")
        XCTAssertTrue(audit.stdout.contains("needed by an autostarted forward"), "\(audit)")

        XCTAssertExit(try home.run(["vault", "set-password", "pw", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        let fixed = try BackgroundCLI(home, ["forward", "up"])
        try fixed.waitFor("pw: active")
        XCTAssertEqual(try TrafficSocket.roundTrip(port: port, Array("fixed".utf8)), Array("dexif".utf8))
        XCTAssertEqual(try fixed.stop(SIGINT), 0, fixed.stderr)
    }
}

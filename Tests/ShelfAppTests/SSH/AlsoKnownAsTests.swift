// AlsoKnownAsTests: a host whose key is already pinned for another host gets OpenSSH's "known by other names" note
// when its key is first accepted — against a real sshd reached under two names.
import Foundation
import TestSupport
import XCTest

final class AlsoKnownAsTests: XCTestCase {
    func testASecondNameForAKnownKeySaysWhichHostHasIt() throws {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let server = try SSHD.start(options)
        let home = TempHome()
        // Two addresses of one machine (a host key is asked for per address).
        let config = try home.write(
            [("first", "127.0.0.1"), ("second", "localhost")].map { name, address in
                "Host \(name)\n    HostName \(address)\n    Port \(server.port)\n    User \(TestAccount.name)\n    "
                    + "IdentityFile \(key.privatePath)\n"
            }.joined(), to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        let first = try home.run("exec", "first", "--accept-new", "--", "true")
        XCTAssertExit(first, 0)
        XCTAssertFalse(first.stderr.contains("also known as"), first.stderr)
        let second = try home.run("exec", "second", "--accept-new", "--", "true")
        XCTAssertExit(second, 0)
        XCTAssertTrue(
            second.stderr.contains("sshelf: note: this host key is also known as 'first' (pinned for that host)\n"),
            second.stderr)
    }
}

// TrustCommandTests: a changed server key through the CLI — a hard failure naming both fingerprints with no auth
// in the sshd log — and `sshelf trust` re-pinning only with --replace and a matching --fingerprint.
import Foundation
import TestSupport
import XCTest

final class TrustCommandTests: XCTestCase {
    func testChangedKeyThenDeliberateRepin() throws {
        let world = try SSHCLIWorld()
        let oldPrint = try world.fingerprint(world.sshd)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", oldPrint), 0)
        XCTAssertExit(try world.home.run("exec", "t", "--", "true"), 0)

        // The server is "reinstalled" with a new host key; the host record follows it to its new port, so the
        // pin on the record (not a known_hosts line for the old port) is what detects the change.
        world.sshd.stop()
        var options = SSHD.Options()
        options.authorizedKeys = [world.key.publicLine]
        let replacement = try SSHD.start(options)
        XCTAssertExit(try world.home.run("edit", "t", "--port", String(replacement.port)), 0)
        let newPrint = try world.fingerprint(replacement)

        let refused = try world.home.run("exec", "t", "--accept-new", "--", "true")
        XCTAssertExit(refused, 255)
        XCTAssertTrue(refused.stderr.contains("CHANGED"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains(oldPrint), refused.stderr)
        XCTAssertTrue(refused.stderr.contains(newPrint), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("sshelf trust t --replace"), refused.stderr)
        replacement.waitForConnectionsEnded()
        XCTAssertFalse(replacement.log.contains("userauth-request"), replacement.log)

        let noReplace = try world.home.run("trust", "t")
        XCTAssertExit(noReplace, 1)
        XCTAssertTrue(noReplace.stderr.contains("--replace"), noReplace.stderr)
        let wrongPrint = try world.home.run("trust", "t", "--replace", "--fingerprint", oldPrint)
        XCTAssertExit(wrongPrint, 1)
        XCTAssertTrue(wrongPrint.stderr.contains("nothing was pinned"), wrongPrint.stderr)

        XCTAssertExit(try world.home.run("trust", "t", "--replace", "--fingerprint", newPrint), 0)
        XCTAssertExit(try world.home.run("exec", "t", "--", "true"), 0)
    }

    func testTrustWithoutConfirmationRefusesWhenNoTerminal() throws {
        let world = try SSHCLIWorld()
        let result = try world.home.run("trust", "t")
        XCTAssertExit(result, 1)
        XCTAssertTrue(result.stderr.contains(try world.fingerprint(world.sshd)), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.knownHostsPath))
    }

    func testJumpHostThroughTheCLI() throws {
        let world = try SSHCLIWorld()
        var options = SSHD.Options()
        options.authorizedKeys = [world.key.publicLine]
        options.listenAddress = "127.0.0.3"
        let inner = try SSHD.start(options)
        try world.addHost("inner", inner, extra: "  ProxyJump t")
        let result = try world.home.run("exec", "inner", "--accept-new", "--", "echo via jump")
        XCTAssertExit(result, 0)
        XCTAssertEqual(result.stdout, "via jump\n")
        XCTAssertTrue(world.sshd.waitForLog("target 127.0.0.3 port \(inner.port)"), world.sshd.log)
        let plan = try world.home.run("connect", "inner", "--dry-run")
        XCTAssertTrue(plan.stdout.contains("2 hops"), plan.stdout)
        XCTAssertTrue(plan.stdout.contains("direct-tcpip"), plan.stdout)
    }
}

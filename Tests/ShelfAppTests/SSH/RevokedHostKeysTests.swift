// RevokedHostKeysTests: a host's `RevokedHostKeys` (imported from ssh_config) naming a KRL made by ssh-keygen or a
// list of public keys: a revoked host key, and a host certificate whose CA the list revokes, are refused before
// anything is sent — by sshelf's own client, and by OpenSSH through the bridge; a file that cannot be read refuses.
import Foundation
import TestSupport
import XCTest

final class RevokedHostKeysTests: XCTestCase {
    private func krl(_ home: TempHome, _ name: String, revoking keyFile: String) throws -> String {
        let path = home.root + "/" + name
        try Shell.run(TestTool.sshKeygen.path, ["-k", "-f", path, keyFile])
        return path
    }

    private func assertNothingSent(_ sshd: SSHD, file: StaticString = #filePath, line: UInt = #line) {
        sshd.waitForConnectionsEnded()
        XCTAssertFalse(sshd.log.contains("userauth-request"), sshd.log, file: file, line: line)
    }

    func testARevokedHostKeyIsRefusedByTheOwnClientAndTheBridge() throws {
        let world = try SSHCLIWorld()
        let hostKey = world.sshd.directory + "/ssh_host_ed25519_key.pub"
        let list = try krl(world.home, "hosts.krl", revoking: hostKey)
        try world.addHost("r", world.sshd, extra: "  RevokedHostKeys \(list)")
        let exec = try world.home.run("exec", "r", "--no-stdin", "--accept-new", "--", "true")
        XCTAssertExit(exec, 255)
        XCTAssertTrue(exec.stderr.contains("is revoked in RevokedHostKeys \(list); nothing was sent"), exec.stderr)
        assertNothingSent(world.sshd)
        XCTAssertTrue(try world.home.run("show", "r").stdout.contains("(not pinned)"), "nothing was pinned")
        // The same server under a host without the option logs in: the list is what refused it.
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--accept-new", "--", "true"), 0)

        // A list of public key lines works as a KRL does.
        let keys = try world.home.write(try String(contentsOfFile: hostKey, encoding: .utf8), to: "revoked_keys")
        try world.addHost("r2", world.sshd, extra: "  RevokedHostKeys \(keys)")
        let listed = try world.home.run("exec", "r2", "--no-stdin", "--accept-new", "--", "true")
        XCTAssertExit(listed, 255)
        XCTAssertTrue(listed.stderr.contains("is revoked in RevokedHostKeys"), listed.stderr)

        // A file that is not a revocation list refuses rather than vouching for everything.
        let garbage = try world.home.write("not a key\n", to: "garbage")
        try world.addHost("r3", world.sshd, extra: "  RevokedHostKeys \(garbage)")
        let unusable = try world.home.run("exec", "r3", "--no-stdin", "--accept-new", "--", "true")
        XCTAssertExit(unusable, 255)
        XCTAssertTrue(
            unusable.stderr.contains("cannot use RevokedHostKeys \(garbage) of r3: it is neither a KRL nor a list"),
            unusable.stderr)

        // OpenSSH through the bridge reads the same option: a key the user's known_hosts holds is refused there too
        // (`sshelf trust r` does not pin a revoked key: RevokedHostKeysTests.testTrustDoesNotOfferARevokedKey…).
        let known = try String(contentsOfFile: hostKey, encoding: .utf8).split(separator: " ").prefix(2)
        _ = try world.home.write(
            "[\(world.sshd.options.listenAddress)]:\(world.sshd.port) \(known.joined(separator: " "))\n",
            to: ".ssh/known_hosts")
        let bridged = try world.home.run(["connect", "r", "--openssh"], stdin: "exit\n")
        XCTAssertNotEqual(bridged.status, 0, bridged.stderr)
        XCTAssertTrue(bridged.stderr.contains("revoked by file \(list)"), bridged.stderr)
    }

    /// `sshelf trust HOST` reads the host's RevokedHostKeys: a revoked key is not offered for pinning — not with
    /// --fingerprint, not on the question (the refusal comes first) — the error names the file, nothing is pinned.
    func testTrustDoesNotOfferARevokedKeyForPinning() throws {
        let world = try SSHCLIWorld()
        let list = try krl(world.home, "hosts.krl", revoking: world.sshd.directory + "/ssh_host_ed25519_key.pub")
        try world.addHost("r", world.sshd, extra: "  RevokedHostKeys \(list)")
        let refusal = "is revoked in RevokedHostKeys \(list); it is not offered for pinning, nothing was pinned"

        let given = try world.home.run("trust", "r", "--fingerprint", try world.fingerprint(world.sshd))
        XCTAssertExit(given, 255)
        XCTAssertTrue(given.stderr.contains(refusal), given.stderr)
        XCTAssertTrue(given.stderr.contains("ask the server's administrator for its new key"), given.stderr)
        let asked = try world.home.run("trust", "r")
        XCTAssertExit(asked, 255)
        XCTAssertTrue(asked.stderr.contains(refusal), asked.stderr)
        XCTAssertTrue(try world.home.run("show", "r").stdout.contains("(not pinned)"), "nothing was pinned")
    }

    func testAHostCertificateWhoseCAIsRevokedIsRefused() throws {
        let ca = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.hostKeyTypes = [.ed25519]
        options.hostCertificate = SSHD.HostCertificate(
            caPrivatePath: ca.privatePath, principals: ["127.0.0.1"], validity: "-5m:+1h")
        let world = try SSHCLIWorld(options: options)
        let caLine = ca.publicLine.split(separator: " ").prefix(2).joined(separator: " ")
        _ = try world.home.write("@cert-authority * \(caLine)\n", to: ".ssh/known_hosts")
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        let list = try krl(world.home, "ca.krl", revoking: ca.privatePath + ".pub")
        try world.addHost("r", world.sshd, extra: "  RevokedHostKeys \(list)")
        let exec = try world.home.run("exec", "r", "--no-stdin", "--", "true")
        XCTAssertExit(exec, 255)
        XCTAssertTrue(exec.stderr.contains("is revoked in RevokedHostKeys"), exec.stderr)
        XCTAssertTrue(exec.stderr.contains("nothing was sent"), exec.stderr)
    }
}

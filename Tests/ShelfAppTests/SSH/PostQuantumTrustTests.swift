// PostQuantumTrustTests: `sshelf trust` on a server that offers only post-quantum key exchange (a real sshd with
// `KexAlgorithms sntrup761x25519-sha512@openssh.com`): with the host's `pq require`, and by itself after the failed
// handshake, the key is read through OpenSSH's ssh over the post-quantum key exchange (sshd's log shows it), checked
// against --fingerprint and pinned; no credential is offered (sshd's log has no key or password attempt), the private
// temporary known_hosts is gone, and the pin holds for the next session. Both libssh2 versions (SSH_MATRIX_TESTS).
import Foundation
import TestSupport
import XCTest

final class PostQuantumTrustTests: XCTestCase {
    static let kexLine = "kex: algorithm: sntrup761x25519-sha512@openssh.com"

    private func postQuantumOnlyWorld() throws -> SSHCLIWorld {
        var options = SSHD.Options()
        options.extraConfig = ["KexAlgorithms sntrup761x25519-sha512@openssh.com"]
        let world = try SSHCLIWorld(options: options)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        return world
    }

    private func assertNoCredentialOffered(_ world: SSHCLIWorld, line: UInt = #line) {
        for attempt in [
            "Accepted", "Failed publickey", "Failed password", "Postponed publickey", "keyboard-interactive",
        ] {
            XCTAssertFalse(world.sshd.log.contains(attempt), "'\(attempt)' in: \(world.sshd.log)", line: line)
        }
    }

    private func assertNoTemporaryFile(_ world: SSHCLIWorld, line: UInt = #line) throws {
        let run = world.home.sshelfHome + "/run"
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: run)) ?? []).filter { $0.hasPrefix("trust-") }
        XCTAssertEqual(left, [], line: line)
    }

    func testTrustOnAHostThatRequiresPostQuantumReadsTheKeyOverAPostQuantumKeyExchange() throws {
        let world = try postQuantumOnlyWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        let fingerprint = try world.fingerprint(world.sshd)

        let wrong = try world.home.run("trust", "t", "--fingerprint", "SHA256:" + String(repeating: "A", count: 43))
        XCTAssertExit(wrong, 1)
        XCTAssertTrue(wrong.stderr.contains("offered ssh-ed25519 \(fingerprint), not SHA256:AAAA"), wrong.stderr)
        XCTAssertFalse(try world.home.run("show", "t").stdout.contains(fingerprint))

        let trust = try world.home.run("trust", "t", "--fingerprint", fingerprint)
        XCTAssertExit(trust, 0)
        XCTAssertTrue(trust.stdout.contains("pinned ssh-ed25519 \(fingerprint) for t"), trust.stdout)
        XCTAssertTrue(
            trust.stderr.contains(
                "sshelf: note: t requires post-quantum key exchange (its pq setting is require), which sshelf's own "
                    + "client (libssh2 "), trust.stderr)
        XCTAssertTrue(trust.stderr.contains("; reading its key through OpenSSH's ssh"), trust.stderr)
        XCTAssertTrue(world.sshd.waitForLog(Self.kexLine, count: 2), world.sshd.log)
        XCTAssertEqual(world.sshd.logCount("kex: algorithm: curve25519"), 0, world.sshd.log)
        assertNoCredentialOffered(world)
        try assertNoTemporaryFile(world)

        // The pin is what the next session's ssh trusts (sshelf's pins alone): it logs in without a question.
        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "pinned-pq")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "pinned-pq\n")
    }

    func testTrustOnAPostQuantumOnlyServerHandsTheKeyFetchToOpenSSH() throws {
        let world = try postQuantumOnlyWorld()
        let fingerprint = try world.fingerprint(world.sshd)
        let trust = try world.home.run("trust", "t", "--fingerprint", fingerprint)
        XCTAssertExit(trust, 0)
        XCTAssertTrue(trust.stdout.contains("pinned ssh-ed25519 \(fingerprint) for t"), trust.stdout)
        XCTAssertTrue(
            trust.stderr.contains(
                "sshelf: note: t offers only post-quantum key exchange (sntrup761x25519-sha512@openssh.com), which "
                    + "sshelf's own client (libssh2 "), trust.stderr)
        XCTAssertTrue(trust.stderr.contains("; reading its key through OpenSSH's ssh"), trust.stderr)
        XCTAssertTrue(world.sshd.waitForLog(Self.kexLine), world.sshd.log)
        assertNoCredentialOffered(world)
        try assertNoTemporaryFile(world)
        XCTAssertTrue(try world.home.run("show", "t").stdout.contains(fingerprint))
    }
}

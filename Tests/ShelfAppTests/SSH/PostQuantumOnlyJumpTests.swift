// PostQuantumOnlyJumpTests: a jump host that offers only post-quantum key exchange (a real sshd with only
// sntrup761x25519) fails libssh2's handshake; sshelf probes it (the outermost hop, reached directly) and hands the
// whole chain to OpenSSH's ssh, saying why, for exec and run. A post-quantum-only server behind a classical jump host
// is found out from its first packet as it passes through the jump channel, and handed over the same way. Both
// libssh2 versions (SSH_MATRIX_TESTS).
import Foundation
import TestSupport
import XCTest

final class PostQuantumOnlyJumpTests: XCTestCase {
    /// A jump host that offers only sntrup761x25519 (pinned while it still offered a classical one: its host key is
    /// the target's server's): `exec` and `run` to the host behind it go through OpenSSH, naming the jump host.
    func testAPostQuantumOnlyJumpHostHandsTheChainToOpenSSH() throws {
        let (world, pqOnly) = try pinnedWorldAndPostQuantumOnlyServer()
        XCTAssertExit(try world.home.run("edit", "bastion", "--port", String(pqOnly.port)), 0)
        XCTAssertExit(try world.home.run("edit", "t", "--jump", "bastion"), 0)
        let why =
            "bastion offers only post-quantum key exchange (sntrup761x25519-sha512@openssh.com), which sshelf's "
            + "own client (libssh2 "

        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "behind-pq")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "behind-pq\n")
        XCTAssertTrue(exec.stderr.contains("sshelf: note: " + why), exec.stderr)
        XCTAssertTrue(pqOnly.waitForLog(PostQuantumRequireTests.kexLine), pqOnly.log)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)

        try assertRunGoesThroughOpenSSH(world, pqOnly, printing: "behind-pq", why: why)
    }

    /// The target behind a classical jump host offers only sntrup761x25519 (pinned while its server still offered a
    /// classical one): the failed inner handshake names it, and exec, run and cp go through OpenSSH saying why.
    func testAPostQuantumOnlyServerBehindAJumpHostIsHandedToOpenSSH() throws {
        let (world, pqOnly) = try pinnedWorldAndPostQuantumOnlyServer()
        XCTAssertExit(try world.home.run("edit", "t", "--port", String(pqOnly.port), "--jump", "bastion"), 0)
        let why =
            "t offers only post-quantum key exchange (sntrup761x25519-sha512@openssh.com), which sshelf's own client "
            + "(libssh2 "

        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "inner-pq")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "inner-pq\n")
        XCTAssertTrue(exec.stderr.contains("sshelf: note: " + why), exec.stderr)
        XCTAssertEqual(exec.stderr.components(separatedBy: "sshelf: note: ").count - 1, 1, exec.stderr)
        XCTAssertTrue(pqOnly.waitForLog(PostQuantumRequireTests.kexLine), pqOnly.log)
        XCTAssertTrue(pqOnly.waitForLog("Accepted publickey"), pqOnly.log)

        try assertRunGoesThroughOpenSSH(world, pqOnly, printing: "inner-pq", why: why)
    }

    /// Host `bastion` on the world's sshd and host `t`, both pinned to that server's key, and a second sshd with the
    /// same host keys that offers only sntrup761x25519.
    private func pinnedWorldAndPostQuantumOnlyServer() throws -> (SSHCLIWorld, SSHD) {
        let world = try SSHCLIWorld()
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        try world.addHost("bastion", world.sshd)
        let fingerprint = try world.fingerprint(world.sshd)
        XCTAssertExit(try world.home.run("trust", "bastion", "--fingerprint", fingerprint), 0)
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", fingerprint), 0)
        var options = SSHD.Options()
        options.extraConfig = ["KexAlgorithms sntrup761x25519-sha512@openssh.com"]
        options.hostKeysFrom = world.sshd.directory
        options.authorizedKeys = [world.key.publicLine]
        return (world, try SSHD.start(options))
    }

    /// `run t` prints `word`, its JSON record says why it went through OpenSSH, and the post-quantum-only server saw
    /// a second post-quantum key exchange (the first was exec's).
    private func assertRunGoesThroughOpenSSH(
        _ world: SSHCLIWorld, _ pqOnly: SSHD, printing word: String, why: String, line: UInt = #line
    ) throws {
        let run = try world.home.run("run", "t", "--json", "--", "echo \(word)")
        XCTAssertExit(run, 0, line: line)
        let record = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(run.stdout.split(separator: "\n")[0].utf8)) as? [String: Any])
        XCTAssertEqual(record["stdout"] as? String, "\(word)\n", line: line)
        XCTAssertTrue((record["openssh"] as? String)?.hasPrefix(why) == true, "\(record)", line: line)
        XCTAssertTrue(pqOnly.waitForLog(PostQuantumRequireTests.kexLine, count: 2), pqOnly.log, line: line)
    }
}

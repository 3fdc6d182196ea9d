// PostQuantumOnlyTests: a real sshd that offers only a post-quantum key exchange (`KexAlgorithms
// sntrup761x25519-sha512@openssh.com`), which libssh2 does not have: `exec` and `connect` hand the host to OpenSSH's
// ssh by themselves, with one line saying why, and sshd's log shows the post-quantum key exchange it agreed on;
// `show` names it as the host's last session's.
import Foundation
import TestSupport
import XCTest

final class PostQuantumOnlyTests: XCTestCase {
    func testAServerOfferingOnlyPostQuantumKeyExchangeIsReachedThroughOpenSSH() throws {
        var options = SSHD.Options()
        options.extraConfig = ["KexAlgorithms sntrup761x25519-sha512@openssh.com"]
        let world = try SSHCLIWorld(options: options)
        defer { _ = try? world.home.run(["agent", "stop"]) }
        // sshelf's own client cannot finish a key exchange with it, so it cannot learn the host key to pin: a
        // known_hosts file of the user's has it (OpenSSH reads ~ from the password database, not $HOME: the file is
        // named on the host).
        let hostKey = try String(contentsOfFile: world.sshd.directory + "/ssh_host_ed25519_key.pub", encoding: .utf8)
        let knownHosts = try world.home.write("\(world.sshd.knownHostsName) \(hostKey)", to: "pq_known_hosts")
        XCTAssertExit(
            try world.home.run(
                "edit", "t", "--option", "UserKnownHostsFile \(knownHosts)", "--option", "StrictHostKeyChecking yes"), 0
        )

        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "pq-ok")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "pq-ok\n")
        let note =
            "sshelf: note: t offers only post-quantum key exchange (sntrup761x25519-sha512@openssh.com), which "
            + "sshelf's own client (libssh2 "
        XCTAssertTrue(exec.stderr.contains(note), exec.stderr)
        XCTAssertEqual(
            exec.stderr.components(separatedBy: "; handing the session to OpenSSH's ssh with the sshelf agent").count
                - 1, 1, exec.stderr)
        XCTAssertTrue(world.sshd.waitForLog("kex: algorithm: sntrup761x25519-sha512@openssh.com"), world.sshd.log)
        XCTAssertTrue(world.sshd.waitForLog("Accepted publickey"), world.sshd.log)
        // The session handed over is the host's last, with the key exchange OpenSSH's ssh used.
        let show = try world.home.run("show", "t")
        XCTAssertTrue(
            show.stdout.contains("sntrup761x25519-sha512@openssh.com (post-quantum) (its last session"), show.stdout)

        let connect = try world.home.run(["connect", "t"], stdin: "echo via-shell; exit 3\n")
        XCTAssertEqual(connect.status, 3, "the shell's exit status: \(connect)")
        XCTAssertTrue(connect.stdout.contains("via-shell"), "\(connect)")
        XCTAssertTrue(connect.stderr.contains(note), connect.stderr)
    }
}

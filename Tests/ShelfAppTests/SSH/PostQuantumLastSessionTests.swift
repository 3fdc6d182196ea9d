// PostQuantumLastSessionTests: a `run` or `cp` handed to OpenSSH for post-quantum key exchange is recorded as the
// host's last session with the key exchange ssh's own log names (a real sshd, both libssh2 versions): `show` says it,
// and `check` no longer lists the host among those whose last session was not post-quantum — even with the setting
// off again; ssh's own errors still reach the report.
import Foundation
import TestSupport
import XCTest

final class PostQuantumLastSessionTests: XCTestCase {
    func testARunThroughOpenSSHIsTheHostsLastSessionWithItsKeyExchange() throws {
        let world = try SSHCLIWorld()
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        XCTAssertTrue(try world.home.run("show", "t").stdout.contains("curve25519-sha256 (not post-quantum)"))
        XCTAssertTrue(try world.home.run("check").stdout.contains("\n  t: curve25519-sha256\n"))

        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        let run = try world.home.run("run", "t", "--", "echo through-openssh")
        XCTAssertExit(run, 0)
        XCTAssertTrue(run.stdout.contains("through-openssh"), run.stdout)
        XCTAssertFalse(run.stdout.contains("debug1"), run.stdout)
        XCTAssertFalse(run.stderr.contains("debug1"), run.stderr)
        let show = try world.home.run("show", "t")
        XCTAssertTrue(
            show.stdout.contains("sntrup761x25519-sha512@openssh.com (post-quantum) (its last session"), show.stdout)
        // With the setting off again, check judges the last session: post-quantum, so t is not listed.
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "off"), 0)
        XCTAssertFalse(try world.home.run("check").stdout.contains("not post-quantum"))
        let runDirectory = world.home.sshelfHome + "/run"
        let logs = ((try? FileManager.default.contentsOfDirectory(atPath: runDirectory)) ?? [])
            .filter { $0.hasPrefix("run-ssh-") }
        XCTAssertEqual(logs, [], "ssh's log is removed")

        // cp through OpenSSH's scp too: a session of the own client first (classical), then one through scp.
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "true"), 0)
        XCTAssertTrue(try world.home.run("show", "t").stdout.contains("curve25519-sha256 (not post-quantum)"))
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        let source = try world.home.write("copied over post-quantum\n", to: "pq-last-source")
        let shared = "/tmp/sshelf-pq-last-\(UUID().uuidString.prefix(8))"
        defer { unlink(shared) }
        let cp = try world.home.run("cp", source, "t:\(shared)")
        XCTAssertExit(cp, 0)
        XCTAssertEqual(try String(contentsOfFile: shared, encoding: .utf8), "copied over post-quantum\n")
        XCTAssertFalse(cp.stdout.contains("debug1") || cp.stderr.contains("debug1"), "\(cp)")
        XCTAssertTrue(
            try world.home.run("show", "t").stdout.contains("sntrup761x25519-sha512@openssh.com (post-quantum)"))
        let missing = try world.home.run("cp", "t:/nonexistent-\(UUID().uuidString.prefix(8))", source + ".back")
        XCTAssertNotEqual(missing.status, 0, "\(missing)")
        XCTAssertTrue(missing.stdout.contains("OpenSSH's scp: "), "\(missing)")
        XCTAssertFalse(missing.stdout.contains("debug1"), "\(missing)")

        // ssh's own error (from its log) still names the failure: a refused login.
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require", "--user", "nobody-here"), 0)
        let refused = try world.home.run("run", "t", "--", "echo no")
        XCTAssertNotEqual(refused.status, 0, "\(refused)")
        XCTAssertTrue(refused.stdout.contains("Permission denied"), "\(refused)")
    }
}

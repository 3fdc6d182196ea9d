// PostQuantumRequireTests: the `pq` setting with a real sshd. `edit HOST --pq require` (or `group edit --pq require`)
// sends connect, exec, run, cp and forward start through OpenSSH's ssh limited to post-quantum key exchanges, each
// with one line saying why, and sshd's log shows sntrup761x25519 for every session; a server that offers only a
// classical key exchange is refused rather than reached with one. A server that offers only post-quantum key exchange
// is handed to OpenSSH by run and cp too. Both libssh2 versions (SSH_MATRIX_TESTS).
import Foundation
import TestSupport
import XCTest

final class PostQuantumRequireTests: XCTestCase {
    static let kexLine = "kex: algorithm: sntrup761x25519-sha512@openssh.com"

    /// The world with t's key pinned (run and cp through OpenSSH take pinned hosts only).
    private func pinnedWorld(_ options: SSHD.Options = SSHD.Options()) throws -> SSHCLIWorld {
        let world = try SSHCLIWorld(options: options)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        XCTAssertExit(try world.home.run("trust", "t", "--fingerprint", try world.fingerprint(world.sshd)), 0)
        return world
    }

    func testRequireSendsEverySessionThroughOpenSSHWithPostQuantumKeyExchange() throws {
        let world = try pinnedWorld()
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        let why =
            "t requires post-quantum key exchange (its pq setting is require), which sshelf's own client (libssh2 "

        let show = try world.home.run("show", "t")
        XCTAssertTrue(show.stdout.contains("post-quantum   required (its pq setting is require)"), show.stdout)
        let json = try world.home.run("show", "t", "--json")
        XCTAssertTrue(json.stdout.contains("\"pq\" : \"require\""), json.stdout)

        // The pin was taken by sshelf's own client (a classical key exchange, no login): none after it.
        let classical = world.sshd.logCount("kex: algorithm: curve25519")
        var sessions = 0
        func assertPostQuantumSession(_ what: String, _ output: String, line: UInt = #line) {
            sessions += 1
            XCTAssertTrue(output.contains(why), "\(what): \(output)", line: line)
            XCTAssertTrue(
                world.sshd.waitForLog(Self.kexLine, count: sessions), "\(what): \(world.sshd.log)", line: line)
            XCTAssertEqual(world.sshd.logCount("kex: algorithm: curve25519"), classical, world.sshd.log, line: line)
        }

        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "pq-exec")
        XCTAssertExit(exec, 0)
        XCTAssertEqual(exec.stdout, "pq-exec\n")
        XCTAssertEqual(exec.stderr.components(separatedBy: "handing the session to OpenSSH's ssh").count - 1, 1)
        assertPostQuantumSession("exec", exec.stderr)
        // The bridge limits t to post-quantum key exchanges too (what a jump through t and the user's own ssh read).
        let bridge = try String(contentsOfFile: world.home.sshelfHome + "/config/ssh_config", encoding: .utf8)
        XCTAssertTrue(bridge.contains("    KexAlgorithms sntrup761x25519-sha512@openssh.com"), bridge)

        let connect = try world.home.run(["connect", "t"], stdin: "echo via-shell; exit 3\n")
        XCTAssertEqual(connect.status, 3, "the shell's exit status: \(connect)")
        XCTAssertTrue(connect.stdout.contains("via-shell"), "\(connect)")
        assertPostQuantumSession("connect", connect.stderr)

        let run = try world.home.run("run", "t", "--", "echo pq-run")
        XCTAssertExit(run, 0)
        XCTAssertTrue(run.stdout.contains("pq-run\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("through OpenSSH"), run.stdout)
        let dry = try world.home.run("run", "t", "--dry-run", "--", "echo pq-run")
        XCTAssertTrue(dry.stdout.contains(why), dry.stdout)
        assertPostQuantumSession("run", dry.stdout)

        let source = try world.home.write("post-quantum bytes\n", to: "pq-source")
        let shared = "/tmp/sshelf-pq-\(UUID().uuidString.prefix(8))"
        defer { unlink(shared) }
        let cp = try world.home.run("cp", source, "t:\(shared)")
        XCTAssertExit(cp, 0)
        XCTAssertEqual(try String(contentsOfFile: shared, encoding: .utf8), "post-quantum bytes\n")
        XCTAssertTrue(cp.stdout.contains("copied through OpenSSH's scp"), cp.stdout)
        assertPostQuantumSession("cp", cp.stdout)

        let target = try ReverseServer()
        let port = try world.addLocalRule(to: target.port)
        let forward = try BackgroundCLI(world.home, ["forward", "start", "t"])
        try forward.waitFor("press Ctrl-C")
        XCTAssertTrue(forward.stderr.contains("through OpenSSH's ssh"), forward.stderr)
        let reply = try eventually(
            "the forward to carry bytes", observe: { try? TrafficSocket.roundTrip(port: port, Array("pq".utf8)) },
            until: { $0 == Array("qp".utf8) })
        XCTAssertEqual(reply, Array("qp".utf8))
        XCTAssertEqual(try forward.stop(SIGINT), 0, forward.stderr)
        assertPostQuantumSession("forward start", forward.stderr)

        // Off again: sshelf's own client, which says its key exchange is not post-quantum.
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "off"), 0)
        let own = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "own")
        XCTAssertExit(own, 0)
        XCTAssertFalse(own.stderr.contains("OpenSSH"), own.stderr)
        XCTAssertTrue(world.sshd.waitForLog("kex: algorithm: curve25519", count: classical + 1), world.sshd.log)
        // `check` lists t (its last session was sshelf's own, classical) until it requires post-quantum again.
        let listed = try world.home.run("check")
        XCTAssertTrue(
            listed.stdout.contains("hosts whose last session was not post-quantum")
                && listed.stdout.contains("\n  t: curve25519-sha256\n") && listed.stdout.contains("--pq require"),
            listed.stdout)
        XCTAssertExit(try world.home.run("edit", "t", "--pq", "require"), 0)
        XCTAssertFalse(try world.home.run("check").stdout.contains("not post-quantum"))
    }

    /// A group's require covers its hosts; a server that offers no post-quantum key exchange is refused by OpenSSH
    /// (KexAlgorithms holds only post-quantum ones), never reached with a classical one: nothing is logged in.
    func testAGroupsRequireNeverFallsBackToAClassicalKeyExchange() throws {
        var options = SSHD.Options()
        options.extraConfig = ["KexAlgorithms curve25519-sha256"]
        let world = try pinnedWorld(options)
        let pinning = world.sshd.logCount("kex: algorithm: curve25519")
        XCTAssertExit(try world.home.run("edit", "t", "--group", "prod/eu"), 0)
        let edit = try world.home.run("group", "edit", "prod", "--pq", "require")
        XCTAssertExit(edit, 0)
        XCTAssertTrue(edit.stdout.contains("group prod: pq require (1 host in it go"), edit.stdout)
        XCTAssertTrue(try world.home.run("group", "list").stdout.contains("pq require"))
        let show = try world.home.run("show", "t")
        XCTAssertTrue(show.stdout.contains("required (group prod sets pq require)"), show.stdout)

        let exec = try world.home.run("exec", "t", "--no-stdin", "--", "echo", "classical")
        XCTAssertNotEqual(exec.status, 0, "\(exec)")
        XCTAssertFalse(exec.stdout.contains("classical"), exec.stdout)
        XCTAssertTrue(
            exec.stderr.contains("t requires post-quantum key exchange (group prod sets pq require)"), exec.stderr)
        XCTAssertTrue(exec.stderr.contains("no matching key exchange method found"), exec.stderr)
        let run = try world.home.run("run", "t", "--", "echo classical")
        XCTAssertNotEqual(run.status, 0, "\(run)")
        XCTAssertFalse(run.stdout.contains("classical\n"), run.stdout)
        XCTAssertTrue(world.sshd.waitForLog("no matching key exchange method found", count: 2), world.sshd.log)
        XCTAssertFalse(world.sshd.log.contains("Accepted"), world.sshd.log)
        XCTAssertEqual(world.sshd.logCount("kex: algorithm: curve25519"), pinning, world.sshd.log)
        XCTAssertEqual(world.sshd.logCount("kex: algorithm: (no match)"), 2, world.sshd.log)

        XCTAssertExit(try world.home.run("group", "edit", "prod", "--pq", "off"), 0)
        XCTAssertExit(try world.home.run("exec", "t", "--no-stdin", "--", "echo", "classical"), 0)
        let bad = try world.home.run("group", "edit", "prod", "--pq", "maybe")
        XCTAssertExit(bad, 4)
        XCTAssertTrue(bad.stderr.contains("--pq: unknown value 'maybe'"), bad.stderr)
    }

    /// A server with only sntrup761x25519 (its host key the same as the first server's, so the pin sshelf's own
    /// client took there holds): `run` and `cp` hand it to OpenSSH after the failed handshake, saying why.
    func testRunAndCopyHandAPostQuantumOnlyServerToOpenSSH() throws {
        let world = try pinnedWorld()
        var options = SSHD.Options()
        options.extraConfig = ["KexAlgorithms sntrup761x25519-sha512@openssh.com"]
        options.hostKeysFrom = world.sshd.directory
        options.authorizedKeys = [world.key.publicLine]
        let pqOnly = try SSHD.start(options)
        XCTAssertExit(try world.home.run("edit", "t", "--port", String(pqOnly.port)), 0)
        let why =
            "t offers only post-quantum key exchange (sntrup761x25519-sha512@openssh.com), which sshelf's own "
            + "client (libssh2 "

        let run = try world.home.run("run", "t", "--json", "--", "echo pq-only")
        XCTAssertExit(run, 0)
        let record = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(run.stdout.split(separator: "\n")[0].utf8)) as? [String: Any])
        XCTAssertEqual(record["stdout"] as? String, "pq-only\n")
        XCTAssertTrue((record["openssh"] as? String)?.hasPrefix(why) == true, "\(record)")
        XCTAssertTrue(pqOnly.waitForLog(Self.kexLine), pqOnly.log)

        let source = try world.home.write("only post-quantum\n", to: "pq-only-source")
        let shared = "/tmp/sshelf-pq-only-\(UUID().uuidString.prefix(8))"
        defer { unlink(shared) }
        let cp = try world.home.run("cp", source, "t:\(shared)")
        XCTAssertExit(cp, 0)
        XCTAssertEqual(try String(contentsOfFile: shared, encoding: .utf8), "only post-quantum\n")
        XCTAssertTrue(cp.stdout.contains("copied through OpenSSH's scp"), cp.stdout)
        XCTAssertTrue(cp.stdout.contains(why), cp.stdout)
        XCTAssertTrue(pqOnly.waitForLog(Self.kexLine, count: 2), pqOnly.log)
    }
}

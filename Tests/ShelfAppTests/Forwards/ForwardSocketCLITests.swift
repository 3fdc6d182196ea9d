// ForwardSocketCLITests: unix-socket forward rules through the real binary — stored by `forward add` in OpenSSH's
// spelling and exported as written; `forward start` refusing before it connects what sshelf's own client cannot run
// (every -R with a socket, and -L to a socket on libssh2 1.10, found out as `version --verbose` reports it), naming
// the way out; and `forward start --openssh` carrying bytes through a socket sshd listens on (-R /a.sock:/b.sock).
import Foundation
import TestSupport
import XCTest

final class ForwardSocketCLITests: XCTestCase {
    func testSocketRulesAreStoredAndExportedAsWritten() throws {
        let world = try SSHCLIWorld()
        let local = try world.home.run("forward", "add", "t", "--local", "5555:/var/run/docker.sock")
        XCTAssertExit(local, 0)
        XCTAssertTrue(local.stdout.contains("-L 127.0.0.1:5555:/var/run/docker.sock"), local.stdout)
        XCTAssertExit(try world.home.run("forward", "add", "t", "--remote", "/run/a.sock:/run/b.sock"), 0)
        let bad = try world.home.run("forward", "add", "t", "--local", "5555:/var/run/\u{1B}x.sock")
        XCTAssertExit(bad, 4)
        XCTAssertTrue(bad.stderr.contains("invalid -L spec") && bad.stderr.contains("target socket path"), bad.stderr)
        let listed = try world.home.run("forward", "list", "t")
        XCTAssertTrue(listed.stdout.contains("/run/a.sock:/run/b.sock"), listed.stdout)
        let exported = try world.home.run("export", "ssh-config")
        XCTAssertExit(exported, 0)
        XCTAssertTrue(
            exported.stdout.contains("    LocalForward 127.0.0.1:5555 /var/run/docker.sock\n"), exported.stdout)
        XCTAssertTrue(exported.stdout.contains("    RemoteForward /run/a.sock /run/b.sock\n"), exported.stdout)
    }

    func testForwardStartRefusesWhatTheOwnClientCannotRunBeforeConnecting() throws {
        let world = try SSHCLIWorld()
        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--remote", "/run/a.sock:/run/b.sock", "--name", "gpg"), 0)
        let remote = try world.home.run("forward", "start", "t", "gpg", "--accept-new")
        XCTAssertExit(remote, 1)
        XCTAssertTrue(
            remote.stderr.contains(
                "-R /run/a.sock:/run/b.sock listens on a unix socket, which sshelf's own client "
                    + "cannot do with any libssh2"),
            remote.stderr)
        XCTAssertTrue(remote.stderr.contains("sshelf forward start --openssh t "), remote.stderr)

        XCTAssertExit(
            try world.home.run("forward", "add", "t", "--local", "5555:/var/run/docker.sock", "--name", "docker"), 0)
        let newer = try world.home.run("version", "--verbose").stdout
            .contains("  yes -L forwards to a unix socket on the server")
        if !newer {
            let local = try world.home.run("forward", "start", "t", "docker", "--accept-new")
            XCTAssertExit(local, 1)
            for part in [
                "-L 127.0.0.1:5555:/var/run/docker.sock forwards to a unix socket on the server, which needs "
                    + "libssh2 1.11 or later",
                "libssh2-1t64", "sshelf forward start --openssh t ",
            ] {
                XCTAssertTrue(local.stderr.contains(part), "missing '\(part)' in: \(local.stderr)")
            }
        }
        XCTAssertEqual(world.sshd.logCount("Connection from"), 0, "refused before connecting")
    }

    func testRemoteSocketForwardThroughOpenSSHCarriesBytes() throws {
        let world = try BridgeWorld()
        var options = SSHD.Options()
        options.extraConfig = ["AllowStreamLocalForwarding yes", "StreamLocalBindUnlink yes"]
        let server = try world.server(options)
        try world.addHost("sock", on: server)
        try world.startAgent()
        let directory = "/tmp/sshelf-rsock-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let here = try UnixReverseServer(path: directory + "/here.sock")
        let there = directory + "/there.sock"
        XCTAssertExit(
            try world.home.run("forward", "add", "sock", "--remote", "\(there):\(here.path)", "--name", "r"), 0)
        let running = try BackgroundCLI(world.home, ["forward", "start", "--openssh", "sock", "r"])
        try running.waitFor("press Ctrl-C")
        XCTAssertTrue(
            running.stderr.contains("forwarding -R \(there):\(here.path) through OpenSSH's ssh"), running.stderr)
        // sshd makes the socket once ssh's streamlocal-forward request arrives: wait for it to answer.
        let reply = try eventually(
            "the server's socket to answer",
            observe: {
                try? UnixSocket.roundTrip(path: there, Array("through openssh".utf8))
            }, until: { $0 == Array("hssnepo hguorht".utf8) })
        XCTAssertEqual(reply, Array("hssnepo hguorht".utf8))
        XCTAssertEqual(try running.stop(SIGINT), 0, running.stderr)
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)
        // The private config ssh read is gone with it.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: world.home.sshelfHome + "/run")) ?? []
        XCTAssertFalse(left.contains { $0.hasPrefix("forward-openssh-") }, "\(left)")
    }
}

// EveryKeyTests: a host whose RSA key the loaded libssh2 cannot sign with (1.10: ssh-rsa only) works in `exec` and
// `run` as in `connect`: it goes through OpenSSH's ssh with the sshelf agent and sshelf's pins, and the run's report,
// --json and --dry-run say which host went that way and why. On libssh2 1.11.1 (make test's second pass) the same
// hosts log in through sshelf's own client and nothing says OpenSSH. Real sshd, the key only in the vault.
import Foundation
import TestSupport
import XCTest

final class EveryKeyTests: XCTestCase {
    /// Two hosts in one group: `ed` logs in with the ed25519 vault key, `rsa` with an RSA key imported into the vault.
    private func world() throws -> (BridgeWorld, rsaServer: SSHD, newer: Bool) {
        let world = try BridgeWorld()
        let key = try TestKey.generate(.rsa)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let rsaServer = try SSHD.start(options)
        XCTAssertExit(try world.home.run("identity", "import", "rsa1", key.privatePath), 0)
        XCTAssertExit(
            try world.home.run(
                "add", "rsa", "--host", rsaServer.options.listenAddress, "--port", String(rsaServer.port),
                "--user", TestAccount.name, "--identity", "rsa1", "--group", "mixed"), 0)
        XCTAssertExit(try world.home.run("trust", "rsa", "--fingerprint", try world.fingerprint(rsaServer)), 0)
        try world.addHost("ed", on: try world.server())
        XCTAssertExit(try world.home.run("mv", "ed", "--group", "mixed"), 0)
        addTeardown { _ = try? world.home.run(["agent", "stop"]) }
        let newer = try world.home.run("version", "--verbose").stdout.contains("  yes RSA keys sign with rsa-sha2")
        return (world, rsaServer, newer)
    }

    func testAnRSAHostInARunGoesThroughOpenSSHWhereTheLibraryCannotSign() throws {
        let (world, rsaServer, newer) = try world()
        let why = "rsa logs in with the RSA key of identity 'rsa1', which libssh2 1.10"

        let dry = try world.home.run("run", "@mixed", "--dry-run", "--", "echo ran")
        XCTAssertExit(dry, 0)
        XCTAssertEqual(
            dry.stdout.contains("goes through OpenSSH's ssh with the sshelf agent and sshelf's pins"), !newer,
            dry.stdout)
        XCTAssertEqual(dry.stdout.contains(why), !newer, dry.stdout)

        let run = try world.home.run("run", "@mixed", "--", "echo ran")
        XCTAssertExit(run, 0)
        XCTAssertTrue(run.stdout.contains("ran\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("2 hosts: 2 succeeded"), run.stdout)
        let lines = run.stdout.split(separator: "\n")
        if newer {
            // Both through sshelf's own client: they ended alike and share one status line.
            XCTAssertTrue(lines.contains { $0.hasPrefix("ed,rsa (2): exit 0") }, run.stdout)
            XCTAssertFalse(run.stdout.contains("through OpenSSH"), run.stdout)
        } else {
            XCTAssertTrue(lines.contains { $0.hasPrefix("rsa: exit 0") && $0.contains("through OpenSSH") }, run.stdout)
            XCTAssertTrue(lines.contains { $0.hasPrefix("ed: exit 0") && !$0.contains("through OpenSSH") }, run.stdout)
        }
        // Signed with rsa-sha2-512 either way: by OpenSSH through the sshelf agent, or by libssh2 1.11 itself.
        XCTAssertTrue(rsaServer.waitForLog("Accepted publickey"), rsaServer.log)
        XCTAssertTrue(rsaServer.log.contains("pkalg rsa-sha2-512"), rsaServer.log)

        let json = try world.home.run("run", "@mixed", "--json", "--", "echo ran")
        XCTAssertExit(json, 0)
        let records = try json.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let rsa = try XCTUnwrap(records.first { $0["name"] as? String == "rsa" })
        let ed = try XCTUnwrap(records.first { $0["name"] as? String == "ed" })
        XCTAssertEqual(rsa["outcome"] as? String, "succeeded")
        XCTAssertEqual(rsa["stdout"] as? String, "ran\n")
        XCTAssertNotNil(rsa["fingerprint"] as? String, "the pinned key ssh was held to")
        if newer {
            XCTAssertNil(rsa["openssh"], "\(rsa)")
        } else {
            XCTAssertTrue((rsa["openssh"] as? String)?.contains(why) == true, "\(rsa)")
        }
        XCTAssertNil(ed["openssh"], "\(ed)")
    }

    func testExecOfAnRSAHostGoesThroughOpenSSHWhereTheLibraryCannotSign() throws {
        let (world, rsaServer, newer) = try world()
        let exec = try world.home.run(["exec", "rsa", "--", "echo", "exec-ok;", "exit", "7"], stdin: "")
        XCTAssertExit(exec, 7)
        XCTAssertEqual(exec.stdout, "exec-ok\n")
        XCTAssertEqual(exec.stderr.contains("handing the session to OpenSSH's ssh"), !newer, exec.stderr)
        XCTAssertFalse(exec.stderr.contains("make "), "no source-tree target for a package user: \(exec.stderr)")
        XCTAssertTrue(rsaServer.waitForLog("Accepted publickey"), rsaServer.log)
        XCTAssertTrue(rsaServer.log.contains("pkalg rsa-sha2-512"), rsaServer.log)
    }

    /// OpenSSH is held to sshelf's pins: a host handed over with no pin is refused before ssh starts, with the fix
    /// (stricter than sshelf's own client on 1.11, which also trusts sshelf's known_hosts), and a pin that is not the
    /// server's key stops ssh before any login, as sshelf's own client refuses it on 1.11.
    func testAHandedOverHostIsHeldToSshelfsPins() throws {
        let (world, rsaServer, newer) = try world()
        let add = [
            "--host", rsaServer.options.listenAddress, "--port", String(rsaServer.port), "--user", TestAccount.name,
            "--identity", "rsa1",
        ]
        XCTAssertExit(try world.home.run(["add", "rsa2"] + add), 0)
        let connections = newer ? 0 : rsaServer.logCount("Connection from")
        let unpinned = try world.home.run("run", "rsa2", "--json", "--", "echo ran")
        if newer {
            // sshelf's own client also trusts sshelf's known_hosts, where `trust rsa` put this address's key.
            XCTAssertExit(unpinned, 0)
        } else {
            // OpenSSH is given the pins alone: a host with none is refused before ssh starts.
            XCTAssertExit(unpinned, 255)
            XCTAssertTrue(unpinned.stdout.contains("\"outcome\":\"host-key-refused\""), unpinned.stdout)
            XCTAssertTrue(unpinned.stdout.contains("\"fix\":\"sshelf trust rsa2\""), unpinned.stdout)
            XCTAssertTrue(unpinned.stdout.contains("is not pinned in sshelf"), unpinned.stdout)
        }

        // Pinned to another server's key: OpenSSH refuses the host key, no login is tried. (A server of its own: the
        // bridge's pins file is read by address, so a second record at rsa's address would find rsa's pin there.)
        var options = SSHD.Options()
        options.authorizedKeys = rsaServer.options.authorizedKeys
        let third = try SSHD.start(options)
        let other = try world.server()
        XCTAssertExit(
            try world.home.run(
                "add", "wrong", "--host", other.options.listenAddress, "--port", String(other.port),
                "--user", TestAccount.name, "--identity", "rsa1"), 0)
        XCTAssertExit(try world.home.run("trust", "wrong", "--fingerprint", try world.fingerprint(other)), 0)
        XCTAssertExit(try world.home.run("edit", "wrong", "--port", String(third.port)), 0)
        let changed = try world.home.run("run", "wrong", "--", "echo ran")
        XCTAssertExit(changed, 255)
        XCTAssertTrue(changed.stdout.contains("wrong: host key refused: "), changed.stdout)
        XCTAssertEqual(changed.stdout.contains("OpenSSH's ssh:"), !newer, changed.stdout)
        XCTAssertEqual(changed.stdout.contains("through OpenSSH"), !newer, changed.stdout)
        XCTAssertTrue(third.waitForLog("Connection from"), "ssh did reach it: \(third.log)")
        XCTAssertEqual(third.logCount("Accepted publickey"), 0, third.log)
        if !newer {
            XCTAssertEqual(rsaServer.logCount("Connection from"), connections, "the unpinned host was never reached")
        }
    }

    /// `cp` both ways with an RSA host: through OpenSSH's scp on 1.10 (its line says so and why), sshelf's own SFTP on
    /// 1.11; either way setuid is never carried, even with -p.
    func testCopiesOfAnRSAHostGoThroughScpWhereTheLibraryCannotSign() throws {
        let (world, rsaServer, newer) = try world()
        let shared = world.home.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)
        let source = world.home.root + "/src/tool"
        try FileManager.default.createDirectory(
            atPath: world.home.root + "/src", withIntermediateDirectories: true)
        let data = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try data.write(to: URL(fileURLWithPath: source))
        chmod(source, 0o4755)
        let up = try world.home.run("cp", "-p", source, "rsa:\(shared)/")
        XCTAssertExit(up, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: shared + "/tool")), data)
        let mode = try XCTUnwrap(
            (try FileManager.default.attributesOfItem(atPath: shared + "/tool")[.posixPermissions] as? NSNumber)?
                .intValue)
        XCTAssertEqual(mode & 0o7777, 0o755, "setuid never carried to the host")
        XCTAssertEqual(up.stdout.contains("rsa: copied through OpenSSH's scp"), !newer, up.stdout)
        XCTAssertEqual(up.stdout.contains("libssh2 1.10"), !newer, up.stdout)

        let back = world.home.root + "/back"
        let down = try world.home.run("cp", "rsa:\(shared)/tool", back)
        XCTAssertExit(down, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: back)), data)
        XCTAssertEqual(down.stdout.contains("through OpenSSH's scp"), !newer, down.stdout)
        XCTAssertTrue(rsaServer.log.contains("pkalg rsa-sha2-512"), rsaServer.log)

        // A device on the host is refused, not read, either way.
        let device = try world.home.run("cp", "rsa:/dev/zero", world.home.root + "/zero")
        XCTAssertExit(device, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.home.root + "/zero"), device.stdout)
        XCTAssertTrue(device.stdout.contains("rsa: failed"), device.stdout)
    }
}

// BridgeOpenSSHTests: after `sshelf ssh-config install`, OpenSSH's own tools use sshelf's hosts — ssh, scp both ways,
// rsync -e ssh, git ls-remote of a bare repository on the test sshd, a two-hop ProxyJump — with the key that exists
// only in the vault (through the sshelf agent) and sshelf's pins (a changed host key is refused by ssh itself). The
// user's other lines in ~/.ssh/config are byte-identical after install and uninstall; the bridge follows every
// change without being asked.
import Foundation
import TestSupport
import XCTest

final class BridgeOpenSSHTests: XCTestCase {
    func testOpenSSHToolsUseSSHelfHostsVaultKeysAndPins() throws {
        let world = try BridgeWorld()
        let server = try world.server()
        try world.addHost("web1", on: server)
        try world.startAgent()
        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        XCTAssertEqual(BridgeWorld.mode(world.bridge), 0o600)
        XCTAssertEqual(BridgeWorld.mode(world.pins), 0o600)
        XCTAssertEqual(BridgeWorld.mode(world.home.sshelfHome + "/config/keys"), 0o700)

        // Plain ssh, logging in with the vault key through the agent (no key file exists anywhere).
        let plain = try world.ssh(["web1", "echo", "hello-from-web1"])
        XCTAssertExit(plain, 0)
        XCTAssertEqual(plain.stdout, "hello-from-web1\n")
        XCTAssertTrue(server.waitForLog("Accepted publickey"), server.log)

        // scp both ways (sftp subsystem).
        let remote = "/tmp/sshelf-bridge-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: remote) }
        let payload = (0..<4096).map { _ in UInt8.random(in: 0...255) }
        let local = world.home.root + "/payload"
        _ = FileManager.default.createFile(atPath: local, contents: Data(payload))
        XCTAssertExit(
            try world.tool(
                TestTool.scp.path, ["-F", world.userConfig, "-o", "BatchMode=yes", local, "web1:\(remote)"]), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: remote).map([UInt8].init), payload)
        let back = world.home.root + "/back"
        XCTAssertExit(
            try world.tool(TestTool.scp.path, ["-F", world.userConfig, "-o", "BatchMode=yes", "web1:\(remote)", back]),
            0)
        XCTAssertEqual(FileManager.default.contents(atPath: back).map([UInt8].init), payload)

        // rsync over ssh.
        let tree = world.home.root + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/sub", withIntermediateDirectories: true)
        try "one\n".write(toFile: tree + "/a.txt", atomically: true, encoding: .utf8)
        try "two\n".write(toFile: tree + "/sub/b.txt", atomically: true, encoding: .utf8)
        let synced = remote + "-rsync"
        defer { try? FileManager.default.removeItem(atPath: synced) }
        XCTAssertExit(
            try world.tool(TestTool.rsync.path, ["-a", "-e", world.sshCommand, tree + "/", "web1:\(synced)/"]), 0)
        XCTAssertEqual(try String(contentsOfFile: synced + "/sub/b.txt", encoding: .utf8), "two\n")

        // git ls-remote against a bare repository on the server (owned by the login user, as it would be).
        let repository = remote + "-repo.git"
        defer { try? FileManager.default.removeItem(atPath: repository) }
        let work = world.home.root + "/work"
        try Shell.run(TestTool.git.path, ["init", "-q", "--bare", repository])
        try Shell.run(TestTool.git.path, ["init", "-q", work])
        try Shell.run(
            TestTool.git.path,
            ["-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"])
        let head = try Shell.run(TestTool.git.path, ["-C", work, "rev-parse", "HEAD"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try Shell.run(TestTool.git.path, ["-C", work, "push", "-q", repository, "HEAD:refs/heads/main"])
        try Shell.run(TestTool.chown.path, ["-R", TestAccount.name, repository])
        let listed = try world.tool(
            TestTool.git.path, ["ls-remote", "web1:\(repository)"], environment: ["GIT_SSH_COMMAND": world.sshCommand])
        XCTAssertExit(listed, 0)
        XCTAssertTrue(listed.stdout.contains("\(head)\trefs/heads/main"), listed.stdout)
    }

    func testTwoHopProxyJumpByAliasWithEachHopsPin() throws {
        let world = try BridgeWorld()
        let outer = try world.server(), middle = try world.server(), inner = try world.server()
        try world.addHost("outer", on: outer)
        try world.addHost("middle", on: middle)
        try world.addHost("inner", on: inner, jump: ["outer", "middle"])
        try world.startAgent()
        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        XCTAssertTrue(world.text(world.bridge).contains("Host inner\n"), world.text(world.bridge))
        XCTAssertTrue(world.text(world.bridge).contains("    ProxyJump outer,middle\n"), world.text(world.bridge))

        let through = try world.ssh(["inner", "echo", "reached-inner"])
        XCTAssertExit(through, 0)
        XCTAssertEqual(through.stdout, "reached-inner\n")
        // Each hop was a login of its own (the jump hosts with their own block, pins and key).
        XCTAssertTrue(outer.waitForLog("Accepted publickey", count: 2), outer.log)  // trust of inner's chain, then ssh
        XCTAssertTrue(middle.waitForLog("direct-tcpip"), middle.log)
        XCTAssertTrue(inner.waitForLog("Accepted publickey", count: 1), inner.log)
    }

    func testAChangedHostKeyIsRefusedByOpenSSHBecauseOfThePin() throws {
        let world = try BridgeWorld()
        let real = try world.server()
        try world.addHost("t", on: real)
        try world.startAgent()
        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        XCTAssertExit(try world.ssh(["t", "true"]), 0)

        // Same name and user, another server with other host keys: the record keeps its pin.
        let impostor = try world.server()
        XCTAssertExit(try world.home.run("edit", "t", "--port", String(impostor.port)), 0)
        XCTAssertTrue(world.text(world.bridge).contains("Port \(impostor.port)\n"), "the bridge followed the edit")
        let refused = try world.ssh(["t", "true"])
        XCTAssertEqual(refused.status, 255, "\(refused)")
        XCTAssertTrue(
            refused.stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED")
                || refused.stderr.contains("Host key verification failed"),
            refused.stderr)
        impostor.waitForConnectionsEnded()
        XCTAssertFalse(
            impostor.log.contains("userauth-request") || impostor.log.contains("Accepted"),
            "nothing was sent to the impostor after its key:\n\(impostor.log)")
        // The pin stays under the host's own name in the pins file (its HostKeyAlias), whatever its address.
        let shown = try world.home.run("show", "t", "--json")
        let id = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let realKey = try String(contentsOfFile: real.directory + "/ssh_host_ed25519_key.pub", encoding: .utf8)
            .split(separator: " ")[1]
        XCTAssertTrue(
            world.text(world.pins).contains("sshelf-\(id.lowercased()) ssh-ed25519 \(realKey)\n"),
            world.text(world.pins))
        XCTAssertFalse(world.text(world.pins).contains("127.0.0.1"), world.text(world.pins))
    }

    /// Two hosts at one address and port with different pins (one private address behind two jump hosts, say): ssh
    /// through the bridge accepts for each host only its own pin, never the other's.
    func testTwoHostsAtOneAddressDoNotAcceptEachOthersKeys() throws {
        let world = try BridgeWorld()
        let first = try world.server(), second = try world.server()
        try world.addHost("a", on: first)
        try world.addHost("b", on: second)
        try world.startAgent()
        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        XCTAssertExit(try world.ssh(["b", "true"]), 0)
        // b now names a's address and port, with b's own pin (the second server's key).
        XCTAssertExit(try world.home.run("edit", "b", "--port", String(first.port)), 0)
        let refused = try world.ssh(["b", "true"])
        XCTAssertEqual(refused.status, 255, "\(refused)")
        XCTAssertTrue(
            refused.stderr.contains("Host key verification failed")
                || refused.stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED"), refused.stderr)
        XCTAssertExit(try world.ssh(["a", "true"]), 0)
        XCTAssertTrue(world.text(world.bridge).contains("    HostKeyAlias sshelf-"), world.text(world.bridge))
    }

    func testInstallAndUninstallLeaveTheUsersLinesByteIdentical() throws {
        let world = try BridgeWorld()
        // A CRLF line, tabs, a comment, no final newline: every byte must survive.
        let original = Array("# mine\r\nHost own\n\tHostName own.example.com\n\n# end, no newline".utf8)
        try FileManager.default.createDirectory(atPath: world.home.home + "/.ssh", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: world.userConfig, contents: Data(original), attributes: [.posixPermissions: 0o644])

        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        let installed = try XCTUnwrap(FileManager.default.contents(atPath: world.userConfig)).map { $0 }
        let line = Array("Include \(world.bridge)\n".utf8)
        XCTAssertEqual(Array(installed.prefix(line.count)), line, "the Include is the first line")
        XCTAssertEqual(Array(installed.dropFirst(line.count)), original, "every other byte is as it was")
        XCTAssertEqual(BridgeWorld.mode(world.userConfig), 0o644, "the file keeps its mode")
        XCTAssertEqual(
            FileManager.default.contents(atPath: world.userConfig + ".sshelf-backup").map([UInt8].init), original)

        let again = try world.home.run("ssh-config", "install")
        XCTAssertExit(again, 0)
        XCTAssertTrue(again.stdout.contains("already includes"), again.stdout)
        XCTAssertEqual(
            FileManager.default.contents(atPath: world.userConfig).map([UInt8].init), installed, "idempotent")

        XCTAssertExit(try world.home.run("ssh-config", "uninstall"), 0)
        XCTAssertEqual(FileManager.default.contents(atPath: world.userConfig).map([UInt8].init), original)
        XCTAssertEqual(BridgeWorld.mode(world.userConfig), 0o644)
        XCTAssertEqual(
            FileManager.default.contents(atPath: world.userConfig + ".sshelf-backup").map([UInt8].init), original,
            "the first copy, from before sshelf ever changed the file, is kept")
        XCTAssertExit(try world.home.run("ssh-config", "uninstall"), 0)
        XCTAssertEqual(
            FileManager.default.contents(atPath: world.userConfig).map([UInt8].init), original, "idempotent too")
        // A second install and uninstall never replace the pristine copy either.
        XCTAssertExit(try world.home.run("ssh-config", "install"), 0)
        XCTAssertExit(try world.home.run("ssh-config", "uninstall"), 0)
        XCTAssertEqual(
            FileManager.default.contents(atPath: world.userConfig + ".sshelf-backup").map([UInt8].init), original)
        // The real ssh reads the file (and the user's host) as before.
        let resolved = try world.tool(TestTool.ssh.path, ["-F", world.userConfig, "-G", "own"])
        XCTAssertExit(resolved, 0)
        XCTAssertTrue(resolved.stdout.contains("hostname own.example.com"), resolved.stdout)
    }

    func testInstallCreatesAMissingConfigPrivatelyWhateverTheUmask() throws {
        let world = try BridgeWorld()
        let installed = try world.home.run(["ssh-config", "install"], umask: 0)
        XCTAssertExit(installed, 0)
        XCTAssertEqual(BridgeWorld.mode(world.home.home + "/.ssh"), 0o700)
        XCTAssertEqual(BridgeWorld.mode(world.userConfig), 0o600)
        XCTAssertEqual(BridgeWorld.mode(world.bridge), 0o600)
        XCTAssertEqual(world.text(world.userConfig), "Include \(world.bridge)\n")
        XCTAssertExit(try world.home.run(["ssh-config", "uninstall", "--remove"]), 0)
        XCTAssertEqual(world.text(world.userConfig), "")
        XCTAssertNil(BridgeWorld.mode(world.bridge), "removed, and no longer written")
        XCTAssertExit(try world.home.run(["add", "later", "--host", "l.example.com"]), 0)
        XCTAssertNil(BridgeWorld.mode(world.bridge))
    }

    func testTheBridgeFollowsEveryChangeAndLeavesOutWhatSshRefuses() throws {
        let world = try BridgeWorld()
        XCTAssertExit(try world.home.run("ssh-config", "write"), 0)
        XCTAssertExit(
            try world.home.run(["add", "db", "--host", "db.example.com", "--option", "ServerAliveInterval 15"]), 0)
        XCTAssertTrue(
            world.text(world.bridge).contains("Host db\n    HostName db.example.com\n    ServerAliveInterval 15\n"),
            world.text(world.bridge))
        XCTAssertExit(
            try world.home.run(["edit", "db", "--remove-option", "serveraliveinterval", "--option", "Compression yes"]),
            0)
        XCTAssertTrue(
            world.text(world.bridge).contains("Host db\n    HostName db.example.com\n    Compression yes\n"),
            world.text(world.bridge))

        // A line this ssh refuses is an error when typed...
        let typed = try world.home.run(["edit", "db", "--option", "UseKeychain yes"])
        XCTAssertExit(typed, 4)
        XCTAssertTrue(typed.stderr.contains("ssh refuses it: Bad configuration option: usekeychain"), typed.stderr)
        // ...and, when it came from elsewhere (an import of a macOS config), a comment in the bridge, never a line
        // that would stop every ssh command.
        let config = try world.home.write(
            "Host mac\n  HostName mac.example.com\n  UseKeychain yes\n  AddKeysToAgent yes\n", to: "mac-config")
        XCTAssertExit(try world.home.run("import", "ssh-config", config), 0)
        let bridge = world.text(world.bridge)
        XCTAssertTrue(
            bridge.contains(
                "    # left out, this ssh refuses it (Bad configuration option: usekeychain): UseKeychain yes\n    "
                    + "AddKeysToAgent yes\n"),
            bridge)
        XCTAssertExit(try world.tool(TestTool.ssh.path, ["-F", world.bridge, "-G", "mac"]), 0)

        // Removing a host takes it out; a file nobody changed is not rewritten.
        XCTAssertExit(try world.home.run("rm", "db"), 0)
        XCTAssertFalse(world.text(world.bridge).contains("Host db"))
        let before = try FileManager.default.attributesOfItem(atPath: world.bridge)[.modificationDate] as? Date
        let unchanged = try world.home.run("ssh-config", "write")
        XCTAssertTrue(unchanged.stdout.contains("(unchanged)"), unchanged.stdout)
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: world.bridge)[.modificationDate] as? Date, before)
    }
}

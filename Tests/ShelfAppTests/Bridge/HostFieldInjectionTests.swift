// HostFieldInjectionTests: a host field never runs a command through ProxyCommand's tokens (OpenSSH's
// CVE-2023-51385 class) and never breaks the ssh_config bridge, whichever way it arrives — typed (refused with
// OpenSSH's rules), imported (skipped with its line), written by another device and brought by a real sync run, or
// written straight into the store — with the real binary, a real sshd behind a real socat, and OpenSSH's own ssh.
import Foundation
import ShelfCore
import ShelfStore
import TestSupport
import XCTest

final class HostFieldInjectionTests: XCTestCase {
    func store(_ home: TempHome) throws -> Store { try Store(path: home.sshelfHome + "/data/store.sqlite") }

    func bridge(_ home: TempHome) -> String {
        (try? String(contentsOfFile: home.sshelfHome + "/config/ssh_config", encoding: .utf8)) ?? ""
    }

    func testNoHostFieldRunsACommandThroughProxyCommandTokens() throws {
        let world = try BridgeWorld()
        let home = world.home
        let server = try world.server()
        let mark = home.root + "/pwned"
        XCTAssertExit(
            try home.run([
                "ssh-config", "defaults", "*.corp", "--option", "ProxyCommand \(TestTool.socat.path) - TCP:%h:%p",
            ]), 0)
        // The ProxyCommand does run: a host with plain fields logs in through socat.
        try world.addHost("ok.corp", on: server)
        let ok = try home.run(["exec", "ok.corp", "-n", "--", "echo", "through socat"])
        XCTAssertExit(ok, 0)
        XCTAssertEqual(ok.stdout, "through socat\n")

        // Typed: refused with OpenSSH's rules, nothing stored.
        for (flag, value) in [
            ("--host", "$(touch${IFS}\(mark))"), ("--host", "`touch${IFS}\(mark)`"),
            ("--user", "$(touch${IFS}\(mark))"), ("--host", "a;touch${IFS}\(mark)"),
        ] {
            let added = try home.run(
                ["add", "db.corp"] + (flag == "--host" ? [] : ["--host", "127.0.0.1"]) + [flag, value])
            XCTAssertExit(added, 4)
            XCTAssertTrue(added.stderr.contains("which a shell reads as syntax"), added.stderr)
        }
        XCTAssertExit(try home.run(["show", "db.corp"]), 3)

        // Imported: the host is skipped with its line.
        let config = try home.write(
            "Host db.corp\n    HostName $(touch${IFS}\(mark))\n    User ops\n", to: "evil.config")
        let imported = try home.run("import", "ssh-config", config)
        XCTAssertTrue("\(imported)".contains("host 'db.corp' skipped: HostName contains '$'"), "\(imported)")
        XCTAssertExit(try home.run(["show", "db.corp"]), 3)

        // Written straight into the store, as a record another device sent arrives: every variant of %h, %r, %n.
        let command = "ProxyCommand sh -c 'exec \(TestTool.socat.path) - TCP:%h:%p' %r %n"
        let arriving = [
            ShelfCore.Host(name: "h1.corp", hostname: "$(touch${IFS}\(mark))", port: server.port),
            ShelfCore.Host(name: "h2.corp", hostname: "`touch${IFS}\(mark)`", port: server.port),
            ShelfCore.Host(name: "h3.corp", hostname: "x;touch \(mark);", port: server.port),
            ShelfCore.Host(
                name: "r1", hostname: "127.0.0.1", port: server.port, user: "$(touch${IFS}\(mark))",
                options: [command]),
            ShelfCore.Host(
                name: "r2", hostname: "127.0.0.1", port: server.port, user: "x|touch \(mark)", options: [command]),
            ShelfCore.Host(
                name: "n1$(touch${IFS}\(mark))", hostname: "127.0.0.1", port: server.port, user: TestAccount.name,
                options: [command]),
        ]
        try store(home).save(hosts: arriving)
        for host in arriving {
            let ran = try home.run(["exec", host.name, "-n", "--", "true"])
            XCTAssertNotEqual(ran.status, 0, "\(host.name): \(ran)")
            XCTAssertTrue(ran.stderr.contains("cannot put the"), "\(host.name): \(ran)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: mark), "\(host.name) ran a command: \(ran)")
        }

        // The bridge leaves the hosts with bad fields out; OpenSSH itself refuses the name on its command line.
        XCTAssertExit(try home.run("ssh-config", "write"), 0)
        let written = bridge(home)
        for host in arriving.prefix(5) {
            XCTAssertTrue(written.contains("# skipped host \(host.id.uuidString.lowercased()): its "), written)
        }
        let ssh = try world.tool(
            TestTool.ssh.path, ["-F", world.bridge, "-o", "BatchMode=yes", arriving[5].name, "true"])
        XCTAssertNotEqual(ssh.status, 0, "\(ssh)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: mark), "ssh ran a command: \(ssh)")

        // check names each one.
        let check = try home.run("check")
        XCTAssertExit(check, 4)
        for host in arriving.prefix(5) {
            XCTAssertTrue(check.stdout.contains("host '\(host.name)': "), check.stdout)
        }
    }

    /// The case end to end: a host made on device A (not by A's CLI, which refuses it) reaches device B by a
    /// real sync run, and B's `exec` through B's ProxyCommand default runs nothing.
    func testAHostThatArrivesBySyncRunsNothing() throws {
        let remote = try syncRemote("injection")
        let a = syncHome(), b = syncHome()
        let mark = b.root + "/pwned"
        XCTAssertExit(try a.run(["add", "seed", "--host", "seed.example"]), 0)
        let evil = ShelfCore.Host(name: "db.corp", hostname: "$(touch${IFS}\(mark))")
        try store(a).save(evil)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)  // the group exists: b must join
        try enroll(b, by: a)
        XCTAssertTrue(try b.run("list").stdout.contains("db.corp"))

        XCTAssertExit(
            try b.run([
                "ssh-config", "defaults", "*.corp", "--option", "ProxyCommand \(TestTool.socat.path) - TCP:%h:%p",
            ]), 0)
        let ran = try b.run(["exec", "db.corp", "-n", "--", "true"])
        XCTAssertNotEqual(ran.status, 0, "\(ran)")
        XCTAssertTrue(ran.stderr.contains("cannot put the hostname"), ran.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mark))
        let check = try b.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(check.stdout.contains("host 'db.corp': hostname contains '$'"), check.stdout)
    }

    /// One value must never stop every ssh on the machine: what ssh reads back as written is written (quoted and
    /// escaped by ssh_config's rules), a host that cannot be is left out with the reason, and `check` says so.
    func testTheBridgeWritesOnlyWhatSshReadsBackAndSshKeepsWorking() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("ssh-config", "write"), 0)
        XCTAssertExit(try home.run(["add", "my host\\", "--host", "10.0.0.1"]), 0)
        XCTAssertExit(try home.run(["add", "v6", "--host", "fe80::1%eth0", "--user", "DOM\\svc$x"]), 0)
        XCTAssertExit(try home.run(["add", "say \"hi\"", "--host", "10.0.0.2"]), 0)
        for (flag, value) in [("--host", "a\"b"), ("--host", "it's"), ("--user", "o'brien"), ("--user", "x\\")] {
            XCTAssertExit(
                try home.run(["add", "typed"] + (flag == "--host" ? [] : ["--host", "10.0.0.9"]) + [flag, value]), 4)
        }
        XCTAssertExit(try home.run(["forward", "add", "v6", "--local", "8080:a\"b:80"]), 4)

        // As another device's records arrive: straight into the store, never validated on the way.
        let v6 = try XCTUnwrap(try store(home).hosts().first { $0.name == "v6" })
        let arriving = [
            ShelfCore.Host(name: "q1", hostname: "a\"b"), ShelfCore.Host(name: "q2", hostname: "it's"),
            ShelfCore.Host(name: "q3", hostname: "10.0.0.3", user: "o'brien"),
            ShelfCore.Host(name: "q4", hostname: "10.0.0.4", user: "a%b"),
        ]
        let s = try store(home)
        try s.save(hosts: arriving)
        try s.save(PortForwardRule(hostID: v6.id, kind: .local, bindPort: 8080, targetHost: "a\"b", targetPort: 80))
        try s.save(PortForwardRule(hostID: v6.id, kind: .local, bindPort: 8081, targetHost: "x\\", targetPort: 80))
        try s.save(PortForwardRule(hostID: v6.id, kind: .local, bindPort: 8082, targetHost: "db", targetPort: 5432))
        XCTAssertExit(try home.run("ssh-config", "write"), 0)

        let path = home.sshelfHome + "/config/ssh_config"
        let text = bridge(home)
        // Every ssh reading the file still works; the values ssh reads are the values stored.
        XCTAssertNoThrow(try Shell.run(TestTool.ssh.path, ["-F", path, "-G", "github.com"]), text)
        let resolved = try Shell.run(TestTool.ssh.path, ["-F", path, "-G", "v6"])
        XCTAssertTrue(resolved.contains("\nhostname fe80::1%eth0\n"), resolved)
        XCTAssertTrue(resolved.contains("\nuser DOM\\svc$x\n"), resolved)
        // Forward rules are sshelf's to run, valid or not: none reaches ssh through the bridge.
        XCTAssertFalse(resolved.contains("localforward"), resolved)
        XCTAssertFalse(text.contains("8080"), text)
        XCTAssertTrue(text.contains("Host \"my host\\\\\"\n"), text)
        XCTAssertTrue(text.contains("Host \"say \\\"hi\\\"\"\n"), text)
        for host in arriving {
            XCTAssertTrue(text.contains("# skipped host \(host.id.uuidString.lowercased()): its "), text)
        }

        let check = try home.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(check.stdout.contains("host 'q4' cannot be written to ssh_config"), check.stdout)
        XCTAssertTrue(check.stdout.contains("host 'q1': hostname contains '\"'"), check.stdout)
        XCTAssertTrue(check.stdout.contains("forward -L 127.0.0.1:8081:x\\:80: target host"), check.stdout)
    }

    /// The guard behind the emitter: a file the installed ssh would refuse is never put in place of the old one. Made
    /// here with a stale answer about kept options (as after an ssh upgrade the check did not notice).
    func testAFileSshRefusesNeverReplacesTheOldOne() throws {
        let home = TempHome()
        XCTAssertExit(try home.run(["add", "web", "--host", "10.0.0.1"]), 0)
        XCTAssertExit(try home.run("ssh-config", "write"), 0)
        let path = home.sshelfHome + "/config/ssh_config"
        let before = try String(contentsOfFile: path, encoding: .utf8)

        let line = "UseKeychain yes"
        var info = stat()
        XCTAssertEqual(stat(TestTool.ssh.path, &info), 0)
        let digest = try Shell.run(TestTool.sha256sum.path, [], input: line).prefix(64)
        let state = "{\"digest\":\"\(digest) \(info.st_size) \(info.st_ctim.tv_sec)\",\"refused\":{}}"
        try state.write(toFile: path + ".checked", atomically: true, encoding: .utf8)
        var web = try XCTUnwrap(try store(home).hosts().first)
        web.options = [line]
        try store(home).save(web)

        let written = try home.run("ssh-config", "write")
        XCTAssertNotEqual(written.status, 0, "\(written)")
        XCTAssertTrue(written.stderr.contains("ssh cannot read the new ssh_config bridge"), written.stderr)
        XCTAssertTrue(written.stderr.contains("usekeychain"), written.stderr)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), before)
        XCTAssertNoThrow(try Shell.run(TestTool.ssh.path, ["-F", path, "-G", "web"]))
    }
}

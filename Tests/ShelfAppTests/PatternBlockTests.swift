// PatternBlockTests: `Host` pattern blocks keep every line in order (User and Port too) through the real binary; a
// host added later takes what it leaves unset from them as `ssh -G` does — shown as "from Host PATTERN", used by
// sshelf's own client against a real sshd, written back by export — and `ssh-config defaults` edits them.
import Foundation
import TestSupport
import XCTest

final class PatternBlockTests: XCTestCase {
    func testAPatternsUserAndPortReachAHostAddedLaterAsSshGSaysAndExportWritesThemBack() throws {
        let home = TempHome()
        let config = try home.write(
            """
            Host prod-x
                HostName 10.0.0.5
            Host prod-* !prod-bastion
                User deploy
                Port 2222
                ServerAliveInterval 30
                LocalForward 127.0.0.1:15432 localhost:5432
            """, to: ".ssh/config")
        let imported = try home.run("import", "ssh-config", config)
        XCTAssertExit(imported, 0)
        XCTAssertEqual(
            try home.run("ssh-config", "defaults").stdout,
            """
            Host prod-* !prod-bastion
                User deploy
                Port 2222
                ServerAliveInterval 30
                LocalForward 127.0.0.1:15432 localhost:5432

            """)
        XCTAssertExit(try home.run("add", "prod-y", "--host", "10.0.0.6"), 0)
        XCTAssertExit(try home.run("add", "prod-bastion", "--host", "10.0.0.7"), 0)
        let shown = try home.run("show", "prod-y")
        XCTAssertTrue(
            shown.stdout.contains(
                "destination    deploy@10.0.0.6:2222  (User from Host prod-* !prod-bastion, Port from Host prod-* "
                    + "!prod-bastion)\n"),
            shown.stdout)
        XCTAssertTrue(
            shown.stdout.contains(
                "options from Host prod-* !prod-bastion:\n  User deploy\n  Port 2222\n  ServerAliveInterval 30\n"),
            shown.stdout)
        XCTAssertTrue(
            try home.run("show", "prod-bastion").stdout.contains("destination    10.0.0.7\n"), "a negated name")

        // What sshelf shows is what ssh -G makes of the user's file with the new host written into it, and of the
        // export.
        let withY = try home.write(
            try String(contentsOfFile: config, encoding: .utf8) + "\nHost prod-y\n    HostName 10.0.0.6\n",
            to: "with-y")
        let exported = try home.run("export", "ssh-config")
        XCTAssertExit(exported, 0)
        XCTAssertTrue(
            exported.stdout.hasSuffix(
                """
                Host prod-* !prod-bastion
                    User deploy
                    Port 2222
                    ServerAliveInterval 30
                    LocalForward 127.0.0.1:15432 localhost:5432

                """), exported.stdout)
        let exportedFile = try home.write(exported.stdout, to: "exported")
        for file in [withY, exportedFile] {
            let resolved = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", "prod-y"])
            XCTAssertTrue(resolved.hasPrefix("user deploy\n") || resolved.contains("\nuser deploy\n"), resolved)
            XCTAssertTrue(resolved.contains("\nport 2222\n"), resolved)
            XCTAssertTrue(resolved.contains("\nserveraliveinterval 30\n"), resolved)
            XCTAssertEqual(resolved.components(separatedBy: "\nlocalforward ").count, 2, "once:\n\(resolved)")
        }
        // Exported, then imported again: nothing changes.
        let again = try home.run("import", "ssh-config", exportedFile)
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated, 3 unchanged"), again.stdout)
        XCTAssertTrue(
            try home.run("ssh-config", "defaults").stdout.hasPrefix(
                "Host prod-* !prod-bastion\n    User deploy\n    Port 2222\n"))
    }

    func testDefaultsEditsHostFieldLinesAndRefusesWhatIsNoLine() throws {
        let home = TempHome()
        XCTAssertExit(
            try home.run("ssh-config", "defaults", "prod-*", "--option", "User deploy", "--option", "Compression yes"),
            0)
        XCTAssertExit(
            try home.run("ssh-config", "defaults", "prod-*", "--option", "User ops", "--option", "Port 2200"), 0)
        XCTAssertEqual(
            try home.run("ssh-config", "defaults").stdout,
            "Host prod-*\n    User ops\n    Compression yes\n    Port 2200\n")
        let host = try home.run("ssh-config", "defaults", "prod-*", "--option", "Host other")
        XCTAssertExit(host, 4)
        XCTAssertTrue(host.stderr.contains("Host is a host field of its own"), host.stderr)
        XCTAssertExit(try home.run("ssh-config", "defaults", "prod-*", "--remove-option", "user"), 0)
        XCTAssertEqual(
            try home.run("ssh-config", "defaults").stdout, "Host prod-*\n    Compression yes\n    Port 2200\n")
    }

    func testSshelfsOwnClientLogsInWithThePatternsUserAndPort() throws {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let server = try SSHD.start(options)
        let home = TempHome()
        let config = try home.write(
            """
            Host lab-x
                HostName 127.0.0.1
                IdentityFile \(key.privatePath)
            Host lab-*
                User \(TestAccount.name)
                Port \(server.port)
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        let identity = (key.privatePath as NSString).lastPathComponent
        XCTAssertExit(try home.run("add", "lab-y", "--host", "127.0.0.1", "--identity", identity), 0)
        let ran = try home.run("exec", "lab-y", "--accept-new", "--", "echo", "as the pattern says")
        XCTAssertExit(ran, 0)
        XCTAssertEqual(ran.stdout, "as the pattern says\n")
        XCTAssertTrue(server.waitForLog("Accepted publickey for \(TestAccount.name)"), server.log)
    }
}

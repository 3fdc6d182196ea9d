// ImportFixesTests: the import fixes found on a corpus of real configs, each with a minimal config through the real
// binary — a unix-socket forward is kept with the host and exported as written, an unreadable Match line skips its
// block and not the import, hosts a skipped Match block may change get a note, export keeps IdentitiesOnly as written
// and a ProxyJump alias whose host is in the file, `ProxyCommand ssh -W %h:%p HOST` becomes a jump chain that connects
// — and options and Host-pattern defaults kept, shown, edited and written back.
import Foundation
import TestSupport
import XCTest

final class ImportFixesTests: XCTestCase {
    func importing(_ config: String, into home: TempHome = TempHome()) throws -> (TempHome, CLIResult) {
        let path = try home.write(config, to: ".ssh/config")
        return (home, try home.run("import", "ssh-config", path))
    }

    /// A line ssh itself rejects (`Frobnicate yes`) is said in the same words by the import, `show`, the bridge and
    /// `check` — ssh refuses it, so the bridge leaves it out — and `check` reports it with a fix that works.
    func testALineSSHRefusesIsSaidTheSameWayEverywhere() throws {
        let (home, result) = try importing(
            "Host odd\n    HostName 127.0.0.1\n    Frobnicate yes\n    Compression yes\n")
        XCTAssertExit(result, 0)
        let words =
            "'Frobnicate yes': ssh refuses it (Bad configuration option: frobnicate), so the ssh_config bridge "
            + "leaves it out"
        XCTAssertTrue(
            result.stdout.contains(
                "/.ssh/config:1: host 'odd': \(words) (remove it: sshelf edit odd "
                    + "--remove-option Frobnicate)"),
            result.stdout)
        let shown = try home.run("show", "odd")
        let line = try XCTUnwrap(shown.stdout.split(separator: "\n").first { $0.contains("Frobnicate yes") })
        XCTAssertTrue(
            line.hasSuffix(
                "(ssh refuses it (Bad configuration option: frobnicate), so the ssh_config bridge leaves "
                    + "it out)"), shown.stdout)
        XCTAssertFalse(line.contains("OpenSSH only"), shown.stdout)
        let written = try home.run("ssh-config", "write")
        XCTAssertExit(written, 0)
        XCTAssertTrue(written.stderr.contains(words), written.stderr)
        let checked = try home.run("check")
        XCTAssertExit(checked, 4)
        XCTAssertTrue(checked.stdout.contains("host 'odd': \(words)\n"), checked.stdout)
        XCTAssertTrue(checked.stdout.contains("  fix: sshelf edit odd --remove-option Frobnicate\n"), checked.stdout)
        XCTAssertExit(try home.run("edit", "odd", "--remove-option", "Frobnicate"), 0)
        let fixed = try home.run("check")
        XCTAssertExit(fixed, 0)
        XCTAssertEqual(fixed.stdout, "no problems found\n")
    }

    func testAUnixSocketForwardIsKeptWithTheHostAndExportedAsWritten() throws {
        let (home, result) = try importing(
            """
            Host gpg
                HostName 127.0.0.1
                Port 1
                RemoteForward /run/user/1000/gnupg/S.gpg-agent /home/me/.gnupg/S.gpg-agent.extra
                LocalForward 5555 /var/run/docker.sock
                LocalForward 8080 localhost:80
            """)
        XCTAssertExit(result, 0)
        XCTAssertTrue(result.stdout.contains("1 added"), result.stdout)
        XCTAssertFalse(result.stdout.contains("warning  "), result.stdout)
        let shown = try home.run("show", "gpg")
        XCTAssertTrue(shown.stdout.contains("-L 127.0.0.1:8080:localhost:80"), shown.stdout)
        XCTAssertTrue(
            shown.stdout.contains("  RemoteForward /run/user/1000/gnupg/S.gpg-agent /home/me/.gnupg/S.gpg-agent.extra"),
            shown.stdout)
        XCTAssertTrue(shown.stdout.contains("  LocalForward 5555 /var/run/docker.sock"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("(OpenSSH only: sshelf connect gpg --openssh)"), shown.stdout)
        let exported = try home.run("export", "ssh-config")
        let file = try home.write(exported.stdout, to: "exported")
        let resolved = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", "gpg"])
        XCTAssertTrue(
            resolved.contains("\nremoteforward /run/user/1000/gnupg/S.gpg-agent /home/me/.gnupg/S.gpg-agent.extra\n"),
            resolved)
        XCTAssertTrue(resolved.contains("\nlocalforward 5555 /var/run/docker.sock\n"), resolved)
        XCTAssertTrue(resolved.contains("\nlocalforward [127.0.0.1]:8080 [localhost]:80\n"), resolved)
        let again = try home.run("import", "ssh-config", file)
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated, 1 unchanged"), again.stdout)
        // sshelf's own client says precisely what it leaves to OpenSSH (nothing listens on port 1: the note comes
        // before the connection fails).
        let connect = try home.run("connect", "gpg")
        XCTAssertExit(connect, 255)
        XCTAssertTrue(
            connect.stderr.contains(
                "sshelf: note: gpg: 'LocalForward 5555 /var/run/docker.sock' forwards a unix socket, which sshelf's "
                    + "own client (libssh2 "),
            connect.stderr)
        XCTAssertTrue(
            connect.stderr.contains(
                "cannot open; connecting without it (sshelf connect gpg --openssh runs OpenSSH's ssh with it)"),
            connect.stderr)
    }

    func testAnUnreadableMatchLineSkipsItsBlockNotTheImport() throws {
        let (home, result) = try importing(
            """
            Host a
                HostName a.example.com
            Match exec "test -e /tmp/x
                User other
            Host b
                HostName b.example.com
            """)
        XCTAssertExit(result, 0)
        XCTAssertTrue(result.stdout.contains("2 added"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("config:3: Match block skipped: its line cannot be read (unterminated quote"),
            result.stdout)
        XCTAssertTrue(
            result.stdout.contains("note     ") && result.stdout.contains("sets User and may change any host"),
            result.stdout)
        XCTAssertFalse(try home.run("show", "b").stdout.contains("other"))
    }

    func testExportKeepsIdentitiesOnlyAsWrittenAndJumpAliasesAndTheRealSshAgrees() throws {
        let (home, result) = try importing(
            """
            Host bastion
                HostName bastion.example.com
                User jump
                Port 2200
            Host app
                HostName app.internal
                IdentityFile ~/.ssh/id_app
                IdentitiesOnly yes
                ProxyJump bastion
            Host loose
                HostName loose.example.com
                IdentityFile ~/.ssh/id_app
            Host *
                ServerAliveInterval 30
            """)
        XCTAssertExit(result, 0)
        let exported = try home.run("export", "ssh-config")
        XCTAssertExit(exported, 0)
        XCTAssertTrue(
            exported.stdout.contains(
                "Host app\n    HostName app.internal\n    IdentityFile ~/.ssh/id_app\n    ProxyJump bastion\n    "
                    + "IdentitiesOnly yes\n"),
            exported.stdout)
        XCTAssertTrue(
            exported.stdout.contains("Host loose\n    HostName loose.example.com\n    IdentityFile ~/.ssh/id_app\n\n"),
            "no IdentitiesOnly where none was written:\n\(exported.stdout)")
        XCTAssertTrue(exported.stdout.hasSuffix("Host *\n    ServerAliveInterval 30\n"), exported.stdout)
        let file = try home.write(exported.stdout, to: "exported")
        for (alias, expected) in [
            ("app", ["identitiesonly yes", "proxyjump bastion", "serveraliveinterval 30"]),
            ("loose", ["identitiesonly no", "serveraliveinterval 30"]),
        ] {
            let resolved = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", alias])
            for line in expected { XCTAssertTrue(resolved.contains(line + "\n"), "\(alias): \(line)\n\(resolved)") }
        }
    }

    func testOptionsAndDefaultsAreShownEditedAndImportedAgainWithoutChange() throws {
        let config = """
            Host *.internal
                Compression yes
            Host db.internal
                ServerAliveInterval 15
                ForwardAgent yes
            """
        let (home, first) = try importing(config)
        XCTAssertExit(first, 0)
        XCTAssertTrue(first.stdout.contains("options of 1 Host pattern kept as defaults"), first.stdout)
        let shown = try home.run("show", "db.internal")
        XCTAssertTrue(shown.stdout.contains("options:\n  ServerAliveInterval 15\n  ForwardAgent yes"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("(OpenSSH only: sshelf connect db.internal --openssh)"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("options from Host *.internal:\n  Compression yes\n"), shown.stdout)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("show", "db.internal", "--json").stdout.utf8))
                as? [String: Any])
        XCTAssertEqual(json["options"] as? [String], ["ServerAliveInterval 15", "ForwardAgent yes"])

        let again = try home.run("import", "ssh-config", home.home + "/.ssh/config")
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated, 1 unchanged"), again.stdout)
        XCTAssertEqual(try home.run("ssh-config", "defaults").stdout, "Host *.internal\n    Compression yes\n")

        XCTAssertExit(try home.run("ssh-config", "defaults", "*", "--option", "ServerAliveInterval 60"), 0)
        XCTAssertExit(try home.run("ssh-config", "defaults", "*.internal", "--remove-option", "compression"), 0)
        XCTAssertEqual(
            try home.run("ssh-config", "defaults").stdout, "Host *.internal\n\nHost *\n    ServerAliveInterval 60\n")
        let missing = try home.run("edit", "db.internal", "--remove-option", "Tunnel")
        XCTAssertExit(missing, 3)
        XCTAssertTrue(missing.stderr.contains("db.internal has no option 'Tunnel'"), missing.stderr)
        let modelled = try home.run("edit", "db.internal", "--option", "Port 2222")
        XCTAssertExit(modelled, 4)
        XCTAssertTrue(
            modelled.stderr.contains("Port is a host field of its own, not an option (use --port)"), modelled.stderr)
    }

    func testProxyCommandWFormImportsAsAJumpChainThatConnects() throws {
        try TestAccount.ensure()
        let key = try TestKey.generate(.ed25519)
        var options = SSHD.Options()
        options.authorizedKeys = [key.publicLine]
        let bastion = try SSHD.start(options), target = try SSHD.start(options)
        let (home, result) = try importing(
            """
            Host bastion
                HostName 127.0.0.1
                Port \(bastion.port)
                User \(TestAccount.name)
                IdentityFile \(key.privatePath)
            Host target
                HostName 127.0.0.1
                Port \(target.port)
                User \(TestAccount.name)
                IdentityFile \(key.privatePath)
                ProxyCommand ssh -q -W %h:%p bastion
            Host elsewhere
                HostName 10.9.9.9
                ProxyCommand ssh -W %h:%p unknown-gateway
            """)
        XCTAssertExit(result, 0)
        XCTAssertTrue(
            result.stdout.contains(
                "host 'elsewhere': its ProxyCommand jumps through unknown-gateway, not all known hosts; "
                    + "kept as a ProxyCommand"),
            result.stdout)
        // The change is named, with the line it replaced.
        XCTAssertTrue(
            result.stdout.contains(
                "note     \(home.home)/.ssh/config:6: host 'target': 'ProxyCommand ssh -q -W %h:%p bastion' became its "
                    + "jump chain (ProxyJump bastion): sshelf's own client connects through it, export writes ProxyJump"
            ),
            result.stdout)
        XCTAssertFalse(result.stdout.contains("host 'elsewhere': 'ProxyCommand"), result.stdout)
        let shown = try home.run("show", "target")
        XCTAssertTrue(shown.stdout.contains("jump           bastion"), shown.stdout)
        XCTAssertFalse(
            shown.stdout.contains("ProxyCommand"), "the ProxyCommand became the jump chain:\n\(shown.stdout)")
        XCTAssertTrue(try home.run("show", "elsewhere").stdout.contains("ProxyCommand ssh -W %h:%p unknown-gateway"))
        let ran = try home.run("exec", "target", "--accept-new", "--", "echo", "through bastion")
        XCTAssertExit(ran, 0)
        XCTAssertEqual(ran.stdout, "through bastion\n")
        XCTAssertTrue(bastion.waitForLog("direct-tcpip"), bastion.log)
        XCTAssertTrue(target.waitForLog("Accepted publickey"), target.log)
    }
}

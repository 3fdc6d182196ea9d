// AliasTests: a host with several names through the real binary — `Host web1 web1.prod` imports as one host with
// one forward, every name-based command and the search take an alias, names and aliases are unique together, and
// export writes the names back on one Host line that the real `ssh -G` reads as the original.
import Foundation
import TestSupport
import XCTest

final class AliasTests: XCTestCase {
    let config = """
        Host web1 web1.prod
            HostName 10.0.0.1
            User deploy
            LocalForward 127.0.0.1:18080 localhost:80
        Host db
            HostName db.example.com
        """

    func testAHostLineWithTwoNamesIsOneHostWithOneForwardAndExportsBack() throws {
        let home = TempHome()
        let path = try home.write(config, to: ".ssh/config")
        let imported = try home.run("import", "ssh-config", path)
        XCTAssertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("2 added"), imported.stdout)
        XCTAssertTrue(imported.stdout.contains("1 forward rule added"), imported.stdout)

        let shown = try home.run("show", "web1.prod")
        XCTAssertExit(shown, 0)
        XCTAssertTrue(shown.stdout.hasPrefix("name           web1\naliases        web1.prod\n"), shown.stdout)
        XCTAssertEqual(shown.stdout.components(separatedBy: "-L 127.0.0.1:18080:localhost:80").count, 2, shown.stdout)
        XCTAssertEqual(try home.run("list", "--names").stdout, "db\nweb1\n")
        XCTAssertEqual(try home.run("list", "--names", "prod").stdout, "web1\n", "the search finds a host by its alias")

        let exported = try home.run("export", "ssh-config")
        XCTAssertExit(exported, 0)
        XCTAssertTrue(exported.stdout.contains("Host web1 web1.prod\n    HostName 10.0.0.1\n"), exported.stdout)
        let file = try home.write(exported.stdout, to: "exported")
        for name in ["web1", "web1.prod"] {
            let resolved = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", name])
            XCTAssertTrue(resolved.contains("\nhostname 10.0.0.1\n"), resolved)
            XCTAssertTrue(resolved.contains("\nuser deploy\n"), resolved)
            XCTAssertEqual(resolved.components(separatedBy: "\nlocalforward ").count, 2, "one forward:\n\(resolved)")
        }
        // Export, then import: nothing changes.
        let again = try home.run("import", "ssh-config", file)
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated, 2 unchanged"), again.stdout)
        XCTAssertFalse(again.stdout.contains("forward rule"), again.stdout)
    }

    func testNamesThatResolveDifferentlyStayHostsOfTheirOwn() throws {
        let home = TempHome()
        let path = try home.write(
            """
            Host a b
                User shared
            Host c d
                HostName 10.0.0.9
            Host d
                Port 2222
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config", path), 0)
        // a and b connect to different addresses (their own names); d has a port of its own.
        XCTAssertEqual(try home.run("list", "--names").stdout, "a\nb\nc\nd\n")
    }

    func testNamesAndAliasesAreUniqueTogetherAndEveryCommandTakesAnAlias() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web1", "--host", "10.0.0.1", "--alias", "web1.prod", "--alias", "w1"), 0)
        let taken = try home.run("add", "other", "--host", "10.0.0.2", "--alias", "W1")
        XCTAssertExit(taken, 4)
        XCTAssertTrue(taken.stderr.contains("alias 'W1': 'W1' is already an alias of host 'web1'"), taken.stderr)
        let named = try home.run("add", "web1.prod", "--host", "10.0.0.2")
        XCTAssertExit(named, 4)
        XCTAssertTrue(named.stderr.contains("'web1.prod' is already an alias of host 'web1'"), named.stderr)
        let asAlias = try home.run("add", "other", "--host", "10.0.0.2", "--alias", "web1")
        XCTAssertExit(asAlias, 4)
        XCTAssertTrue(asAlias.stderr.contains("a host named 'web1' already exists"), asAlias.stderr)
        let pattern = try home.run("edit", "web1", "--alias", "web*")
        XCTAssertExit(pattern, 4)
        XCTAssertTrue(pattern.stderr.contains("which ssh reads as a pattern"), pattern.stderr)

        XCTAssertExit(try home.run("edit", "w1", "--tag", "edited"), 0)
        XCTAssertTrue(try home.run("show", "WEB1.PROD").stdout.contains("tags           edited\n"))
        XCTAssertExit(try home.run("edit", "web1", "--remove-alias", "w1"), 0)
        XCTAssertExit(try home.run("show", "w1"), 3)
        let missing = try home.run("edit", "web1", "--remove-alias", "nope")
        XCTAssertExit(missing, 4)
        XCTAssertTrue(missing.stderr.contains("its aliases are: web1.prod"), missing.stderr)
        // Renaming to an alias makes it the name.
        XCTAssertExit(try home.run("edit", "web1", "--rename", "web1.prod"), 0)
        let shown = try home.run("show", "web1.prod")
        XCTAssertTrue(shown.stdout.hasPrefix("name           web1.prod\nid "), shown.stdout)
        XCTAssertExit(try home.run("edit", "web1.prod", "--alias", "web1"), 0)
        XCTAssertExit(try home.run("rm", "web1"), 0)
        XCTAssertEqual(try home.run("list", "--names").stdout, "")
    }

    func testCheckReportsTwoHostsWhoseForwardsBindOnePort() throws {
        let home = TempHome()
        let path = try home.write(
            """
            Host web1
                HostName 10.0.0.1
                LocalForward 127.0.0.1:18080 localhost:80
            Host web1.prod
                HostName 10.0.0.1
                User other
                LocalForward localhost:18080 localhost:80
            Host spare
                HostName 10.0.0.3
                LocalForward 127.0.0.2:18080 localhost:80
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config", path), 0)
        let check = try home.run("check")
        XCTAssertExit(check, 4)
        XCTAssertTrue(
            check.stdout.contains(
                "of host 'web1.prod' binds localhost:18080, as does -L 127.0.0.1:18080:localhost:80 of host 'web1'"),
            check.stdout)
        XCTAssertFalse(check.stdout.contains("host 'spare'"), "another address, no clash:\n\(check.stdout)")
        let fix = try XCTUnwrap(
            check.stdout.components(separatedBy: "  fix: ").dropFirst().first?.components(separatedBy: " (or").first)
        XCTAssertTrue(fix.hasPrefix("sshelf forward edit "), fix)
        let words = fix.split(separator: " ").map(String.init).dropFirst().map {
            $0 == "NEWPORT:localhost:80" ? "18081:localhost:80" : $0
        }
        XCTAssertExit(try home.run(Array(words)), 0)
        XCTAssertExit(try home.run("check"), 0)
    }
}

// Bad input through the real binary: each gives `sshelf: error: …`, a non-zero documented exit code, and
// changes nothing.
import Foundation
import TestSupport
import XCTest

final class CLIErrorTests: XCTestCase {
    func testBadInputGivesClearErrorsAndExitCodes() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "web.example.com"), 0)
        let cases: [([String], Int32, String)] = [
            (["show", "nope"], 3, "no host named 'nope'"),
            (["edit", "nope", "--port", "1"], 3, "no host named 'nope'"),
            (["rm", "nope"], 3, "no host named 'nope'"),
            (["add", "x", "--host", "h", "--port", "0"], 4, "--port: '0' is not a port (1-65535)"),
            (["add", "x", "--host", "h", "--port", "22x"], 4, "is not a port"),
            (["add", "x", "--host", "h", "--port", "70000"], 4, "is not a port"),
            (["add", "x"], 2, "add: give the address (DESTINATION, or --host)"),
            (["add", "x", "--host", "ops@h"], 4, "--host 'ops@h' holds a user ('ops@')"),
            (["add", "x", "--host", "h:2222"], 4, "hint: give each part its option (--user, --port), or the address "),
            (
                ["edit", "web", "--host", "[::1]"], 4,
                "--host '[::1]' holds brackets (an IPv6 address goes without them)"
            ),
            (
                ["connect", "web", "--", "uptime", "-x"], 2,
                "hint: to run a command on it: sshelf exec web -- uptime -x (exec -t gives it a terminal)\n"
            ),
            // A word that reads as an option's value is shown with that option.
            (["sync", "enable", "/tmp/sync"], 2, "hint: did you mean: sshelf sync enable --folder /tmp/sync\n"),
            (
                ["sync", "enable", "git@example.com:me/s.git"], 2,
                "hint: did you mean: sshelf sync enable --git git@example.com:me/s.git\n"
            ),
            (
                ["run", "web", "--parallel", "0", "--", "true"], 4,
                "--parallel: '0' is not a whole number from 1 to 10000"
            ),
            (
                ["run", "web", "--command-timeout", "0", "--", "true"], 4,
                "--command-timeout: '0' is not a number of seconds (more than 0, at most 86400)"
            ),
            (["add", "x", "--host", "h", "--auth", "magic"], 4, "unknown method 'magic'"),
            (["add", "x", "--host", "h", "--jump", "ghost"], 3, "no host named 'ghost'"),
            (["add", "x", "--host", "bad host"], 4, "hostname contains whitespace"),
            (["add", "x\u{1B}]0;pwn\u{07}", "--host", "h"], 4, "control character"),
            (["add", "x", "--host", String(repeating: "a", count: 300)], 4, "longer than 255 bytes"),
            (["edit", "web", "--jump", "web"], 4, "jumps through itself"),
            (["list", "--bogus"], 2, "unknown option --bogus"),
            (["frobnicate"], 2, "unknown command 'frobnicate'"),
            (["show"], 2, "missing NAME"),
            (["show", "a", "b"], 2, "unexpected argument 'b'"),
            (["add", "x", "--host"], 2, "--host needs a value"),
            (["add", "x", "--host", "a", "--host", "b"], 2, "--host given twice"),
            (["forward", "add", "web", "--local", "80"], 4, "invalid -L spec '80'"),
            (["forward", "add", "web", "--local", "x:db:5432"], 4, "bind port 'x'"),
            (["forward", "add", "web", "--local", "8080:db:70000"], 4, "target port '70000'"),
            (["forward", "add", "web"], 2, "exactly one of --local, --remote or --dynamic"),
            (["forward", "add", "web", "--dynamic", "0.0.0.0:1080"], 2, "not loopback"),
            (["forward", "add", "nope", "--dynamic", "1080"], 3, "no host named 'nope'"),
            (["forward", "rm", "deadbeef"], 3, "no forward rule 'deadbeef'"),
            (["group", "rm", "nope"], 3, "no group 'nope'"),
            (["mv", "web", "--group", "a/b/"], 0, ""),
            (["group", "mv", "a", "a/b/c"], 4, "inside itself"),
            (["import", "ssh-config", "/nonexistent/config"], 3, "cannot read /nonexistent/config"),
            (["completions", "tcsh"], 4, "unknown shell 'tcsh'"),
        ]
        for (arguments, status, message) in cases {
            let result = try home.run(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result)")
            if status != 0 {
                XCTAssertTrue(result.stderr.hasPrefix("sshelf: error: "), "\(arguments): \(result)")
                XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result)")
                XCTAssertFalse(result.stderr.contains("\u{1B}"), "escape sequences must not reach the terminal")
            }
        }
        // Nothing above changed the one good host, and no half-made host exists.
        let list = try home.run("list", "--json")
        let hosts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(hosts.map { $0["name"] as? String }, ["web"])
        XCTAssertEqual(hosts.first?["port"] as? Int, 22)
        XCTAssertEqual(hosts.first?["groupPath"] as? String, "a/b")
    }

    func testDuplicateNamesAskForAnID() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "prod", "--host", "a"), 0)
        XCTAssertExit(try home.run("add", "prod", "--host", "b", "--allow-duplicate"), 0)
        let result = try home.run("show", "prod")
        XCTAssertExit(result, 2)
        XCTAssertTrue(result.stderr.contains("2 hosts are named 'prod'"), result.stderr)
        let ids = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("list", "--json").stdout.utf8)) as? [[String: Any]]
        )
        .compactMap { $0["id"] as? String }
        let shown = try home.run("show", String(ids[1].prefix(8)))
        XCTAssertExit(shown, 0)
        XCTAssertTrue(shown.stdout.contains(ids[1]), shown.stdout)
    }

    func testEveryCommandHasHelp() throws {
        let home = TempHome()
        let overview = try home.run("--help")
        XCTAssertExit(overview, 0)
        let commands = overview.stdout.split(separator: "\n", omittingEmptySubsequences: false).drop {
            !$0.hasPrefix("commands:")
        }.dropFirst()
            .prefix { !$0.isEmpty }.map { line in
                line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
            }
        XCTAssertGreaterThan(commands.count, 15)
        for command in commands {
            let result = try home.run(command.split(separator: " ").map(String.init) + ["--help"])
            XCTAssertExit(result, 0)
            XCTAssertTrue(result.stdout.hasPrefix("usage: sshelf \(command)"), "\(command): \(result.stdout)")
        }
        XCTAssertTrue(try home.run("group").stdout.contains("group add"))
        XCTAssertTrue(try home.run("--version").stdout.hasPrefix("sshelf "))
        // Help never creates the store.
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.sshelfHome))
    }

    func testDamagedStoreGivesStorageError() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "h"), 0)
        let path = home.sshelfHome + "/data/store.sqlite"
        let garbage = Data(repeating: 0x41, count: 4096)
        try garbage.write(to: URL(fileURLWithPath: path))
        let result = try home.run("list")
        XCTAssertExit(result, 5)
        XCTAssertTrue(result.stderr.contains("damaged or not an sshelf store"), result.stderr)
        XCTAssertTrue(result.stderr.contains("sshelf: hint:"), result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: path), garbage)
    }
}

// Host commands through the real binary: add, list, show, edit, rm, mv — happy paths and bad input.
import Foundation
import TestSupport
import XCTest

final class HostCommandTests: XCTestCase {
    func testAddListShowEditRemove() throws {
        let home = TempHome()
        XCTAssertExit(
            try home.run(
                "add", "web1", "--host", "web1.example.com", "--user", "deploy", "--group", "prod/eu",
                "--tag", "web"), 0)
        XCTAssertExit(try home.run("add", "db", "-H", "10.0.0.5", "-p", "2222", "--jump", "web1"), 0)
        let list = try home.run("list")
        XCTAssertExit(list, 0)
        XCTAssertTrue(list.stdout.contains("deploy@web1.example.com"), list.stdout)
        XCTAssertTrue(list.stdout.contains("10.0.0.5:2222"), list.stdout)
        XCTAssertTrue(list.stdout.contains("prod/eu"), list.stdout)

        let show = try home.run("show", "db")
        XCTAssertExit(show, 0)
        XCTAssertTrue(show.stdout.contains("jump           web1"), show.stdout)

        XCTAssertExit(try home.run("edit", "db", "--port", "2200", "--tag", "sql", "--rename", "database"), 0)
        let json = try home.run("show", "database", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["port"] as? Int, 2200)
        XCTAssertEqual(object["tags"] as? [String], ["sql"])

        XCTAssertExit(try home.run("mv", "database", "--group", "prod"), 0)
        XCTAssertTrue(try home.run("list", "--group", "prod").stdout.contains("database"))
        XCTAssertExit(try home.run("rm", "database"), 0)
        XCTAssertFalse(try home.run("list").stdout.contains("database"))
    }

    /// The address as ssh takes it on its command line or as an ssh URI, with a port where the list shows one;
    /// what cannot be an address, or says the same thing twice, is refused with how to write it.
    /// `mv` and `rm` take several targets — names, @group (with its subgroups) and tag:NAME — as `run` does, but no
    /// search; a target that names nothing changes nothing.
    func testMoveAndRemoveTakeSeveralTargets() throws {
        let home = TempHome()
        for (name, extra) in [
            ("web1", ["--group", "old/eu"]), ("web2", ["--group", "old"]), ("db1", ["--tag", "db"]),
            ("db2", ["--tag", "db"]), ("lone", []), ("stay", []),
        ] {
            XCTAssertExit(try home.run(["add", name, "--host", "\(name).example"] + extra), 0)
        }
        let moved = try home.run("mv", "@old", "tag:db", "lone", "--group", "new")
        XCTAssertExit(moved, 0)
        XCTAssertEqual(moved.stdout.split(separator: "\n").count, 5, moved.stdout)
        XCTAssertTrue(moved.stdout.contains("moved web1 to new\n"), moved.stdout)
        let names = try home.run("list", "@new", "--names")
        XCTAssertEqual(
            names.stdout.split(separator: "\n").sorted(), ["db1", "db2", "lone", "web1", "web2"], names.stdout)
        // One bad target: nothing moves, and the error says which.
        let bad = try home.run("mv", "stay", "tag:nope", "--group", "elsewhere")
        XCTAssertExit(bad, 3)
        XCTAssertTrue(bad.stderr.contains("no host has the tag 'nope'"), bad.stderr)
        XCTAssertTrue(try home.run("list", "@new", "--names").stdout.contains("lone"))
        // A search is not a target here: what is changed is named.
        let search = try home.run("mv", "q:web", "--group", "x")
        XCTAssertExit(search, 3)
        XCTAssertTrue(search.stderr.contains("no host named 'q:web'"), search.stderr)
        let removed = try home.run("rm", "tag:db", "lone")
        XCTAssertExit(removed, 0)
        XCTAssertEqual(
            try home.run("list", "--names").stdout.split(separator: "\n").sorted(), ["stay", "web1", "web2"])
    }

    /// `edit` takes several targets too; what names or addresses one host is refused for several.
    func testEditTakesSeveralTargets() throws {
        let home = TempHome()
        for name in ["db1", "db2", "web"] {
            XCTAssertExit(
                try home.run(
                    ["add", name, "--host", "\(name).example"] + (name.hasPrefix("db") ? ["--tag", "db"] : [])), 0)
        }
        let edited = try home.run("edit", "tag:db", "web", "--port", "2200", "--option", "ServerAliveInterval 15")
        XCTAssertExit(edited, 0)
        XCTAssertEqual(edited.stdout.split(separator: "\n").count, 3, edited.stdout)
        for name in ["db1", "db2", "web"] {
            let shown = try home.run("show", name).stdout
            XCTAssertTrue(shown.contains("\(name).example:2200"), shown)
            XCTAssertTrue(shown.contains("  ServerAliveInterval 15"), shown)
        }
        let renamed = try home.run("edit", "tag:db", "--rename", "x")
        XCTAssertExit(renamed, 2)
        XCTAssertTrue(renamed.stderr.contains("edit: --rename is for one host, and tag:db names 2"), renamed.stderr)
        XCTAssertExit(try home.run("edit", "db1", "--rename", "db-one"), 0)
    }

    /// `show` says where an identity's private key lives, a key in the vault included (not only a key file).
    func testShowSaysWhereTheKeyLives() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("keygen", "made-here"), 0)
        XCTAssertExit(try home.run("add", "web", "--host", "web.example", "--identity", "made-here"), 0)
        let show = try home.run("show", "web")
        XCTAssertExit(show, 0)
        let line = try XCTUnwrap(show.stdout.split(separator: "\n").first { $0.hasPrefix("identity ") })
        XCTAssertTrue(line.contains("made-here (ed25519), key in the vault as identity."), show.stdout)
        // A key file imported with the host, then moved into the vault: both places are said in turn.
        let key = try TestKey.generate(.ed25519)
        let config = try home.write(
            "Host disk\n  HostName disk.example\n  IdentityFile \(key.privatePath)\n", to: "cfg")
        XCTAssertExit(try home.run("import", "ssh-config", config), 0)
        let before = try home.run("show", "disk")
        XCTAssertTrue(before.stdout.contains(" (ed25519), file \(key.privatePath)\n"), before.stdout)
        let json = try home.run("show", "disk", "--json").stdout
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let name = try XCTUnwrap(object["identityName"] as? String)
        XCTAssertExit(try home.run("identity", "import", name, key.privatePath, "--remove-file"), 0)
        let after = try home.run("show", "disk")
        XCTAssertTrue(after.stdout.contains("\(name) (ed25519), key in the vault as identity."), after.stdout)
    }

    func testAddTakesTheAddressAsOneWord() throws {
        let home = TempHome()
        for (name, word, hostname, user, port) in [
            ("a", "deploy@db1.example.com:2222", "db1.example.com", "deploy", 2222),
            ("b", "db2.example.com", "db2.example.com", "", 22),
            ("c", "ssh://ops@db3.example.com:2200/", "db3.example.com", "ops", 2200),
            ("d", "root@[2001:db8::1]:2222", "2001:db8::1", "root", 2222),
            ("e", "2001:db8::2", "2001:db8::2", "", 22),
            ("f", "a@b@db4.example.com", "db4.example.com", "a@b", 22),
        ] {
            XCTAssertExit(try home.run("add", name, word), 0)
            let json = try home.run("show", name, "--json")
            let host = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(host["hostname"] as? String, hostname, word)
            XCTAssertEqual(host["user"] as? String ?? "", user, word)
            XCTAssertEqual(host["port"] as? Int, port, word)
        }
        for (word, message) in [
            ("@x", "'@x' has nothing before its '@' (the user)"),
            ("db:99999", "'db:99999': '99999' is not a port (1-65535)"),
            ("ssh://db/path", "'ssh://db/path': an ssh:// address has no path"),
            ("[::1", "'[::1' opens a '[' it does not close"),
            ("u@", "'u@' names no host"),
        ] {
            let refused = try home.run("add", "z", word)
            XCTAssertExit(refused, 4)
            XCTAssertTrue(refused.stderr.contains("error: \(message)\n"), refused.stderr)
        }
        let twice = try home.run("add", "z", "ops@db", "--user", "root", "--host", "db")
        XCTAssertExit(twice, 2)
        XCTAssertTrue(twice.stderr.contains("add: --host and --user repeat what 'ops@db' says"), twice.stderr)
        XCTAssertExit(try home.run("add", "z", "db", "--user", "root", "--port", "2022"), 0)
        XCTAssertTrue(try home.run("list", "z").stdout.contains("root@db:2022"))
        XCTAssertEqual(
            try home.run("list", "--names").stdout, "a\nb\nc\nd\ne\nf\nz\n", "nothing refused was stored")
    }

    /// `list` takes `@group` and `tag:NAME` as `run` does (their hosts added up), the other words searching among
    /// them — so a run's hosts can be looked at first; a command for one host given either says to use run or cp.
    func testListTakesGroupsAndTagsAsRunDoes() throws {
        let home = TempHome()
        for (name, group, tag) in [
            ("db-fra", "prod/eu", "db"), ("web-fra", "prod", "web"), ("db-nyc", "staging", "db"),
        ] {
            XCTAssertExit(try home.run("add", name, "\(name).example.com", "--group", group, "--tag", tag), 0)
        }
        let names = { (words: [String]) in
            try home.run(["list", "--names"] + words).stdout.split(separator: "\n").map(String.init).sorted()
        }
        XCTAssertEqual(try names(["@prod"]), ["db-fra", "web-fra"])
        XCTAssertEqual(try names(["tag:db"]), ["db-fra", "db-nyc"])
        XCTAssertEqual(try names(["@staging", "tag:web"]), ["db-nyc", "web-fra"])
        XCTAssertEqual(try names(["@prod", "fra", "db"]), ["db-fra"])
        XCTAssertEqual(try names(["tag:nope"]), [])
        let missing = try home.run("list", "@nowhere")
        XCTAssertExit(missing, 3)
        XCTAssertTrue(missing.stderr.contains("no group 'nowhere'"), missing.stderr)
        // Where one host goes, a group or a tag is told apart from a host id (@1a2b) and pointed to run and cp.
        for (target, message) in [
            ("@prod", "'@prod' is a group of 2 hosts"), ("tag:db", "'tag:db' is a tag of 2 hosts"),
        ] {
            let one = try home.run("exec", target, "--", "uptime")
            XCTAssertExit(one, 2)
            XCTAssertTrue(
                one.stderr.contains(
                    "error: \(message); this command takes one host\n"
                        + "sshelf: hint: for each of them: sshelf run \(target) -- COMMAND, "
                        + "or sshelf cp FILE \(target):DIR"
                ),
                one.stderr)
        }
    }
}

// MatchBlockTests: `Match` blocks through the real binary and the real ssh. A property over generated configs (Host
// blocks with and without HostName and User, Match blocks on host, originalhost, user, localuser, all, canonical and
// final, negated, with comma lists and patterns, before and after the Host blocks they touch): what sshelf stores for
// each name (hostname, user, port) is what `ssh -G` says of the original file, and `ssh -G` on the export says what
// it says of the original for every field written. A block only ssh can decide (exec) is kept as written, noted for
// each host it may change, and exported back.
import Foundation
import ShelfCore
import TestSupport
import XCTest

final class MatchBlockTests: XCTestCase {
    static let me = SSHConfigMatch.currentUser()

    /// One Match line's criteria, picked from the forms ssh -G decides.
    static func criteria(_ random: inout SplitMix64, blocks: Int) -> String {
        let some = random.below(blocks)
        let forms: [String] = [
            "host h\(some)*", "host 10.0.0.*,!10.0.0.\(some + 1)", "!host h\(some)a", "host h\(some)b,10.0.0.\(some)",
            "originalhost h\(some)a,h\(random.below(blocks))*", "!originalhost h\(some)*", "originalhost h?c",
            "user deploy", "user ops,root", "!user deploy", "user d*", "localuser \(me)", "!localuser \(me)",
            "localuser nobody*", "all", "final all", "canonical all", "final", "!final", "canonical",
            "final host 10.0.0.*", "canonical originalhost h\(some)b",
        ]
        var line = random.pick(forms)
        // Now and then two criteria (`all` stands alone or after canonical/final).
        if random.below(3) == 0, !line.hasSuffix("all") {
            let second = random.pick(forms)
            if !second.hasSuffix("all") { line += " " + second }
        }
        return line
    }

    static func settings(_ random: inout SplitMix64, block: Int) -> String {
        var text = ""
        for _ in 0..<(1 + random.below(2)) {
            text += random.pick([
                "    User \(random.pick(["deploy", "ops", "match-user"]))\n", "    Port \(3000 + random.below(50))\n",
                "    Compression \(random.pick(["yes", "no"]))\n", "    ServerAliveInterval \(20 + random.below(40))\n",
                "    LocalForward 127.0.0.1:\(21_000 + block) localhost:\(90 + random.below(9))\n",
            ])
        }
        return text
    }

    /// A config of `blocks` Host blocks with Match blocks between and after them, and every literal name in it.
    static func generate(seed: UInt64, blocks: Int) -> (text: String, names: [String]) {
        var random = SplitMix64(state: seed)
        var text = "# generated config with Match blocks, seed \(seed)\n"
        var names: [String] = []
        for block in 0..<blocks {
            if random.below(3) == 0 {
                text += "\nMatch \(criteria(&random, blocks: blocks))\n" + settings(&random, block: block)
            }
            let count = 1 + random.below(3)
            let line = (0..<count).map { "h\(block)\(["a", "b", "c"][$0])" }
            names += line
            text += "\nHost \(line.joined(separator: " "))\n"
            if random.below(4) > 0 { text += "    HostName 10.0.0.\(block + 1)\n" }
            if random.below(2) == 0 { text += "    User \(random.pick(["deploy", "ops", "root"]))\n" }
            if random.below(4) == 0 { text += "    Port \(2200 + random.below(50))\n" }
        }
        for n in 0..<(2 + random.below(3)) {
            text += "\nMatch \(criteria(&random, blocks: blocks))\n" + settings(&random, block: blocks + n)
        }
        text += "\nHost 10.0.0.*\n    ServerAliveCountMax 7\n\nHost *\n    ServerAliveInterval 90\n"
        return (text, names)
    }

    static let keys = [
        "hostname", "user", "port", "localforward", "serveraliveinterval", "serveralivecountmax", "compression",
    ]

    /// What `ssh -G` says of `name` in `file`, for the keys the generator writes (lines sorted: forwards are a set).
    func sshG(_ file: String, _ name: String) throws -> [String] {
        let out = try Shell.run(TestTool.ssh.path, ["-F", file, "-G", name])
        return out.split(separator: "\n").map(String.init)
            .filter { line in Self.keys.contains { line.hasPrefix($0 + " ") } }.sorted()
    }

    func field(_ lines: [String], _ key: String) -> String {
        lines.first { $0.hasPrefix(key + " ") }.map { String($0.dropFirst(key.count + 1)) } ?? ""
    }

    func testMatchBlocksResolveAsSshGAndTheExportAgrees() throws {
        for seed in [11, 12, 13, 14, 15, 16] as [UInt64] {
            let (config, names) = Self.generate(seed: seed, blocks: 8)
            let home = TempHome()
            let original = try home.write(config, to: ".ssh/config")
            let imported = try home.run("import", "ssh-config", original)
            XCTAssertExit(imported, 0)
            XCTAssertFalse(imported.stdout.contains("Match block skipped"), "seed \(seed): \(imported.stdout)")
            let first = try home.run("export", "ssh-config")
            XCTAssertExit(first, 0)
            XCTAssertFalse(first.stdout.contains("\nMatch "), "every block decided: \(first.stdout)")
            let exported = try home.write(first.stdout, to: "exported")
            let listed = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(try home.run("list", "--json").stdout.utf8))
                    as? [[String: Any]])
            var stored: [String: [String: Any]] = [:]
            for host in listed {
                for name in [host["name"] as? String ?? ""] + (host["aliases"] as? [String] ?? []) {
                    stored[name] = host
                }
            }
            for name in names {
                let expected = try sshG(original, name)
                let context = "seed \(seed), \(name)\n\(config)\n\(imported.stdout)\n\(first.stdout)"
                XCTAssertEqual(try sshG(exported, name), expected, context)
                // sshelf's own fields, as its client connects: an unset user is the local one.
                let host = try XCTUnwrap(stored[name], context)
                XCTAssertEqual((host["hostname"] as? String)?.lowercased(), field(expected, "hostname"), context)
                let user = host["user"] as? String ?? ""
                XCTAssertEqual(user.isEmpty ? Self.me : user, field(expected, "user"), context)
                XCTAssertEqual((host["port"] as? Int).map(String.init), field(expected, "port"), context)
            }
            // Importing the export again changes nothing.
            let again = try home.run("import", "ssh-config", exported)
            XCTAssertTrue(again.stdout.contains(" 0 added, 0 updated, "), "seed \(seed): \(again.stdout)")
        }
    }

    /// `Match originalhost web*` is decided for each name: web1 and web2 get its Port, db does not; no note, nothing
    /// skipped.
    func testAMatchBlockSshDecidesFromTheConfigIsAppliedToTheNamesItMatches() throws {
        let home = TempHome()
        let path = try home.write(
            """
            Host web1 web2 db
                User deploy
            Match originalhost web* !user root
                Port 2222
            """, to: ".ssh/config")
        let result = try home.run("import", "ssh-config", path)
        XCTAssertExit(result, 0)
        XCTAssertFalse(result.stdout.contains("skipped "), result.stdout)
        XCTAssertFalse(result.stdout.contains("note "), result.stdout)
        for name in ["web1", "web2"] {
            let shown = try home.run("show", name).stdout
            XCTAssertTrue(shown.contains(":2222"), shown)
        }
        XCTAssertFalse(try home.run("show", "db").stdout.contains("2222"))
    }

    /// A block with `exec` is left to ssh: kept as written, each host it may change noted (a host another criterion
    /// already rules out is not), exported back, and `ssh -G` on the export agrees with the original.
    func testAMatchExecBlockIsKeptForOpenSSHNotedAndExportedBack() throws {
        let home = TempHome()
        let config = """
            Host web1 web2
                HostName 10.1.1.1
            Host db
                HostName 10.1.1.2
            Match originalhost web* exec "test -n %h"
                Port 2222
                Compression yes
            Match exec "false"
                User nobody-here
            Host *
                ServerAliveInterval 30
            """
        let path = try home.write(config, to: ".ssh/config")
        let result = try home.run("import", "ssh-config", path)
        XCTAssertExit(result, 0)
        for name in ["web1", "web2"] {
            XCTAssertTrue(
                result.stdout.contains(
                    "host '\(name)': 'Match originalhost web* exec \"test -n %h\"' at \(path):5 is kept as written "
                        + "for OpenSSH (ssh decides its exec criterion when it connects; sshelf's own client does not "
                        + "apply it)"),
                result.stdout)
        }
        XCTAssertFalse(result.stdout.contains("host 'db': 'Match originalhost"), result.stdout)
        XCTAssertTrue(result.stdout.contains("host 'db': 'Match exec \"false\"' at \(path):8"), result.stdout)
        // sshelf's own client does not run the command: the port stays the one the file gives without the block.
        XCTAssertFalse(try home.run("show", "web1").stdout.contains("2222"))
        let exported = try home.run("export", "ssh-config")
        XCTAssertTrue(
            exported.stdout.contains(
                "\nMatch originalhost web* exec \"test -n %h\"\n    Port 2222\n    Compression yes\n\n"
                    + "Match exec \"false\"\n    User nobody-here\n\nHost *\n    ServerAliveInterval 30\n"),
            exported.stdout)
        let defaults = try home.run("ssh-config", "defaults").stdout
        XCTAssertTrue(
            defaults.hasPrefix("Match originalhost web* exec \"test -n %h\"\n    Port 2222\n")
                && defaults.contains("\nMatch exec \"false\"\n    User nobody-here\n"), defaults)
        let file = try home.write(exported.stdout, to: "exported")
        for name in ["web1", "web2", "db"] {
            XCTAssertEqual(try sshG(file, name), try sshG(path, name), name)
        }
        XCTAssertTrue(try sshG(file, "web1").contains("port 2222"))
        // Importing again keeps one copy of each block.
        let again = try home.run("import", "ssh-config", path)
        XCTAssertTrue(again.stdout.contains("0 added, 0 updated, 2 unchanged"), again.stdout)
        XCTAssertEqual(try home.run("export", "ssh-config").stdout, exported.stdout)
    }
}

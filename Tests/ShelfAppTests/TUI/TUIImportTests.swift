// TUIImportTests: the TUI's import of ~/.ssh/config (`o`), in real tmux against a real file with an Include. The
// empty screen offers it; the dialog shows what `import ssh-config --dry-run` says (and the groups and forward rules
// it makes); Esc changes nothing; y imports, shows the CLI's summary, and the store has the hosts, their jump chain,
// group, alias and forward rule. With no ~/.ssh/config the empty screen says how to add a host or import a file.
// A file ssh would refuse says which line, and nothing is imported. After `ssh-config install`, a Port changed in
// the file shows on the status line, and `o` re-imports it.
import Foundation
import TestSupport
import XCTest

final class TUIImportTests: XCTestCase {
    /// The screen's text with the dialog's borders gone and every run of blanks one space: a line the dialog wraps
    /// reads as the CLI prints it.
    private func flat(_ text: String) -> String {
        text.replacingOccurrences(of: "│", with: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private func writeConfig(_ home: TempHome) throws -> String {
        _ = try home.write(
            """
            #@group: work
            Host db1
                HostName 10.0.1.1
                ProxyJump web1
            """, to: ".ssh/config.d/work.conf")
        return try home.write(
            """
            Include config.d/*.conf

            Host web1
                HostName 10.0.0.1
                User alice
                LocalForward 18080 localhost:80

            Host web2 web2.example
                HostName 10.0.0.2
                Port 2202

            Host *.internal
                User ops

            Match host foo
                User bar
            """, to: ".ssh/config")
    }

    private func hosts(_ home: TempHome) throws -> [[String: Any]] {
        let listed = try home.run("list", "--json")
        XCTAssertExit(listed, 0)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    }

    func testTheEmptyTUIShowsWhatImportingSSHConfigAddsAndImportsIt() throws {
        let home = TempHome()
        let config = try writeConfig(home)
        let dryRun = try home.run("import", "ssh-config", "--dry-run")
        XCTAssertExit(dryRun, 0)
        XCTAssertTrue(dryRun.stdout.contains("3 added"), dryRun.stdout)
        let tui = try Tmux(home: home, columns: 120, rows: 40)
        try tui.waitFor(text: "Press o to import ~/.ssh/config")
        try tui.waitFor(text: "o import")

        // The dialog says what the CLI's dry run says, and what groups and forward rules the import makes.
        try tui.send("o")
        let preview = try tui.waitFor("the import's preview") { $0.contains("y import") }
        XCTAssertTrue(preview.contains("Import ~/.ssh/config?"), preview)
        for line in dryRun.stdout.split(separator: "\n") {
            XCTAssertTrue(flat(preview).contains(flat(String(line))), "'\(line)' missing from:\n\(preview)")
        }
        XCTAssertTrue(preview.contains("group    work"), preview)
        XCTAssertTrue(preview.contains("forward  web1 -L 127.0.0.1:18080:localhost:80"), preview)
        XCTAssertTrue(flat(preview).contains("Match block skipped (its conditions are evaluated by ssh"), preview)

        // Esc: nothing imported.
        try tui.send("Escape")
        try tui.waitFor(text: "nothing imported")
        XCTAssertEqual(try hosts(home).count, 0)
        XCTAssertEqual(try home.run("group", "list").stdout.contains("work"), false)

        try tui.send("o")
        try tui.waitFor(text: "y import")
        try tui.send("y")
        let done = try tui.waitFor("the import's summary") { $0.contains("Imported ~/.ssh/config") }
        // The CLI's own summary of that import.
        let summary = dryRun.stdout.replacingOccurrences(of: "dry run, nothing written: ", with: "")
        for line in summary.split(separator: "\n") {
            XCTAssertTrue(flat(done).contains(flat(String(line))), "'\(line)' missing from:\n\(done)")
        }
        XCTAssertTrue(flat(done).contains("imported \(config): 3 added"), done)
        try tui.send("Escape")
        try tui.waitFor("the imported hosts listed") { $0.contains("web2") && $0.contains("alice@10.0.0.1") }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)

        let stored = try hosts(home)
        XCTAssertEqual(stored.compactMap { $0["name"] as? String }.sorted(), ["db1", "web1", "web2"])
        let byName = Dictionary(uniqueKeysWithValues: stored.map { ($0["name"] as? String ?? "", $0) })
        XCTAssertEqual(byName["web2"]?["port"] as? Int, 2202)
        XCTAssertEqual(byName["web2"]?["aliases"] as? [String], ["web2.example"])
        XCTAssertEqual(byName["db1"]?["groupPath"] as? String, "work", "the Included file's #@group")
        XCTAssertEqual(byName["db1"]?["jumpHostIDs"] as? [String], [byName["web1"]?["id"] as? String ?? "-"])
        let forwards = try home.run("forward", "list")
        XCTAssertTrue(forwards.stdout.contains("127.0.0.1:18080:localhost:80"), forwards.stdout)
        // Imported as the CLI imports: again is all unchanged.
        XCTAssertTrue(
            try home.run("import", "ssh-config", "--dry-run").stdout.contains("0 added, 0 updated, 3 unchanged"))
    }

    func testWithNoSSHConfigTheEmptyScreenSaysHowToAddOrImport() throws {
        let home = TempHome()
        let tui = try Tmux(home: home, columns: 200, rows: 30)
        try tui.waitFor("the way to add a host or import a file") {
            self.flat($0).contains(
                "No hosts yet. Press a to add a host, or import an OpenSSH config from a shell: sshelf import "
                    + "ssh-config FILE")
        }
        try tui.send("o")
        try tui.waitFor(text: "no ~/.ssh/config here; sshelf import ssh-config FILE imports another file")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testAFileSshWouldRefuseSaysWhichLineAndImportsNothing() throws {
        let home = TempHome()
        let config = try home.write(
            "Host ok\n    HostName 10.0.0.9\nHost bad\n    HostName \"10.0.0.8\n", to: ".ssh/config")
        let tui = try Tmux(home: home, columns: 200, rows: 30)
        try tui.waitFor(text: "Press o to import ~/.ssh/config")
        try tui.send("o")
        let refused = try tui.waitFor("why the file cannot be imported") { $0.contains("cannot import") }
        XCTAssertTrue(
            flat(refused).contains(
                "cannot import ~/.ssh/config: \(config):4: unterminated quote in 'HostName' line fix that line (ssh -G "
                    + "would reject it too); nothing was imported"), refused)
        // y has nothing to import; Esc closes.
        try tui.send("y")
        try tui.waitFor(text: "nothing to import yet")
        try tui.send("Escape")
        try tui.waitFor(text: "nothing imported")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
        XCTAssertEqual(try hosts(home).count, 0)
    }

    func testAPortChangedInTheFileShowsOnTheStatusLineAndOReimportsIt() throws {
        let home = TempHome()
        let config = try home.write(
            """
            Host web2
                HostName 10.0.0.2
                Port 2201
            Host web3
                HostName 10.0.0.3
            """, to: ".ssh/config")
        XCTAssertExit(try home.run("import", "ssh-config"), 0)
        XCTAssertExit(try home.run("ssh-config", "install"), 0)
        let tui = try Tmux(home: home, columns: 120, rows: 30)
        let first = try tui.waitFor("the hosts") { $0.contains("10.0.0.2:2201") }
        XCTAssertFalse(first.contains("~/.ssh/config changed"), first)

        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: "Port 2201", with: "Port 2202").write(
            toFile: config, atomically: false, encoding: .utf8)
        let changed = try tui.waitFor("the change on the status line") {
            $0.contains("~/.ssh/config changed") && $0.contains("o re-import")
        }
        XCTAssertTrue(changed.contains("10.0.0.2:2201"), "sshelf's copy is still the old one until the re-import")
        try tui.send("o")
        let preview = try tui.waitFor("the re-import's preview") { $0.contains("y import") }
        XCTAssertTrue(preview.contains("Re-import ~/.ssh/config?"), preview)
        XCTAssertTrue(flat(preview).contains("0 added, 1 updated, 1 unchanged"), preview)
        XCTAssertTrue(preview.contains("updated  web2"), preview)
        try tui.send("y")
        try tui.waitFor(text: "Imported ~/.ssh/config")
        try tui.send("Escape")
        try tui.waitFor("the new port, and the note gone") {
            $0.contains("10.0.0.2:2202") && !$0.contains("~/.ssh/config changed")
        }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)

        XCTAssertTrue(try home.run("show", "web2").stdout.contains("10.0.0.2:2202"))
        XCTAssertExit(try home.run("check"), 0)
    }
}

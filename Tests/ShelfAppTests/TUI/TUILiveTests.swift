// The TUI shows what other processes changed without a key press, in real tmux: a host added by the CLI appears;
// the sync folder renamed turns the status line orange with the reason; another terminal's `sync now` shows its
// result; `sshelf vault unlock` and `lock` elsewhere show in the vault segment; a host added elsewhere is sent by
// the TUI's background sync (debounced); `S` syncs now.
import Foundation
import TestSupport
import XCTest

final class TUILiveTests: XCTestCase {
    func testAHostAddedByTheCLIAppearsWithoutAKeyPress() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "w.example"), 0)
        let tui = try Tmux(home: home, columns: 100, rows: 30)
        try tui.waitFor(text: "1 host")
        XCTAssertExit(try home.run("add", "db-from-cli", "--host", "db.example", "--group", "prod"), 0)
        try tui.waitFor("the new host and its group") {
            $0.contains("2 hosts") && $0.contains("db-from-cli") && $0.contains("prod")
        }
        XCTAssertExit(try home.run("rm", "web"), 0)
        try tui.waitFor("the host gone") { $0.contains("1 host") && !$0.contains("w.example") }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testTheSyncFolderRenamedTurnsTheLineOrangeWithTheReason() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try home.run("vault", "init"), 0)
        let folder = home.root + "/nas/sshelf"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertExit(try home.run("sync", "enable", "--folder", folder), 0)
        let tui = try Tmux(home: home, columns: 140, environment: ["TERM": "tmux-256color"])
        try tui.waitFor(text: "✓ synced")
        // No key, no timer: the quick check between runs sees the folder gone.
        XCTAssertEqual(rename(folder, folder + "-renamed"), 0)
        let reason = "▲ local fallback: sync folder \(folder) not found"
        let screen = try tui.waitFor("the fallback reason", escapes: true) { $0.contains(reason) }
        let line = screen.split(separator: "\n").last { $0.contains(reason) } ?? ""
        XCTAssertTrue(line.contains("38;5;208"), "orange expected: \(line)")
        // Back under its name: synced again, by itself.
        XCTAssertEqual(rename(folder + "-renamed", folder), 0)
        try tui.waitFor(text: "✓ synced")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// What another terminal's `sync now` found shows without a key: the TUI reads the status file every run
    /// writes. The git remote here is a local path that never disappears (the quick check sees nothing), the
    /// TUI's own runs are an hour apart, and after the repair only the other terminal syncs.
    func testASyncNowElsewhereShowsItsResultWithoutAKey() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_SYNC_POLL_SECONDS": "3600"]
        XCTAssertExit(try home.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try home.run("vault", "init"), 0)
        let remote = home.root + "/remote.git"
        try Shell.run(TestTool.git.path, ["init", "-q", "--bare", remote])
        XCTAssertExit(try home.run("sync", "enable", "--git", remote), 0)
        let tui = try Tmux(home: home, columns: 160)
        try tui.waitFor(text: "✓ synced")
        // Not a repository any more (still a folder): the TUI's own run after the next change falls back.
        try FileManager.default.removeItem(atPath: remote)
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: false)
        XCTAssertExit(try home.run("add", "db", "--host", "d.example"), 0)
        try tui.waitFor(text: "▲ local fallback: ")
        // Repaired, and synced from another terminal: the TUI shows that run's result by itself.
        try FileManager.default.removeItem(atPath: remote)
        try Shell.run(TestTool.git.path, ["init", "-q", "--bare", remote])
        XCTAssertExit(try home.run("sync", "now"), 0)
        try tui.waitFor(text: "✓ synced")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testALocalChangeReachesTheSyncFolderWithoutAKeyAndSSyncsNow() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
        XCTAssertExit(try home.run("vault", "init"), 0)
        let folder = home.root + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertExit(try home.run("sync", "enable", "--folder", folder), 0)
        let tui = try Tmux(home: home, columns: 140)
        try tui.waitFor(text: "✓ synced")
        // Nothing but the TUI syncs here, and a run with nothing to send writes nothing to the folder: the folder
        // growing after the change is the TUI's background sync sending it.
        let before = Self.bytes(under: folder)
        let marker = "live-\(UUID().uuidString.prefix(8))"
        XCTAssertExit(try home.run("add", marker, "--host", "\(marker).example"), 0)
        // Debounced (about 2 s after the change), then sent: the folder grew and nothing is pending.
        try eventually(
            "the change sent", observe: { (Self.bytes(under: folder), try home.run("sync", "status").stdout) },
            until: { $0.0 > before && !$0.1.contains("not sent yet") }, context: { (try? tui.screen()) ?? "" })
        // S: a run now (the status file gets a newer time).
        let lastRun = try Self.statusFileTime(home)
        try tui.send("S")
        try tui.waitFor(text: "syncing now...")
        try eventually("a new sync run", observe: { try Self.statusFileTime(home) }, until: { $0 > lastRun })
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// Another device writes to the sync folder: the TUI's inotify watch syncs at once (a folder remote is otherwise
    /// synced only every 5 minutes), and the new host appears without a key.
    func testAnotherDevicesChangeInTheSyncFolderArrivesAtOnce() throws {
        let a = TempHome(), b = TempHome()
        let folder = a.root + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for device in [a, b] {
            device.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1"]
            XCTAssertExit(try device.run("vault", "init"), 0)
        }
        XCTAssertExit(try a.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", folder), 0)
        // b is not enrolled yet (exit 1, the folder kept), then joins by an invite from a.
        XCTAssertExit(try b.run("sync", "enable", "--folder", folder), 0)
        try enroll(b, by: a)
        let tui = try Tmux(home: a, columns: 140)
        try tui.waitFor("the first run done") { $0.contains("✓ synced") && $0.contains("1 host") }
        XCTAssertExit(try b.run("add", "from-b", "--host", "b.example"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        try tui.waitFor("b's host on a's screen") { $0.contains("from-b") && $0.contains("2 hosts") }
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    func testVaultUnlockAndLockElsewhereShowInTheStatusLine() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        XCTAssertExit(try home.run("add", "db", "--host", "db.example", "--auth", "password"), 0)
        let passphrase = "vault-pass-\(UUID().uuidString.prefix(6))"
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "0"], stdin: passphrase + "\n"), 0)
        let secret = try home.write("CANARY-pw\n", to: "pw")
        let phrase = try home.write(passphrase + "\n", to: "pp")
        XCTAssertExit(
            try CLI.run(
                [
                    "-c", "exec \"$0\" \"$@\" 3<'\(secret)' 4<'\(phrase)'", CLI.binary, "vault", "set-password",
                    "db", "--secret-fd", "3", "--passphrase-fd", "4",
                ], environment: home.environment,
                shell: true), 0)
        // Kept where `vault unlock` opens it for every process of this login (the kernel keyring).
        let key = try XCTUnwrap(
            try home.run("vault", "list").stdout.split(separator: "\n").dropFirst().first?
                .split(separator: " ").first)
        XCTAssertExit(
            try home.run(
                ["vault", "set-class", String(key), "afterFirstUnlockThisDeviceOnly", "--passphrase-fd", "3"],
                fd3: passphrase), 0)
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let tui = try Tmux(home: home, columns: 140)
        try tui.waitFor(text: "vault locked")
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: passphrase), 0)
        try tui.waitFor(text: "vault unlocked")
        XCTAssertExit(try home.run("vault", "lock"), 0)
        try tui.waitFor(text: "vault locked")
        try tui.send("q")
        XCTAssertEqual(try tui.waitForExit(), 0)
    }

    /// The size of every file under `folder`, added up.
    static func bytes(under folder: String) -> Int {
        var total = 0
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        while let name = walker.nextObject() as? String {
            let size = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.size] as? Int
            total += size ?? 0
        }
        return total
    }

    static func statusFileTime(_ home: TempHome) throws -> Date {
        let attributes = try? FileManager.default.attributesOfItem(atPath: home.sshelfHome + "/state/sync-status.json")
        return attributes?[.modificationDate] as? Date ?? .distantPast
    }
}

// Migration from a remote written by sshelf's format 1 (Tests/Fixtures/sync-format1, made by that version): the
// first device on the new version creates the group, republishes its state sealed and signed, moves format.json
// to 2 and removes every plaintext file — without a flag, on every run, idempotently; through git it commits the
// removal and says once per run that the history still holds the old files. The other device joins by invite.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
@testable import ShelfVault
import TestSupport
import XCTest

final class MigrationTests: XCTestCase {
    static let canaries = [
        "prod-db-canary", "canary-db.internal.example", "dbadmin-canary", "tagcanary", "canary-target.internal.example",
        "prod-canary", "canary-web.internal.example", "canary-laptop.internal.example", "CANARY-v1-password",
    ]
    static let formatOneFiles = [
        "devices/631e65d2-6a2b-4105-add7-6917bf8f5551/config/00000001.jsonl",
        "devices/631e65d2-6a2b-4105-add7-6917bf8f5551/credentials/00000001.box",
        "devices/631e65d2-6a2b-4105-add7-6917bf8f5551/device.json",
        "devices/fa06d9bd-e0e6-4071-92ff-9b784cb1b631/config/00000001.jsonl",
        "devices/fa06d9bd-e0e6-4071-92ff-9b784cb1b631/credentials/00000001.box",
        "devices/fa06d9bd-e0e6-4071-92ff-9b784cb1b631/device.json",
    ]

    /// The two devices of the fixture, upgraded, pointed at `remote`.
    func devices(_ point: (Device) throws -> Void) throws -> (a: Device, b: Device) {
        let a = try Device("a", fixture: fixture("sync-format1/home-a"))
        let b = try Device("b", fixture: fixture("sync-format1/home-b"))
        for device in [a, b] { try point(device) }
        XCTAssertEqual(a.id, "631e65d2-6a2b-4105-add7-6917bf8f5551", "the fixture's device")
        XCTAssertTrue(try SyncSettings.credentialsEnabled(a.store))
        return (a, b)
    }

    func testFolderRemoteIsUpgradedByTheFirstNewDevice() throws {
        let remote = try makeFolder()
        try FileManager.default.removeItem(atPath: remote)
        try FileManager.default.copyItem(atPath: fixture("sync-format1/remote"), toPath: remote)
        XCTAssertEqual(files(under: remote), (["format.json"] + Self.formatOneFiles).sorted())
        XCTAssertFalse(
            Canaries.found(
                Self.canaries, in: try Data(contentsOf: URL(fileURLWithPath: remote + "/" + Self.formatOneFiles[0]))
            ).isEmpty,
            "format 1 is plaintext: the attack surface this migration removes")
        let (a, b) = try devices { try $0.enable(folder: remote) }

        let upgrade = a.sync()
        XCTAssertTrue(
            upgrade.events.contains("moved the remote to the trusted format (2) and created the sync group"),
            "\(upgrade.events)")
        XCTAssertEqual(upgrade.removedFormatOne, 6)
        XCTAssertEqual(try String(contentsOfFile: remote + "/format.json", encoding: .utf8), "{\"format\":2}\n")
        XCTAssertEqual(files(under: remote), ["devices/\(a.id)/0000000001.entry", "format.json"])
        try Canaries.assertAbsent(Self.canaries, inFolder: remote)
        XCTAssertEqual(try a.store.hosts().count, 3, "nothing local was lost")

        // Idempotent, no marker: a second run changes nothing; a late format-1 file (an old device that had not
        // stopped yet) is removed again.
        let again = a.sync()
        XCTAssertEqual(again.removedFormatOne, 0)
        XCTAssertEqual(try FolderRemote(path: remote).entries(of: a.id).count, 1)
        let late = remote + "/" + Self.formatOneFiles[3]
        try FileManager.default.createDirectory(
            atPath: (late as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixture("sync-format1/remote") + "/" + Self.formatOneFiles[3], toPath: late)
        XCTAssertEqual(a.sync().removedFormatOne, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: late))

        // The other device: told to join; then joins by invite and syncs everything.
        XCTAssertEqual(
            b.sync(expect: .localFallback).reason, "this device is not enrolled in the sync group on this remote")
        let code = try a.invite()
        a.sync()
        try b.join(code)
        a.sync()
        b.sync()
        a.sync()
        XCTAssertEqual(try a.state(), try b.state())
        XCTAssertEqual(try b.store.hosts().map(\.name).sorted(), ["laptop-canary", "prod-db-canary", "web-canary"])
        let host = try XCTUnwrap(try b.host("prod-db-canary"))
        XCTAssertEqual(
            b.vault.loadHostPassword(host.id, class: .whenUnlocked).secret.map {
                String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self)
            },
            "CANARY-v1-password")
        try Canaries.assertAbsent(Self.canaries, inFolder: remote)
    }

    func testGitRemoteRemovesTheOldFilesAndWarnsAboutHistory() throws {
        let repository = try makeBareRepository()
        // The repository as format 1 left it: the fixture's files, committed and pushed.
        let seed = try makeFolder("seed")
        try Shell.run(TestTool.git.path, ["clone", "--quiet", repository.url, seed + "/work"])
        for relative in files(under: fixture("sync-format1/remote")) {
            let target = seed + "/work/" + relative
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: fixture("sync-format1/remote") + "/" + relative, toPath: target)
        }
        try Shell.run(TestTool.git.path, ["-C", seed + "/work", "add", "-A"])
        try Shell.run(
            TestTool.git.path,
            [
                "-C", seed + "/work", "-c", "user.name=sshelf", "-c", "user.email=sshelf@old", "commit", "--quiet",
                "-m", "format 1",
            ])
        try Shell.run(TestTool.git.path, ["-C", seed + "/work", "push", "--quiet", "origin", "HEAD"])

        let (a, _) = try devices { try $0.enable(git: repository.url) }
        let upgrade = a.sync()
        XCTAssertEqual(upgrade.removedFormatOne, 6)
        let warning = try XCTUnwrap(
            upgrade.warnings.first { $0.hasPrefix("the git history still holds the old plaintext records") },
            "\(upgrade.warnings)")
        // It names the fix: the rewrite that removes exactly format 1's paths, or a new repository.
        XCTAssertTrue(
            warning.contains(
                "git filter-repo --invert-paths --path-glob 'devices/*/config/*' --path-glob 'devices/*/device.json' "
                    + "--path-glob 'devices/*/credentials/*'"), warning)
        XCTAssertTrue(warning.contains("'sshelf sync enable --git NEW-URL'"), warning)
        let tree = try Shell.run(TestTool.git.path, ["-C", repository.path, "ls-tree", "-r", "--name-only", "HEAD"])
        XCTAssertEqual(
            tree.split(separator: "\n").map(String.init).sorted(), ["devices/\(a.id)/0000000001.entry", "format.json"])
        // The warning is true: the history still has them (rewriting it is the user's call).
        let history = try Shell.run(
            TestTool.git.path, ["-C", repository.path, "log", "--all", "--name-only", "--format="])
        XCTAssertTrue(history.contains(Self.formatOneFiles[0]))
        let again = a.sync()
        XCTAssertFalse(again.warnings.contains { $0.hasPrefix("the git history") }, "said once, while it removed them")

        // The fix, followed as written: afterwards no commit holds a format-1 file, the device's working copy takes
        // the rewritten history on its next sync without bringing one back, and once the host drops what is no
        // longer referenced (here: gc), no object holds the old plaintext.
        let command = try XCTUnwrap(
            warning.components(separatedBy: "from a fresh clone: ").last?.components(separatedBy: " (the git host")
                .first)
        let workspace = try makeFolder("rewrite")
        try Shell.run(TestTool.sh.path, ["-c", "cd \(ShellWord.quote(workspace)) && \(command)"])
        func formatOnePaths() throws -> [String] {
            try Shell.run(TestTool.git.path, ["-C", repository.path, "log", "--all", "--name-only", "--format="]).split(
                separator: "\n"
            )
            .map(String.init).filter {
                $0.contains("/config/") || $0.contains("/credentials/") || $0.hasSuffix("/device.json")
            }
        }
        XCTAssertEqual(try formatOnePaths(), [])
        _ = try a.add("after-the-rewrite")
        XCTAssertEqual(a.sync().state, .synced)
        XCTAssertEqual(try formatOnePaths(), [], "the device's next push did not bring the old history back")
        try Shell.run(TestTool.git.path, ["-C", repository.path, "gc", "--quiet", "--prune=now"])
        try Canaries.assertAbsent(Self.canaries, inGit: repository.path)
    }
}

// Sync commands through the real binary: enable (the first device creates the group), invite and join (the code on
// a descriptor, never argv; mistakes and old join codes refused with nothing written), status (text and JSON, the
// real reason), devices, revoke, conflicts, disable, a passphrase-protected vault, and the "not yet synced" hint
// naming the fix for this device.
import Foundation
import ShelfStore
import TestSupport
import XCTest

/// A device for CLI sync tests: its own home, no kernel keyring, fast key stretching.
func syncHome() -> TempHome {
    let home = TempHome()
    home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
    return home
}

func syncRemote(_ name: String) throws -> String {
    let path =
        (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/sshelf-\(name)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The invite code `sync invite` printed (the indented line).
func inviteCode(_ result: CLIResult) throws -> String {
    try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix("    ") }).trimmingCharacters(
        in: .whitespaces)
}

/// Enrolls `joiner` into `inviter`'s group through the CLI.
func enroll(_ joiner: TempHome, by inviter: TempHome, file: StaticString = #filePath, line: UInt = #line) throws {
    let invite = try inviter.run("sync", "invite")
    XCTAssertExit(invite, 0, file: file, line: line)
    let joined = try joiner.run(["sync", "join", "--code-fd", "3"], fd3: try inviteCode(invite))
    XCTAssertExit(joined, 0, file: file, line: line)
    XCTAssertExit(try inviter.run("sync", "now"), 0, file: file, line: line)
    XCTAssertExit(try joiner.run("sync", "now"), 0, file: file, line: line)
}

final class SyncCommandTests: XCTestCase {
    func testTwoDevicesThroughTheCLI() throws {
        let remote = try syncRemote("cli-remote")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example", "--group", "prod"), 0)
        XCTAssertEqual(try b.run("sync", "status").stdout, "○ sync off\n")
        let enabled = try a.run("sync", "enable", "--folder", remote)
        XCTAssertExit(enabled, 0)
        XCTAssertTrue(enabled.stdout.contains("created the sync group"), enabled.stdout)
        XCTAssertTrue(enabled.stdout.contains("synced: 0 changes received, 2 sent"), enabled.stdout)

        // B points at the same remote: not enrolled, and told how.
        let outsider = try b.run("sync", "enable", "--folder", remote)
        XCTAssertExit(outsider, 0)
        XCTAssertTrue(
            outsider.stderr.contains("local fallback: this device is not enrolled in the sync group on this remote"),
            outsider.stderr)
        XCTAssertTrue(
            outsider.stderr.contains(
                "hint: run 'sshelf sync invite' on an enrolled device, then 'sshelf sync join' here"), outsider.stderr)

        let invite = try a.run("sync", "invite", "--expires", "30m")
        XCTAssertExit(invite, 0)
        let code = try inviteCode(invite)
        XCTAssertTrue(invite.stdout.contains("works once"), invite.stdout)
        let joined = try b.run(["sync", "join", "--code-fd", "3"], fd3: code)
        XCTAssertExit(joined, 0)
        XCTAssertTrue(joined.stdout.contains("waiting to be enrolled (invited by "), joined.stdout)
        let waiting = try b.run("sync", "status", "--json")
        let waitingObject = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(waiting.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(waitingObject["membership"] as? String, "waiting")
        XCTAssertFalse(
            try b.run("list").stdout.contains("w.example"), "a waiting device holds no group key: it reads nothing yet")

        let enrolling = try a.run("sync", "now")
        XCTAssertTrue(enrolling.stdout.contains("enrolled "), enrolling.stdout)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertTrue(try b.run("group", "list").stdout.contains("prod/"))
        XCTAssertExit(try b.run("edit", "web", "--port", "2222"), 0)
        XCTAssertExit(try a.run("edit", "web", "--user", "alice"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertTrue(
            try a.run("show", "web").stdout.contains("alice@w.example:2222"),
            "different fields edited on two devices both stay")
        XCTAssertExit(try a.run("edit", "web", "--tag", "later"), 0)
        XCTAssertTrue(try a.run("sync", "status").stdout.contains("1 local change not sent yet"))
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertFalse(try a.run("sync", "status").stdout.contains("not sent yet"))

        let devices = try a.run("sync", "devices")
        XCTAssertEqual(devices.stdout.split(separator: "\n").count, 3, devices.stdout)
        XCTAssertTrue(devices.stdout.contains("(this device)"), devices.stdout)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try a.run("sync", "devices", "--json").stdout.utf8))
                as? [[String: Any]])
        XCTAssertEqual(json.count, 2)
        XCTAssertEqual(json.filter { $0["thisDevice"] as? Bool == true }.count, 1)

        // The remote goes away: sync falls back with the real reason, and status says so.
        try FileManager.default.removeItem(atPath: remote)
        let failed = try a.run("sync", "now")
        XCTAssertExit(failed, 1)
        XCTAssertTrue(failed.stderr.contains("local fallback: sync folder \(remote) not found"), failed.stderr)
        let status = try a.run("sync", "status", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["state"] as? String, "localFallback")
        XCTAssertEqual((object["lastRun"] as? [String: Any])?["reason"] as? String, "sync folder \(remote) not found")
        XCTAssertTrue(try a.run("sync", "status").stdout.contains("▲ local fallback: sync folder"))
        XCTAssertTrue(try a.run("list").stdout.contains("web"), "browsing carries on")

        XCTAssertExit(try a.run("sync", "disable"), 0)
        XCTAssertEqual(try a.run("sync", "status").stdout, "○ sync off\n")
        XCTAssertExit(try a.run("sync", "enable"), 2)
    }

    func testCodeMistakesAndOldJoinCodesWriteNothing() throws {
        let remote = try syncRemote("cli-join")
        let a = syncHome(), b = syncHome()
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        let code = try inviteCode(try a.run("sync", "invite"))
        var wrong = Array(code)
        wrong[0] = wrong[0] == "B" ? "C" : "B"
        let refused = try b.run(["sync", "join", "--code-fd", "3"], fd3: String(wrong))
        XCTAssertExit(refused, 4)
        XCTAssertTrue(refused.stderr.contains("checksum"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nothing was written"), refused.stderr)
        let oldCode = "KYDG3-EBTB3-MOFL5-HF2KA-2F6XH-ZMXVL-E57YY-AUVNB-FMPYL-FR3MW-EHJQT-F5E"
        let old = try b.run(["sync", "join", "--code-fd", "3"], fd3: oldCode)
        XCTAssertExit(old, 4)
        XCTAssertTrue(old.stderr.contains("join code from an older sshelf"), old.stderr)
        XCTAssertTrue(old.stderr.contains("sshelf sync invite"), old.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: remote + "/invites/\(UUID().uuidString.lowercased())"))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: remote + "/invites").filter { $0.hasSuffix(".claim") },
            [],
            "no claim was left")
        let short = try a.run("sync", "invite", "--expires", "10s")
        XCTAssertExit(short, 4)
        XCTAssertTrue(short.stderr.contains("not a duration between 1m and 7d"), short.stderr)
        XCTAssertExit(try syncHome().run("sync", "invite"), 1)
        let me = try XCTUnwrap(
            try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(try a.run("sync", "status", "--json").stdout.utf8))
                    as? [String: Any])["device"] as? String)
        let selfRevoke = try a.run("sync", "revoke", String(me.prefix(8)))
        XCTAssertNotEqual(selfRevoke.status, 0)
        XCTAssertTrue(selfRevoke.stderr.contains("a device cannot revoke itself"), selfRevoke.stderr)
        // The code never appears as an argument: `sync join` has no option that takes it.
        XCTAssertExit(try b.run("sync", "join", code), 2)
        let joined = try b.run(["sync", "join", "--code-fd", "3"], fd3: code)
        XCTAssertExit(joined, 0)
        let c = syncHome()
        XCTAssertExit(try c.run("sync", "enable", "--folder", remote), 0)
        let reused = try c.run(["sync", "join", "--code-fd", "3"], fd3: code)
        XCTAssertExit(reused, 1)
        XCTAssertTrue(reused.stderr.contains("this invite was already used by another device"), reused.stderr)
    }

    func testRevokeAndConflictsThroughTheCLI() throws {
        let remote = try syncRemote("cli-revoke")
        let a = syncHome(), b = syncHome(), c = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        for home in [b, c] {
            XCTAssertExit(try home.run("sync", "enable", "--folder", remote), 0)
            try enroll(home, by: a)
        }
        XCTAssertExit(try a.run("sync", "now"), 0)
        // A conflict: the same field on two devices.
        XCTAssertExit(try a.run("edit", "web", "--user", "alice"), 0)
        XCTAssertExit(try b.run("edit", "web", "--user", "bob"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        let synced = try b.run("sync", "now")
        XCTAssertTrue(synced.stdout.contains("1 merge conflict to look at: 'sshelf sync conflicts'"), synced.stdout)
        XCTAssertTrue(try b.run("sync", "status").stdout.contains("1 merge conflict to look at"))
        let listed = try b.run("sync", "conflicts")
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try b.run("sync", "conflicts", "--json").stdout.utf8))
                as? [[String: Any]])
        XCTAssertEqual(json.first?["field"] as? String, "user")
        let number = try XCTUnwrap(json.first?["id"] as? Int)
        // In words: the record, the field, each value with the device that wrote it (by name) and when.
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("#\(number) host web · user · found ") == true, listed.stdout)
        XCTAssertTrue(lines.first?.hasSuffix(" · new") == true, listed.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  kept   \"bob\"  by this device, 20") }, listed.stdout)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("  other  \"alice\"  by ") && $0.contains(" (") && !$0.contains("this device")
            }, listed.stdout)
        XCTAssertTrue(lines.contains("  settle sshelf sync conflicts resolve \(number) --take other"), listed.stdout)
        XCTAssertEqual(try b.run("sync", "conflicts", "--seen").stdout, "1 conflict marked seen\n")
        XCTAssertFalse(try b.run("sync", "status").stdout.contains("merge conflict"))
        // Settled from the CLI: the other value, which syncs to the device whose value was kept.
        XCTAssertExit(try b.run("sync", "conflicts", "resolve", String(number)), 2)
        XCTAssertExit(try b.run("sync", "conflicts", "resolve", "x", "--take", "other"), 2)
        let settled = try b.run("sync", "conflicts", "resolve", String(number), "--take", "other")
        XCTAssertExit(settled, 0)
        XCTAssertEqual(
            settled.stdout,
            "conflict \(number) settled: took the other value; it goes to the other devices on the next sync\n")
        XCTAssertTrue(try b.run("sync", "conflicts").stdout.contains(" · settled: took other"))
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertTrue(try a.run("show", "web").stdout.contains("alice"))
        XCTAssertNotEqual(
            try b.run("sync", "conflicts", "resolve", String(number), "--take", "kept").status, 0, "settled once")

        // Revoke C by id prefix.
        let cStatus = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try c.run("sync", "status", "--json").stdout.utf8))
                as? [String: Any])
        let cID = try XCTUnwrap(cStatus["device"] as? String)
        // It cannot be undone: without a terminal and without --yes it refuses, says why, and revokes nothing.
        let unasked = try a.run("sync", "revoke", String(cID.prefix(8)))
        XCTAssertExit(unasked, 2)
        XCTAssertTrue(
            unasked.stderr.contains(
                "sync revoke needs a confirmation, and there is no terminal to ask on; nothing was revoked"),
            unasked.stderr)
        XCTAssertTrue(unasked.stdout.contains("cannot be undone"), unasked.stdout)
        XCTAssertFalse(try a.run("sync", "devices").stdout.contains("revoked by"))
        let revoked = try a.run("sync", "revoke", String(cID.prefix(8)), "--yes")
        XCTAssertExit(revoked, 0)
        XCTAssertTrue(revoked.stdout.contains("revoked "), revoked.stdout)
        XCTAssertTrue(revoked.stdout.contains("the group key is replaced"), revoked.stdout)
        XCTAssertTrue(revoked.stdout.contains("keeps what it already has"), revoked.stdout)
        XCTAssertTrue(try a.run("sync", "devices").stdout.contains("revoked by"))
        XCTAssertExit(try b.run("sync", "now"), 0)
        let shutOut = try c.run("sync", "now")
        XCTAssertExit(shutOut, 1)
        XCTAssertTrue(shutOut.stderr.contains("local fallback: revoked by "), shutOut.stderr)
        XCTAssertTrue(try c.run("sync", "status").stdout.contains("▲ local fallback: revoked by "))
        XCTAssertExit(try a.run("sync", "revoke", "no-such-device"), 3)

        // Rename: any device of the group but a revoked one, never to a name another device has; the new name
        // reaches the other device, and the renamed one.
        let bStatus = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try b.run("sync", "status", "--json").stdout.utf8))
                as? [String: Any])
        let bID = try XCTUnwrap(bStatus["device"] as? String)
        let revokedOne = try b.run("sync", "rename", String(cID.prefix(8)), "x")
        XCTAssertExit(revokedOne, 4)
        XCTAssertTrue(revokedOne.stderr.contains("(\(cID.prefix(8))) was revoked by "), revokedOne.stderr)
        XCTAssertTrue(revokedOne.stderr.contains("a revoked device cannot be renamed"), revokedOne.stderr)
        // A bidi override (or any control or format character) is refused with the character named.
        let bidi = try b.run("sync", "rename", "evil\u{202E}txt.exe")
        XCTAssertExit(bidi, 4)
        XCTAssertTrue(
            bidi.stderr.contains("a device name cannot hold U+202E (RIGHT-TO-LEFT OVERRIDE)"), bidi.stderr)
        let renamed = try b.run("sync", "rename", String(bID.prefix(8)), "build-box")
        XCTAssertExit(renamed, 0)
        XCTAssertTrue(renamed.stdout.contains("this device is now 'build-box' in the sync group"), renamed.stdout)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertTrue(try a.run("sync", "devices").stdout.contains("build-box"))
        XCTAssertExit(try a.run("sync", "rename", "BUILD-BOX"), 4)
        XCTAssertTrue(try b.run("sync", "status").stdout.contains("(build-box)"))
        let other = try a.run("sync", "rename", "Build-Box", "laptop")
        XCTAssertExit(other, 0)
        XCTAssertTrue(
            other.stdout.contains("'build-box' (\(bID.prefix(8))) is now 'laptop' in the sync group"), other.stdout)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertTrue(try b.run("sync", "status").stdout.contains("(laptop)"))
        XCTAssertTrue(try a.run("sync", "devices").stdout.contains("laptop"))
    }

    /// `sync enable` checks the remote before anything is saved — the setting, the vault, the group: a folder that
    /// is missing, a file or read-only, a git URL git cannot read, each exit 4 with the reason and what to do; an
    /// earlier setting stays as it was. `sync join` and `sync invite` refuse bad values the same way.
    func testEnableValidatesTheRemoteBeforeSavingAnything() throws {
        let base = try syncRemote("cli-validate")
        let a = syncHome()
        let vaultFile = a.sshelfHome + "/data/vault.sqlite"
        func refused(
            _ arguments: [String], _ message: String, hint: String, file: StaticString = #filePath, line: UInt = #line
        ) throws {
            let result = try a.run(["sync", "enable"] + arguments)
            XCTAssertExit(result, 4, file: file, line: line)
            XCTAssertTrue(result.stderr.hasPrefix("sshelf: error: \(message)\n"), result.stderr, file: file, line: line)
            XCTAssertTrue(result.stderr.contains("sshelf: hint: \(hint)"), result.stderr, file: file, line: line)
            XCTAssertTrue(result.stderr.contains("nothing was saved"), result.stderr, file: file, line: line)
        }
        try refused(
            ["--folder", base + "/missing"], "--folder: sync folder \(base)/missing not found",
            hint: "create it first (mkdir -p \(base)/missing) or mount it")
        XCTAssertTrue(FileManager.default.createFile(atPath: base + "/file", contents: Data("x".utf8)))
        try refused(
            ["--folder", base + "/file"], "--folder: sync folder \(base)/file is not a directory",
            hint: "point sync at a folder")
        try refused(
            ["--git", "file://\(base)/nowhere.git"],
            "--git: git cannot read file://\(base)/nowhere.git: fatal: '\(base)/nowhere.git' does not appear "
                + "to be a git repository",
            hint: "check the URL, and that 'git ls-remote file://\(base)/nowhere.git' works for you")
        try refused(["--git", ""], "--git: '' is not a repository URL", hint: "nothing was saved")
        XCTAssertEqual(try a.run("sync", "status").stdout, "○ sync off\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: vaultFile), "not even the vault was created")

        // A read-only mount (root ignores permission bits, so a read-only file system is the honest way).
        let readOnly = base + "/ro"
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        if (try? Shell.run(TestTool.mount.path, ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", readOnly])) != nil {
            defer { _ = try? Shell.run(TestTool.umount.path, [readOnly]) }
            try refused(
                ["--folder", readOnly], "--folder: sync folder \(readOnly) is not writable",
                hint: "check its owner and permissions (and that it is not mounted read-only)")
        }

        // With sync on, a bad new remote leaves the old one in place.
        let good = base + "/good"
        try FileManager.default.createDirectory(atPath: good, withIntermediateDirectories: true)
        XCTAssertExit(try a.run("sync", "enable", "--folder", good), 0)
        try refused(
            ["--folder", base + "/elsewhere"], "--folder: sync folder \(base)/elsewhere not found",
            hint: "create it first (mkdir -p \(base)/elsewhere) or mount it")
        let status = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try a.run("sync", "status", "--json").stdout.utf8))
                as? [String: Any])
        XCTAssertEqual(status["location"] as? String, good)
        XCTAssertEqual(status["state"] as? String, "synced")

        // A bare repository git can read is accepted (empty is fine), and so is the first sync through it.
        let bare = base + "/remote.git"
        try Shell.run(TestTool.git.path, ["init", "--quiet", "--bare", bare])
        XCTAssertExit(try a.run("sync", "enable", "--git", "file://" + bare), 0)

        // join and invite: bad values are exit 4 too, and nothing is written.
        let b = syncHome()
        XCTAssertExit(try b.run("sync", "enable", "--folder", good), 0)
        let badFD = try b.run("sync", "join", "--code-fd", "99")
        XCTAssertExit(badFD, 4)
        XCTAssertTrue(badFD.stderr.contains("--code-fd: '99' is not an open file descriptor"), badFD.stderr)
        XCTAssertExit(try b.run(["sync", "join", "--code-fd", "3"], fd3: "ABCDE-FGHIJ"), 4)
        XCTAssertExit(try b.run(["sync", "join", "--code-fd", "3"], fd3: ""), 4)
        XCTAssertExit(try a.run("sync", "invite", "--expires", "8d"), 4)
        XCTAssertExit(try a.run("sync", "invite", "--expires", "soon"), 4)
        XCTAssertFalse(FileManager.default.fileExists(atPath: good + "/invites"), "no invite was made")
    }

    /// A damaged vault stops `sync now` with the vault's own error (exit 5), and the saved status says so instead of
    /// the last good run; browsing goes on.
    func testADamagedVaultIsAStatusNotACrash() throws {
        let remote = try syncRemote("cli-damaged-vault")
        let a = syncHome()
        XCTAssertExit(try a.run("add", "web", "--host", "w.example"), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: a.sshelfHome + "/data/vault.sqlite"))
        let failed = try a.run("sync", "now")
        XCTAssertExit(failed, 5)
        XCTAssertTrue(
            failed.stderr.hasPrefix("sshelf: error: open the vault: the vault file is damaged"), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("sshelf: hint: "), failed.stderr)
        let status = try a.run("sync", "status").stdout
        XCTAssertTrue(status.contains("▲ local fallback: vault unavailable: "), status)
        XCTAssertTrue(try a.run("list").stdout.contains("w.example"))
    }

    /// An invite works for 1 hour unless told otherwise (the stored expiry minus its creation, not the wall clock).
    func testInviteExpiryDefaultsToAnHour() throws {
        let remote = try syncRemote("cli-expiry")
        let a = syncHome()
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try a.run("sync", "invite"), 0)
        XCTAssertExit(try a.run("sync", "invite", "--expires", "30m"), 0)
        let store = try Store(path: a.sshelfHome + "/data/store.sqlite")
        XCTAssertEqual(
            try store.pendingInvites().map { $0.expires.timeIntervalSince($0.created) }.sorted(), [1800, 3600])
    }

    /// With a vault passphrase, `--passphrase-fd` unlocks for the whole run: the keys are made and the whenUnlocked
    /// password is read and sealed. Turning credential sync on first lists what will travel and needs a yes: with
    /// no terminal and no --yes nothing is saved (exit 2). With --yes and no passphrase given, sync is on (exit 0)
    /// and the first run's locked vault is told apart from the command's outcome.
    func testCredentialSyncIsListedConfirmedAndEnabledWithAPassphraseProtectedVault() throws {
        let remote = try syncRemote("cli-pp")
        let a = syncHome()
        XCTAssertExit(try a.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(try a.run("vault", "init"), 0)
        XCTAssertExit(try a.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "vault pass phrase"), 0)
        XCTAssertExit(
            try a.run(
                ["vault", "set-password", "db", "--secret-fd", "3", "--passphrase-fd", "3"],
                fd3: "vault pass phrase\nCANARY-db-password"), 0)

        let unconfirmed = try a.run("sync", "enable", "--folder", remote, "--credentials")
        XCTAssertExit(unconfirmed, 2)
        XCTAssertTrue(unconfirmed.stdout.contains("will move to a syncable class and travel"), unconfirmed.stdout)
        XCTAssertTrue(unconfirmed.stdout.contains("password of host 'db' (host."), unconfirmed.stdout)
        XCTAssertTrue(unconfirmed.stdout.contains("whenUnlockedThisDeviceOnly -> whenUnlocked"), unconfirmed.stdout)
        XCTAssertTrue(
            unconfirmed.stderr.contains("credential sync would move 1 item to a syncable class; nothing was changed"),
            unconfirmed.stderr)
        XCTAssertTrue(
            unconfirmed.stderr.contains("hint: read the list above, then run 'sshelf sync enable --credentials --yes'"),
            unconfirmed.stderr)
        XCTAssertEqual(try a.run("sync", "status").stdout, "○ sync off\n", "nothing was saved")

        // Confirmed, but the vault stays locked: sync is on, and the first run says separately what it found.
        let locked = try a.run("sync", "enable", "--folder", remote, "--credentials", "--yes")
        XCTAssertExit(locked, 0)
        XCTAssertTrue(locked.stdout.contains("sync enabled: folder \(remote)"), locked.stdout)
        XCTAssertTrue(locked.stdout.contains("credential sync on for this device"), locked.stdout)
        XCTAssertTrue(
            locked.stderr.contains("sshelf: first sync: local fallback: vault locked: sync needs this device's keys"),
            locked.stderr)
        XCTAssertFalse(locked.stderr.contains("error"), locked.stderr)

        let now = try a.run(["sync", "now", "--passphrase-fd", "3"], fd3: "vault pass phrase")
        XCTAssertExit(now, 0)
        XCTAssertTrue(
            now.stdout.contains("credentials: 0 received, 1 in the upload, 1 moved to syncable classes"), now.stdout)
    }
}

/// The "not yet synced to this device" error names the fix for this device.
final class NotYetSyncedHintTests: XCTestCase {
    var sshd: SSHD?
    /// Released, not only stopped: XCTest keeps the test case until the process exits, and the server's folder
    /// goes with the object.
    override func tearDown() { sshd = nil }

    func testTheHintNamesTheFixForThisDevice() throws {
        try TestAccount.ensure()
        let server = try SSHD.start()
        sshd = server
        let remote = try syncRemote("cli-hint")
        let a = syncHome(), b = syncHome(), c = syncHome()
        XCTAssertExit(
            try a.run("add", "prod", "--host", "127.0.0.1", "--port", "\(server.port)", "--user", TestAccount.name), 0)
        XCTAssertExit(try a.run("edit", "prod", "--auth", "password"), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "prod", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        XCTAssertExit(try a.run(["exec", "prod", "--accept-new", "--no-stdin", "--", "true"]), 0)
        XCTAssertExit(try a.run("sync", "enable", "--folder", remote), 0)
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        try enroll(b, by: a)

        // B has the host (with its pinned key) but syncs no credentials.
        XCTAssertExit(try a.run("sync", "enable", "--credentials", "--yes", "--accept-no-passphrase"), 0)
        let notice = try b.run("sync", "now")
        XCTAssertTrue(notice.stdout.contains("credentials not joined on this device"), notice.stdout)
        let off = try b.run("exec", "prod", "--no-stdin", "--", "true")
        XCTAssertExit(off, 255)
        XCTAssertTrue(off.stderr.contains("has not synced to this device yet"), off.stderr)
        XCTAssertTrue(
            off.stderr.contains(
                "hint: credentials are not synced on this device: run 'sshelf sync enable --credentials' here"),
            off.stderr)
        XCTAssertExit(try b.run("sync", "enable", "--credentials", "--yes", "--accept-no-passphrase"), 0)
        let on = try b.run("exec", "prod", "--no-stdin", "--", "echo", "reached")
        XCTAssertExit(on, 0)
        XCTAssertEqual(on.stdout, "reached\n")

        // C joined but is not enrolled yet: it holds nothing of the group (no key, no host), so its own host whose
        // password is not in its vault gets the hint, telling it whom to wait for.
        XCTAssertExit(
            try c.run("add", "prod", "--host", "127.0.0.1", "--port", "\(server.port)", "--user", TestAccount.name), 0)
        XCTAssertExit(try c.run("edit", "prod", "--auth", "password"), 0)
        XCTAssertExit(try c.run(["vault", "set-password", "prod", "--secret-fd", "3"], fd3: TestAccount.password), 0)
        XCTAssertExit(try c.run(["exec", "prod", "--accept-new", "--no-stdin", "--", "true"]), 0)
        let cItem = try XCTUnwrap(
            try c.run("vault", "list").stdout.split(separator: "\n")
                .compactMap { $0.split(separator: " ").first.map(String.init) }.first {
                    $0.hasPrefix("host.") && $0.hasSuffix(".password")
                })
        XCTAssertExit(try c.run("vault", "rm", cItem), 0)
        XCTAssertExit(try c.run("sync", "enable", "--folder", remote), 0)
        let code = try inviteCode(try a.run("sync", "invite"))
        XCTAssertExit(try c.run(["sync", "join", "--code-fd", "3"], fd3: code), 0)
        let waiting = try c.run("exec", "prod", "--no-stdin", "--", "true")
        XCTAssertExit(waiting, 255)
        XCTAssertTrue(
            waiting.stderr.contains(
                "hint: this device waits to be enrolled: run 'sshelf sync now' on the device that invited it"),
            waiting.stderr)
        // Its invite runs out before A enrolled it (its stored expiry moved into the past: an hour cannot pass here):
        // syncing on A no longer helps, so the hint asks for a new invite.
        try Store(path: c.sshelfHome + "/data/store.sqlite").setSetting("sync.join.expires", "1000")
        XCTAssertExit(try c.run("sync", "now"), 1)
        let expired = try c.run("exec", "prod", "--no-stdin", "--", "true")
        XCTAssertExit(expired, 255)
        XCTAssertTrue(expired.stderr.contains("hint: the invite expired before "), expired.stderr)
        XCTAssertTrue(expired.stderr.contains("ask for a new one ('sshelf sync invite' on "), expired.stderr)
        XCTAssertFalse(expired.stderr.contains("on the device that invited it"), expired.stderr)
        // A member whose remote is away (its last run stopped before reading it) is still told the fix for a member,
        // not to join: its place in the group is known without the remote.
        let item = try XCTUnwrap(
            try b.run("vault", "list").stdout.split(separator: "\n")
                .compactMap { $0.split(separator: " ").first.map(String.init) }.first {
                    $0.hasPrefix("host.") && $0.hasSuffix(".password")
                })
        XCTAssertExit(try b.run("vault", "rm", item), 0)
        try FileManager.default.moveItem(atPath: remote, toPath: remote + ".away")
        XCTAssertExit(try b.run("sync", "now"), 1)
        let away = try b.run("exec", "prod", "--no-stdin", "--", "true")
        XCTAssertExit(away, 255)
        XCTAssertTrue(
            away.stderr.contains("hint: it has not reached this device yet: run 'sshelf sync now' here"), away.stderr)
        XCTAssertTrue(server.waitForLog("Accepted password", count: 3), server.log)
        XCTAssertEqual(
            server.logCount("Accepted password"), 3, "A's first login, B's and C's own; never an empty password")
    }
}

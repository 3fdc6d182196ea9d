// SessionSyncHintTests: the credential track of sync reads through the vault session, so the hint it gives when the
// vault is locked — sshelf vault unlock — fixes it in the next run: after a lock, and after the idle timeout
// (whenUnlocked items locked, afterFirstUnlock sync keys still open), on the injected clock. Real kernel keyring,
// real folder remote.
import Foundation
import TestSupport
import XCTest

final class SessionSyncHintTests: XCTestCase {
    static let passphrase = "sync session pass"
    /// The CLI's words for sync's hint (data: HintDataFacesTests): the unlock, or a run given the passphrase.
    static let hint =
        "sshelf: hint: sshelf vault unlock, or sshelf sync now, and give the vault passphrase on a terminal, or on a "
        + "file descriptor"

    func testVaultUnlockFixesTheLockedCredentialTrack() throws {
        let remote = try syncRemote("session")
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        addTeardown { _ = try? home.run("vault", "lock") }
        XCTAssertExit(try home.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(try home.run("vault", "init"), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        XCTAssertExit(try home.run(["vault", "set-password", "db", "--secret-fd", "3"], fd3: "CANARY-db-password"), 0)
        XCTAssertExit(try home.run(["sync", "enable", "--folder", remote, "--credentials", "--yes"]), 0)

        // Locked: the run says so and names the unlock; following it makes the next run green.
        XCTAssertExit(try home.run("vault", "lock"), 0)
        let locked = try home.run("sync", "now")
        XCTAssertExit(locked, 1)
        XCTAssertTrue(locked.stderr.contains("vault locked"), locked.stderr)
        XCTAssertTrue(locked.stderr.contains(Self.hint), locked.stderr)
        XCTAssertExit(try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        XCTAssertExit(try home.run("sync", "now"), 0)

        // Idle: the whenUnlocked password is locked, sync's own afterFirstUnlock keys are not — the credential track
        // pauses with the same hint, and following it works.
        let start = 1_950_000_000
        func at(_ seconds: Int, _ arguments: [String], fd3: String? = nil) throws -> CLIResult {
            home.extraEnvironment["SSHELF_TEST_NOW"] = String(start + seconds)
            defer { home.extraEnvironment["SSHELF_TEST_NOW"] = nil }
            return try fd3.map { try home.run(arguments, fd3: $0) } ?? home.run(arguments)
        }
        XCTAssertExit(try at(0, ["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        XCTAssertExit(try at(1, ["vault", "set-password", "db", "--secret-fd", "3"], fd3: "CANARY-db-password-2"), 0)
        let idle = try at(1000, ["sync", "now"])
        XCTAssertExit(idle, 1)
        XCTAssertTrue(idle.stderr.contains("vault locked (credential track paused"), idle.stderr)
        XCTAssertTrue(idle.stderr.contains(Self.hint), idle.stderr)
        XCTAssertTrue(try at(1000, ["vault", "status"]).stdout.contains("session:     idle"))
        XCTAssertExit(try at(1000, ["vault", "unlock", "--passphrase-fd", "3"], fd3: Self.passphrase), 0)
        XCTAssertExit(try at(1001, ["sync", "now"]), 0)
    }
}

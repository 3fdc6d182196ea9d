// HintDataFacesTests: the hints of a locked credential (LockedCredential, through CredentialLookup and SSHError), of
// sync (SyncFailure and the saved SyncReport), of the vault (the release log's key) and of a forward rule's last error
// (the saved RuleState, a runner's line) travel as data (Hint), and each face words them: the CLI types the commands
// and takes the passphrase on --passphrase-fd, the TUI names its V key and no flag, the service says it is never given
// the passphrase, and JSON (`sync status --json`, `forward status --json`) keeps the face-neutral words.
import Foundation
@testable import ShelfCLI
import ShelfCore
import ShelfOperations
import ShelfSSH
@testable import ShelfServices
@testable import ShelfSync
@testable import ShelfTUIApp
import ShelfUI
@testable import ShelfVault
import XCTest

final class HintDataFacesTests: XCTestCase {
    let reference = ReferenceKey.identityPrivateKey(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
    let give =
        "give the vault passphrase on a terminal, or on a file descriptor: --passphrase-fd N "
        + "(e.g. --passphrase-fd 3 3<file)"

    /// A locked key's hint, as the connect flow carries it: the vault's lookup, then the SSH error, then the faces.
    func testALockedCredentialsHintIsWordedByEachFace() throws {
        let (reason, hint) = LockedCredential.explain(
            reference, stored: .whenUnlockedThisDeviceOnly, situation: .noPassphrase, keyringInUse: true)
        XCTAssertEqual(
            hint,
            Hint(
                .command(["vault", "unlock"]),
                .text(" (opens it for every sshelf process until 'sshelf vault lock' or the idle timeout)")
            ).or(.passphrase(.give)))
        let error = SSHError(.credentialUnavailable, "the private key cannot be read: \(reason)", guidance: hint)
        XCTAssertEqual(
            error.hint,
            "sshelf vault unlock (opens it for every sshelf process until 'sshelf vault lock' or the idle timeout), "
                + "or give the vault passphrase", "the face-neutral words, as before")
        let failure = ShelfError(from: error)
        XCTAssertEqual(failure.guidance, hint, "the mapping keeps the data")
        XCTAssertEqual(
            CLIErrorHints.shelfError(from: error).hint,
            "sshelf vault unlock (opens it for every sshelf process until 'sshelf vault lock' or the idle timeout), "
                + "or \(give)")
        let line = TUIErrorLine.text(error)
        XCTAssertEqual(
            line,
            "the private key cannot be read: \(reason); hint: press V to unlock the vault (opens it for every sshelf "
                + "process until 'sshelf vault lock' or the idle timeout), or press V to unlock the vault",
            "the TUI names its key for the command too, not only for the passphrase")
        XCTAssertFalse(line.contains("sshelf vault unlock"), line)
        XCTAssertFalse(line.contains("--passphrase-fd"), line)
    }

    func testEveryLockedCredentialHintIsDataTheCLIWordsAsBefore() {
        let setClass = "sshelf vault set-class \(reference.rawValue) afterFirstUnlockThisDeviceOnly"
        let wrong = LockedCredential.explain(
            reference, stored: .whenUnlocked, situation: .wrongPassphrase(2), keyringInUse: true
        ).hint
        XCTAssertEqual(
            CLIErrorHints.words(wrong),
            "give the right one: typed at the prompt, or as the first line read from --passphrase-fd N "
                + "('sshelf vault unlock' checks a passphrase)")
        let unattended = LockedCredential.explain(
            reference, stored: .whenUnlockedThisDeviceOnly, situation: .unattended(who: "forward up"),
            keyringInUse: false
        ).hint
        XCTAssertEqual(
            CLIErrorHints.words(unattended),
            "let unattended logins read it: \(setClass), then give the passphrase when starting it "
                + "(--passphrase-fd N): this system keeps no unlock between processes (no kernel keyring)")
        XCTAssertEqual(
            TUIErrorLine.words(unattended),
            "let unattended logins read it: \(setClass), then restart 'sshelf forward up', giving it the vault "
                + "passphrase when it starts (press V to unlock this TUI alone): this system keeps no unlock between "
                + "processes (no kernel keyring)")
    }

    /// Sync's locked vault: the failure, the report saved for `sync status` and the TUI, and `--json`.
    func testASyncHintIsWordedByEachFaceAndSurvivesTheSavedReport() throws {
        let failure = SyncSession.failure(VaultError(.locked, "the vault is locked"))
        let expected = Hint(.command(["vault", "unlock"]))
            .or(.command(["sync", "now"]), .text(", and "), .passphrase(.give))
        XCTAssertEqual(failure.guidance, expected)
        var report = SyncReport(state: .synced, at: Date(timeIntervalSince1970: 1_700_000_000))
        report.fail(failure)
        let saved = try ShelfJSON.decoder().decode(SyncReport.self, from: try ShelfJSON.encoder().encode(report))
        XCTAssertEqual(saved.guidance, expected, "the saved report keeps the hint as data")
        XCTAssertEqual(
            CLIErrorHints.words(saved), "sshelf vault unlock, or sshelf sync now, and \(give)")
        var older = saved
        older.guidance = nil
        XCTAssertEqual(
            CLIErrorHints.words(older), "sshelf vault unlock, or sshelf sync now, and give the vault passphrase",
            "a report saved before hints were data keeps its face-neutral words")
        XCTAssertEqual(
            TUIErrorLine.text(failure),
            "vault locked: sync needs this device's keys; hint: press V to unlock the vault, or sshelf sync now, and "
                + "press V to unlock the vault")
        let json = try JSONOutput.encode(SyncCommands.jsonReport(saved))
        XCTAssertTrue(
            json.contains(#""hint" : "sshelf vault unlock, or sshelf sync now, and give the vault passphrase""#),
            json)
        XCTAssertFalse(json.contains("guidance"), "scripts get the words, not the face's data: \(json)")

        let track = CredentialSync.locked
        XCTAssertEqual(CLIErrorHints.shelfError(from: track).hint?.contains(give), true)
        XCTAssertEqual(TUIErrorLine.hint(for: ShelfError(from: track))?.contains("press V"), true)
    }

    /// The release log's locked key (`log verify`): the vault's hint as data, worded by each face.
    func testTheReleaseLogsHintIsWordedByEachFace() throws {
        let fix = Hint(.passphrase(.give)).or(.command(["vault", "unlock"]))
        let error = ReleaseLogError(message: "the release log key is locked", hint: fix.words, guidance: fix)
        XCTAssertThrowsError(try LogCommands.attempt { () throws(ReleaseLogError) in throw error }) { thrown in
            let failure = ShelfError(from: thrown)
            XCTAssertEqual(failure.guidance, fix)
            XCTAssertEqual(CLIErrorHints.shelfError(from: thrown).hint, "\(give), or sshelf vault unlock")
            XCTAssertEqual(TUIErrorLine.hint(for: failure), "press V to unlock the vault", "two ways to one key: once")
        }
    }

    /// A forward rule's last error, saved in the supervisor's state file: `forward status` (CLI), the TUI's forwards
    /// view and `--json` each word its hint; a state saved before hints were data is read and shown as it was.
    func testAForwardRulesLastErrorIsWordedByEachFace() throws {
        let (reason, hint) = LockedCredential.explain(
            reference, stored: .whenUnlockedThisDeviceOnly, situation: .noPassphrase, keyringInUse: true)
        var rule = RuleState(
            ruleID: UUID(), host: "web", spec: "-L 8080:localhost:80", state: .failed)
        let failure = ShelfError(.connection, "the private key cannot be read: \(reason)", guidance: hint)
        (rule.lastError, rule.guidance) = RuleState.reason(failure)
        let state = SupervisorState(pid: 1, startedAt: Date(), updatedAt: Date(), rules: [rule])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let saved = try XCTUnwrap(SupervisorFiles.decode(try encoder.encode(state))).rules[0]
        XCTAssertEqual(saved.guidance, hint, "the state file keeps the hint as data")

        let vaultUnlock =
            "sshelf vault unlock (opens it for every sshelf process until 'sshelf vault lock' or the idle "
        XCTAssertEqual(
            ForwardRunCommands.statusRow(saved)[7],
            "the private key cannot be read: \(reason) (\(vaultUnlock)timeout), or \(give))")
        let live = ForwardLive(saved, runner: .supervisor)
        XCTAssertEqual(
            live.lastError,
            "the private key cannot be read: \(reason) (press V to unlock the vault (opens it for every sshelf process "
                + "until 'sshelf vault lock' or the idle timeout), or press V to unlock the vault)")
        let json = String(decoding: try encoder.encode(state.forScripts), as: UTF8.self)
        XCTAssertTrue(json.contains("(\(vaultUnlock)timeout), or give the vault passphrase)"), json)
        XCTAssertFalse(json.contains("guidance"), "scripts get the words, not the face's data: \(json)")

        // A state written before hints were data: its words in lastError, no guidance.
        let older = #"""
            {"pid": 1, "startedAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z", "rules": [
            {"ruleID": "00000000-0000-0000-0000-000000000001", "host": "web", "spec": "-L 8080:localhost:80",
             "state": "failed", "activeConnections": 0, "totalConnections": 0, "failedConnections": 0,
             "bytesOut": 0, "bytesIn": 0, "lastError": "locked (sshelf vault unlock, or give the vault passphrase)"}]}
            """#
        let old = try XCTUnwrap(SupervisorFiles.decode(Data(older.utf8)), "an old state file is still read").rules[0]
        XCTAssertEqual(old.guidance, nil)
        XCTAssertEqual(
            ForwardRunCommands.statusRow(old)[7], "locked (sshelf vault unlock, or give the vault passphrase)")
        XCTAssertEqual(
            ForwardLive(old, runner: .supervisor).lastError,
            "locked (sshelf vault unlock, or give the vault passphrase)")
    }

    /// A runner's line (what `forward up` prints and the service logs) keeps its hint as data: each prints it in its
    /// own words, the service's naming what can take the passphrase it is never given.
    func testARunnersLineIsWordedByThePrinter() {
        let (_, hint) = LockedCredential.explain(
            reference, stored: .whenUnlockedThisDeviceOnly, situation: .unattended(who: "the sshelf service"),
            keyringInUse: false)
        let line = RunnerLine("web: failed: locked", hint: hint, tail: " (next attempt in 60.0 s)")
        let setClass = "sshelf vault set-class \(reference.rawValue) afterFirstUnlockThisDeviceOnly"
        XCTAssertEqual(
            line.worded(by: CLIErrorHints.words),
            "web: failed: locked (let unattended logins read it: \(setClass), then give the passphrase when "
                + "starting it (--passphrase-fd N): this system keeps no unlock between processes (no kernel keyring)) "
                + "(next attempt in 60.0 s)")
        let service = line.worded { ServiceHintWords.words($0, keyring: false) }
        XCTAssertEqual(
            service,
            "web: failed: locked (let unattended logins read it: \(setClass), then the service is never given the "
                + "vault passphrase: stop it ('sshelf service stop') and run 'sshelf forward up' in its place, giving "
                + "it the passphrase when starting it: this system keeps no unlock between processes (no kernel "
                + "keyring)) (next attempt in 60.0 s)")
        XCTAssertFalse(service.contains("--passphrase-fd"), service)
        XCTAssertEqual(RunnerLine("web: active").worded { ServiceHintWords.words($0) }, "web: active")
    }

    /// An item already in the class unattended logins read (no kernel keyring): the hint does not send the user to
    /// `vault set-class` for the class it has (which would only answer that it is already stored so); it names what
    /// is left — the passphrase at start, which the service words as `forward up` in its place.
    func testAnItemAlreadyInTheUnattendedClassIsNotSentToSetClass() {
        let (reason, hint) = LockedCredential.explain(
            reference, stored: .afterFirstUnlockThisDeviceOnly, situation: .unattended(who: "the sshelf service"),
            keyringInUse: false)
        XCTAssertTrue(reason.hasPrefix("it is stored afterFirstUnlockThisDeviceOnly, which only a process"), reason)
        XCTAssertEqual(
            CLIErrorHints.words(hint),
            "give the passphrase when starting it (--passphrase-fd N): this system keeps no unlock between processes "
                + "(no kernel keyring)")
        let service = ServiceHintWords.words(hint, keyring: false)
        XCTAssertFalse(service.contains("set-class"), service)
        XCTAssertFalse(service.contains("--passphrase-fd"), service)
        XCTAssertTrue(service.contains("run 'sshelf forward up' in its place"), service)
    }

    /// The service's words for a passphrase to give: where no kernel keyring keeps an unlock, `vault unlock` never
    /// reaches the service, so its log names what does (forward up in its place) and never a flag it cannot take.
    func testTheServiceNamesVaultUnlockOnlyWhereAKeyringKeepsIt() {
        for need in [PassphraseNeed.give, .giveTheRightOne] {
            let withKeyring = ServiceHintWords.words(Hint(.passphrase(need)), keyring: true)
            XCTAssertTrue(withKeyring.contains("'sshelf vault unlock'"), withKeyring)
            let without = ServiceHintWords.words(Hint(.passphrase(need)), keyring: false)
            XCTAssertFalse(without.contains("vault unlock"), without)
            XCTAssertFalse(without.contains("--passphrase-fd"), without)
            XCTAssertTrue(without.contains("no kernel keyring"), without)
            XCTAssertTrue(without.contains("run 'sshelf forward up' in its place"), without)
        }
    }
}

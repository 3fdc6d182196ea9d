// Classes keep their promises, through the real binary and a real git remote: an item the user put in a
// …ThisDeviceOnly class (`vault set-class`) stays on this device after `sync enable --credentials --yes` — its class
// unchanged, absent from every remote file and git object, never received by the other device — while an item whose
// class came from the default table moves and travels. Joining a group that syncs credentials into a vault with no
// passphrase takes credentials only once the risk is accepted (or a passphrase is set).
import Foundation
import TestSupport
import XCTest

final class ClassPromiseTests: XCTestCase {
    let keptCanary = "CANARY-kept-on-this-device-5d1c"
    let travelCanary = "CANARY-travels-sealed-93ab"

    func home() -> TempHome {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_VAULT_NO_KEYRING": "1", "SSHELF_TEST_WEAK_KDF": "1"]
        return home
    }

    /// Item key → class, from `vault list --json`.
    func classes(_ home: TempHome, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
        let listed = try home.run("vault", "list", "--json")
        XCTAssertExit(listed, 0, file: file, line: line)
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        var out: [String: String] = [:]
        for item in items { if let key = item["key"] as? String { out[key] = item["accessibility"] as? String } }
        return out
    }

    func code(_ invite: CLIResult) throws -> String {
        try XCTUnwrap(invite.stdout.split(separator: "\n").first { $0.hasPrefix("    ") }).trimmingCharacters(
            in: .whitespaces)
    }

    func testAChosenDeviceOnlyItemStaysOffTheRemoteWhileDefaultItemsTravel() throws {
        let (bare, url) = try makeBareRepository("class-promise")
        let a = home(), b = home()
        XCTAssertExit(try a.run("add", "kept", "--host", "k.example"), 0)
        XCTAssertExit(try a.run("add", "travels", "--host", "t.example"), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "kept", "--secret-fd", "3"], fd3: keptCanary), 0)
        let keptKey = try XCTUnwrap(try classes(a).keys.first)
        XCTAssertExit(try a.run("vault", "set-class", keptKey, "whenUnlockedThisDeviceOnly"), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "travels", "--secret-fd", "3"], fd3: travelCanary), 0)
        let travelKey = try XCTUnwrap(try classes(a).keys.first { $0 != keptKey })

        let enabled = try a.run("sync", "enable", "--git", url, "--credentials", "--yes", "--accept-no-passphrase")
        XCTAssertExit(enabled, 0)
        XCTAssertTrue(enabled.stdout.contains("will move to a syncable class and travel"), enabled.stdout)
        XCTAssertTrue(
            enabled.stdout.contains(
                "password of host 'travels' (\(travelKey)): whenUnlockedThisDeviceOnly -> whenUnlocked"),
            enabled.stdout)
        XCTAssertTrue(
            enabled.stdout.contains(
                "will stay on this device:\n  password of host 'kept' (\(keptKey)): "
                    + "whenUnlockedThisDeviceOnly (your choice)"), enabled.stdout)
        XCTAssertTrue(enabled.stdout.contains("1 moved to syncable classes"), enabled.stdout)
        XCTAssertEqual(
            try classes(a).filter { $0.key.hasPrefix("host.") },
            [keptKey: "whenUnlockedThisDeviceOnly", travelKey: "whenUnlocked"])

        // B joins (its own vault has no passphrase either: accepted), is enrolled, and receives what travels.
        XCTAssertExit(try b.run("sync", "enable", "--git", url), 0)
        let invite = try a.run("sync", "invite")
        XCTAssertExit(invite, 0)
        XCTAssertExit(
            try b.run(["sync", "join", "--code-fd", "3", "--yes", "--accept-no-passphrase"], fd3: try code(invite)), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertExit(try b.run("sync", "now"), 0)
        XCTAssertExit(try a.run("sync", "now"), 0)
        XCTAssertEqual(
            try classes(b).filter { !$0.key.hasPrefix("sync.") && !$0.key.hasPrefix("log.") },
            [travelKey: "whenUnlocked"],
            "B received the default-class item and not the chosen one")
        XCTAssertEqual(try classes(a)[keptKey], "whenUnlockedThisDeviceOnly", "later runs did not move it either")

        // Red line: no form of the kept secret (nor of the sealed one) in any remote file, file name or git object.
        try Canaries.assertAbsent([keptCanary, travelCanary], inGit: bare)
        try Canaries.assertAbsent([keptCanary, travelCanary], inFolder: bare)
    }

    func testJoiningWithCredentialSyncIntoAVaultWithoutAPassphraseAsksFirst() throws {
        let remote = try makeFolder("class-join")
        let a = home(), b = home(), c = home()
        XCTAssertExit(try a.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(try a.run(["vault", "set-password", "db", "--secret-fd", "3"], fd3: travelCanary), 0)
        XCTAssertExit(
            try a.run("sync", "enable", "--folder", remote, "--credentials", "--yes", "--accept-no-passphrase"), 0)

        // B has no passphrase and no terminal: it joins for the config alone, told why and what to do.
        XCTAssertExit(try b.run("sync", "enable", "--folder", remote), 0)
        let joined = try b.run(["sync", "join", "--code-fd", "3"], fd3: try code(try a.run("sync", "invite")))
        XCTAssertExit(joined, 0)
        XCTAssertTrue(joined.stderr.contains("this vault has no passphrase"), joined.stderr)
        XCTAssertTrue(joined.stderr.contains("this device syncs the config only"), joined.stderr)
        XCTAssertTrue(
            joined.stderr.contains(
                "hint: set one first with 'sshelf vault passwd', then run 'sshelf sync enable --credentials'"),
            joined.stderr)
        XCTAssertExit(try a.run("sync", "now"), 0)
        let configOnly = try b.run("sync", "now")
        XCTAssertTrue(configOnly.stdout.contains("credentials not joined on this device"), configOnly.stdout)
        // Following the hint's second way: the risk accepted in words.
        let accepted = try b.run("sync", "enable", "--credentials", "--accept-no-passphrase")
        XCTAssertExit(accepted, 0)
        XCTAssertTrue(accepted.stdout.contains("credential sync on for this device"), accepted.stdout)
        XCTAssertTrue(
            accepted.stdout.contains("first sync: synced: 0 changes received, 0 sent; credentials: 1 received"),
            accepted.stdout)

        // C follows the first way: a passphrase set before joining, and no question about the risk.
        XCTAssertExit(try c.run("vault", "init"), 0)
        XCTAssertExit(try c.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "c pass phrase"), 0)
        XCTAssertExit(
            try c.run(["sync", "enable", "--folder", remote, "--passphrase-fd", "3"], fd3: "c pass phrase"), 0)
        let withPassphrase = try c.run(
            ["sync", "join", "--code-fd", "3", "--passphrase-fd", "3"],
            fd3: try code(try a.run("sync", "invite")) + "\nc pass phrase")
        XCTAssertExit(withPassphrase, 0)
        XCTAssertFalse(withPassphrase.stderr.contains("no passphrase"), withPassphrase.stderr)
        XCTAssertTrue(withPassphrase.stdout.contains("credential sync on for this device"), withPassphrase.stdout)
    }
}

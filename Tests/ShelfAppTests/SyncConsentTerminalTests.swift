// `sync enable --credentials` at a real terminal (tmux): the list of what will travel, the question, the answer —
// `n` changes nothing, `y` moves the listed item and the first run (asking for the vault passphrase of every class it
// reads) sends it.
import Foundation
import TestSupport
import XCTest

final class SyncConsentTerminalTests: XCTestCase {
    func testTheQuestionAtATerminalDecidesAndTheRunAsksForThePassphrase() throws {
        let remote = try syncRemote("cli-consent")
        let home = syncHome()
        XCTAssertExit(try home.run("add", "db", "--host", "db.example"), 0)
        XCTAssertExit(try home.run("vault", "init"), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "vault pass phrase"), 0)
        XCTAssertExit(
            try home.run(
                ["vault", "set-password", "db", "--secret-fd", "3", "--passphrase-fd", "3"],
                fd3: "vault pass phrase\nCANARY-consent-password"), 0)
        XCTAssertExit(
            try home.run(["sync", "enable", "--folder", remote, "--passphrase-fd", "3"], fd3: "vault pass phrase"), 0)

        let declined = try Tmux(home: home, arguments: ["sync", "enable", "--credentials"], columns: 160)
        let asked = try declined.waitFor(
            text: "Move 1 item to a syncable class so they travel to your other devices? [y/N]")
        XCTAssertTrue(asked.contains("password of host 'db' (host."), asked)
        try declined.enter("n")
        XCTAssertEqual(try declined.waitForExit(), 2)
        let refused = try declined.screen()
        XCTAssertTrue(refused.contains("credential sync was not turned on; nothing was changed"), refused)
        let unchanged = try home.run(["sync", "now", "--passphrase-fd", "3"], fd3: "vault pass phrase")
        XCTAssertExit(unchanged, 0)
        XCTAssertFalse(unchanged.stdout.contains("credentials:"), unchanged.stdout)

        let accepted = try Tmux(home: home, arguments: ["sync", "enable", "--credentials"], columns: 160)
        try accepted.waitFor(text: "[y/N]")
        try accepted.enter("y")
        try accepted.waitFor(text: "Vault passphrase:")
        try accepted.enter("vault pass phrase")
        XCTAssertEqual(try accepted.waitForExit(), 0)
        let screen = try accepted.screen()
        XCTAssertTrue(screen.contains("credential sync on for this device"), screen)
        XCTAssertTrue(
            screen.contains(
                "first sync: synced: 0 changes received, 0 sent; credentials: 0 received, 1 in the upload, "
                    + "1 moved to syncable classes"), screen)
    }
}

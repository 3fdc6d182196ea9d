// PassphraseHintFacesTests: a hint that asks for the vault passphrase is said face-neutral (PassphraseNeed),
// and worded by each face — the CLI's words are the ones it printed before (--passphrase-fd N), the TUI's name its
// V key and no flag; each need's words are replaced once, never inside a face's own words.
import Foundation
@testable import ShelfCLI
import ShelfCore
@testable import ShelfTUIApp
import XCTest

final class PassphraseHintFacesTests: XCTestCase {
    let reference = ReferenceKey.identityPrivateKey(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
    var setClass: String { "sshelf vault set-class \(reference.rawValue) afterFirstUnlockThisDeviceOnly" }

    /// LockedCredential's hints as the operations layer says them (the end-to-end wording is LockedCredentialHintTests'
    /// part, through the built binary and a real sshd).
    func hints() -> [String] {
        [
            "sshelf vault unlock (opens it for every sshelf process until 'sshelf vault lock' or "
                + "the idle timeout), or "
                + PassphraseNeed.give.words,
            PassphraseNeed.give.words,
            "\(PassphraseNeed.giveTheRightOne.words) ('sshelf vault unlock' checks a passphrase)",
            "let unattended logins read it: \(setClass), then \(PassphraseNeed.giveAtStart.words): this "
                + "system keeps no "
                + "unlock between processes (no kernel keyring)",
        ]
    }

    func testTheCLISaysWhatItSaidBefore() {
        let give =
            "give the vault passphrase on a terminal, or on a file descriptor: --passphrase-fd N "
            + "(e.g. --passphrase-fd 3 3<file)"
        XCTAssertEqual(
            hints().map(CLIErrorHints.hint),
            [
                "sshelf vault unlock (opens it for every sshelf process until 'sshelf vault lock' or "
                    + "the idle timeout), or "
                    + give,
                give,
                "give the right one: typed at the prompt, or as the first line read from --passphrase-fd N "
                    + "('sshelf vault unlock' checks a passphrase)",
                "let unattended logins read it: \(setClass), then give the passphrase when starting it "
                    + "(--passphrase-fd N): "
                    + "this system keeps no unlock between processes (no kernel keyring)",
            ])
        let failure = CLIErrorHints.shelfError(from: ShelfError(.failure, "locked", hint: hints()[1]))
        XCTAssertEqual(failure.hint, give, "the CLI's error output words it")
    }

    func testTheTUINamesItsVKeyAndNoFlag() {
        for hint in hints() {
            let line = TUIErrorLine.text(ShelfError(.failure, "the key cannot be read", hint: hint))
            XCTAssertTrue(line.contains("press V"), line)
            XCTAssertFalse(line.contains("--passphrase-fd"), line)
            XCTAssertFalse(line.contains("give the vault passphrase"), "no need left unworded: \(line)")
        }
    }

    func testEachNeedIsWordedOnce() {
        let hint = "\(PassphraseNeed.giveAtStart.words); or \(PassphraseNeed.give.words)"
        let worded = PassphraseNeed.worded(hint) { "<\($0)>" }
        XCTAssertEqual(worded, "<giveAtStart>; or <give>")
        XCTAssertEqual(
            CLIErrorHints.hint(PassphraseNeed.give.words).components(separatedBy: "--passphrase-fd N").count, 2)
    }
}

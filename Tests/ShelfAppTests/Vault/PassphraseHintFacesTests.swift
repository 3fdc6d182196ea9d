// PassphraseHintFacesTests: a hint that asks for the vault passphrase says so as data (Hint.Part.passphrase), and
// each face words it — the CLI's words are the ones it printed before (--passphrase-fd N), the TUI's name its V key
// and no flag. A hint given as words is shown as it is: no face replaces phrases inside another's text (a phrase that
// only starts like a need's words is left alone).
import Foundation
@testable import ShelfCLI
import ShelfCore
@testable import ShelfTUIApp
import XCTest

final class PassphraseHintFacesTests: XCTestCase {
    let reference = ReferenceKey.identityPrivateKey(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
    var setClass: Hint.Part { .command(["vault", "set-class", reference.rawValue, "afterFirstUnlockThisDeviceOnly"]) }

    /// LockedCredential's hints as the operations layer gives them (the end-to-end wording is
    /// LockedCredentialHintTests' part, through the built binary and a real sshd).
    func hints() -> [Hint] {
        [
            Hint(
                .command(["vault", "unlock"]),
                .text(" (opens it for every sshelf process until 'sshelf vault lock' or the idle timeout)")
            ).or(.passphrase(.give)),
            Hint(.passphrase(.give)),
            Hint(.passphrase(.giveTheRightOne), .text(" ('sshelf vault unlock' checks a passphrase)")),
            Hint(
                .text("let unattended logins read it: "), setClass, .text(", then "), .passphrase(.giveAtStart),
                .text(": this system keeps no unlock between processes (no kernel keyring)")),
        ]
    }

    func testTheCLISaysWhatItSaidBefore() {
        let give =
            "give the vault passphrase on a terminal, or on a file descriptor: --passphrase-fd N "
            + "(e.g. --passphrase-fd 3 3<file)"
        let setClass = "sshelf vault set-class \(reference.rawValue) afterFirstUnlockThisDeviceOnly"
        XCTAssertEqual(
            hints().map(CLIErrorHints.words),
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
        let failure = CLIErrorHints.shelfError(from: ShelfError(.failure, "locked", guidance: hints()[1]))
        XCTAssertEqual(failure.hint, give, "the CLI's error output words it")
    }

    func testTheTUINamesItsVKeyAndNoFlag() {
        for hint in hints() {
            let line = TUIErrorLine.text(ShelfError(.failure, "the key cannot be read", guidance: hint))
            XCTAssertTrue(line.contains("press V"), line)
            XCTAssertFalse(line.contains("--passphrase-fd"), line)
            XCTAssertFalse(line.contains("give the vault passphrase"), "no need left unworded: \(line)")
        }
    }

    /// A locked vault's password (Authenticator) asks for the passphrase as data too: before, its words began with a
    /// need's words and the faces' replacement cut into the sentence ("… 3<file) where sshelf asks for it").
    func testAHintGivenAsWordsIsShownAsItIs() {
        let words = "give the vault passphrase where sshelf asks for it"
        XCTAssertEqual(CLIErrorHints.shelfError(from: ShelfError(.failure, "locked", hint: words)).hint, words)
        XCTAssertEqual(TUIErrorLine.text(ShelfError(.failure, "locked", hint: words)), "locked; hint: \(words)")
    }
}

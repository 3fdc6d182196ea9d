// HintFacesTests: one hint as data (Hint), worded by each face — the CLI types the command and asks for the passphrase
// on --passphrase-fd, the TUI names its V key and no flag, each way said once — through each face's error line
// (CLIErrorHints, TUIErrorLine), the run pane's refusal (TUIFleet) and the form's failure (StoreWorker), which
// showed the operations' words before. A hint given as words is shown as it is.
import Foundation
@testable import ShelfCLI
import ShelfCore
import ShelfOperations
@testable import ShelfTUIApp
import ShelfUI
import XCTest

final class HintFacesTests: XCTestCase {
    /// What FleetLog says when the release log's key is locked.
    let locked = Hint(.command(["vault", "unlock"])).or(.passphrase(.give))

    func testTheSameHintInEachFacesWords() {
        XCTAssertEqual(locked.words, "sshelf vault unlock, or give the vault passphrase", "the face-neutral words")
        XCTAssertEqual(
            CLIErrorHints.words(locked),
            "sshelf vault unlock, or give the vault passphrase on a terminal, or on a file descriptor: "
                + "--passphrase-fd N (e.g. --passphrase-fd 3 3<file)")
        XCTAssertEqual(TUIErrorLine.words(locked), "press V to unlock the vault", "two ways to one key: said once")
        let file = Hint(.text("see "), .file("/tmp/a b.log"), .text(", then "), .command(["vault", "status"]))
        XCTAssertEqual(CLIErrorHints.words(file), "see '/tmp/a b.log', then sshelf vault status")
        XCTAssertEqual(TUIErrorLine.words(file), "see '/tmp/a b.log', then sshelf vault status")
    }

    func testEachFacesErrorLineWordsAFailuresHint() {
        let failure = ShelfError(.failure, "a run is logged in the release log, whose key is locked", guidance: locked)
        XCTAssertEqual(failure.hint, locked.words)
        XCTAssertEqual(CLIErrorHints.shelfError(from: failure).hint, CLIErrorHints.words(locked))
        XCTAssertEqual(
            TUIErrorLine.text(failure),
            "a run is logged in the release log, whose key is locked; hint: press V to unlock the vault")
        let words = ShelfError(.failure, "locked", hint: "sshelf vault unlock, or \(PassphraseNeed.give.words)")
        XCTAssertEqual(
            TUIErrorLine.text(words), "locked; hint: sshelf vault unlock, or give the vault passphrase",
            "words are not re-worded: a hint a face words is given as data")
    }

    func testTheRunPaneAndTheFormsUseTheTUIsWords() {
        let failure = ShelfError(.failure, "a run is logged in the release log, whose key is locked", guidance: locked)
        XCTAssertEqual(
            TUIFleet.notRun(failure),
            "not run: a run is logged in the release log, whose key is locked (press V to unlock the vault)")
        XCTAssertEqual(
            StoreWorker.failure(failure).message,
            "a run is logged in the release log, whose key is locked; hint: press V to unlock the vault")
        let flagged = ShelfError(.usage, "group 'eu' holds 1 host", hint: "pass --recursive to remove them too")
        XCTAssertEqual(
            StoreWorker.failure(flagged).message, "group 'eu' holds 1 host",
            "a hint in words only may name the CLI's flags: the form leaves it out")
    }
}

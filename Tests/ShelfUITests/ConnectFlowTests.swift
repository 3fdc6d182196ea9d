// Connect flows in the reducer: a changed host key (or one of another type) is accepted only by typing the host's
// name, Esc keeps the pin; Esc and Ctrl-C cancel an attempt under way (Ctrl-C never quits then, nor in a dialog); a
// second Enter never starts another connect (nor one
// to a host selected since); the vault's own passphrase dialog is masked.
import Foundation
import ShelfCore
import XCTest

@testable import ShelfUI

final class ConnectFlowTests: XCTestCase {
    private func changedKeyState() -> UIState {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 24, columns: 80)
        _ = Reducer.reduce(&state, .prompt(.keyMismatch(SnapshotTests.changedKey)))
        return state
    }

    func testAChangedKeyIsReplacedOnlyByTypingTheHostsName() {
        var state = changedKeyState()
        // y and n are text here: no reflex answers.
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [])
        XCTAssertEqual(Fixtures.press(&state, .enter), [], "'y' is not the host's name")
        guard case .prompt(.keyMismatch(let mistyped)) = state.mode else { return XCTFail("the dialog closed") }
        XCTAssertTrue(mistyped.mistyped)
        XCTAssertTrue(Screen.render(state).text.contains("That is not 'web-eu-1'"), Screen.render(state).text)
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "WEB-EU-1")
        XCTAssertEqual(Fixtures.press(&state, .enter), [], "the name exactly, case included")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "web-eu-1")
        XCTAssertEqual(Fixtures.press(&state, .enter), [.answerPrompt(.replaceChangedKey)])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertEqual(
            state.connecting, ConnectAttempt(hostID: Fixtures.id(101), name: "web-eu-1"),
            "the connect starts again once the pin is replaced: Esc can cancel it")
    }

    func testEscapeInTheChangedKeyDialogKeepsThePin() {
        var state = changedKeyState()
        Fixtures.type(&state, "web-eu-1")
        XCTAssertEqual(Fixtures.press(&state, .escape), [.answerPrompt(.cancelled)])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertNil(state.connecting)
        XCTAssertEqual(
            state.notice, Notice("not connected: the host key of web-eu-1 changed; its pin was kept", isError: true))
    }

    func testTheChangedKeyDialogShowsBothWholeFingerprintsAndWhereThePinCameFrom() {
        for (rows, columns) in SnapshotTests.sizes {
            var state = changedKeyState()
            _ = Reducer.reduce(&state, .resize(rows: rows, columns: columns))
            let text = Screen.render(state).text
            XCTAssertTrue(text.contains("HOST KEY CHANGED"), text)
            XCTAssertTrue(text.contains("ssh-ed25519 SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"), text)
            XCTAssertTrue(text.contains("ssh-ed25519 SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU"), text)
            XCTAssertTrue(text.contains("known, from the host's pinned key:"), text)
            XCTAssertTrue(text.contains("Nothing was sent"), text)
        }
    }

    func testAKeyOfAnotherTypeGetsTheSameDialogWordedAsSuch() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(
            &state,
            .prompt(
                .keyMismatch(
                    KeyMismatch(
                        kind: .otherType, host: "h", address: "[h]:2222", offered: "ecdsa-sha2-nistp256 SHA256:y",
                        known: ["ssh-ed25519"], source: "~/.ssh/known_hosts"))))
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("Host key of another type"), text)
        XCTAssertTrue(text.contains("h ([h]:2222) now offers a key of a type it is not known under"), text)
        XCTAssertTrue(text.contains("known only as, from ~/.ssh/known_hosts:"), text)
        XCTAssertTrue(text.contains("ecdsa-sha2-nistp256 SHA256:y"), text)
        XCTAssertEqual(Fixtures.press(&state, .char("n")), [], "n is text")
        Fixtures.press(&state, .backspace)
        Fixtures.type(&state, "h")
        XCTAssertEqual(Fixtures.press(&state, .enter), [.answerPrompt(.trustHostKey(true))])

        _ = Reducer.reduce(
            &state,
            .prompt(
                .keyMismatch(
                    KeyMismatch(
                        kind: .otherType, host: "h", address: "h", offered: "x", known: ["y"], source: "z"))))
        XCTAssertEqual(Fixtures.press(&state, .escape), [.answerPrompt(.trustHostKey(false))])
        XCTAssertEqual(state.notice, Notice("not connected: the host key was not trusted", isError: true))
    }

    func testEnterTwiceNeverStartsASecondConnect() {
        var state = Fixtures.state(Fixtures.threeLevels())
        let first = state.selectedHost!
        XCTAssertEqual(Fixtures.press(&state, .enter), [.connect(first.id)])
        XCTAssertEqual(state.connecting, ConnectAttempt(hostID: first.id, name: first.name))
        // The selection moves meanwhile; Enter again starts nothing, to this host or the first.
        Fixtures.press(&state, .char("j"))
        XCTAssertNotEqual(state.selectedHost?.id, first.id)
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        XCTAssertEqual(
            state.notice, Notice("already connecting to \(first.name): wait, or press Esc to cancel", isError: true))
        _ = Reducer.reduce(&state, .connectFinished(Notice("not connected: cancelled", isError: true)))
        XCTAssertNil(state.connecting)
        XCTAssertEqual(Fixtures.press(&state, .enter), [.connect(state.selectedHost!.id)])
    }

    /// The case: a query typed into a big list, Enter to keep the results, Enter to connect — while the
    /// search had not finished. The host connected to is the one shown selected after the first Enter, never a
    /// row that ranking moved there afterwards.
    func testEnterTwiceAfterASearchConnectsToTheHostSelectedAtTheFirstEnter() {
        var state = Fixtures.state(Fixtures.longList(SearchState.immediateLimit + 500))
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "host-0042")
        XCTAssertTrue(state.search.isRunning, "a big list filters between key polls")
        Fixtures.press(&state, .enter)
        let selected = state.selectedHost
        XCTAssertNotNil(selected)
        // Whatever the run loop does before the next key, the selection stays on that host.
        while state.search.isRunning { _ = Reducer.reduce(&state, .filterStep) }
        _ = Reducer.reduce(&state, .tick(Fixtures.now))
        XCTAssertEqual(Fixtures.press(&state, .enter), [.connect(selected!.id)])
    }

    func testEscapeCancelsTheConnectUnderWayElseClearsTheSearch() {
        var state = Fixtures.state(Fixtures.threeLevels())
        XCTAssertEqual(Fixtures.press(&state, .escape), [])
        XCTAssertEqual(state.notice?.isError, true, "nothing to cancel: the key says why")
        Fixtures.press(&state, .enter)
        XCTAssertEqual(Fixtures.press(&state, .escape), [.cancelConnect])
        XCTAssertTrue(state.notice?.text.hasPrefix("cancelling the connect to") == true)
        // A login that succeeds anyway still clears the attempt.
        _ = Reducer.reduce(&state, .loggedIn(hostID: state.selectedHost!.id))
        XCTAssertNil(state.connecting)
    }

    func testCtrlCCancelsTheConnectUnderWayAndNeverQuits() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .enter)
        let attempt = state.connecting
        XCTAssertNotNil(attempt)
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [.cancelConnect])
        XCTAssertFalse(state.quitting)
        XCTAssertEqual(state.notice?.text, "cancelling the connect to \(attempt!.name)...")
        // The same from the identity list and while typing a search, where Ctrl-C otherwise quits.
        Fixtures.press(&state, .char("I"))
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [.cancelConnect])
        Fixtures.press(&state, .escape, .char("/"))
        XCTAssertTrue(state.search.typing)
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [.cancelConnect])
        XCTAssertFalse(state.quitting)
        // Once the attempt has ended, Ctrl-C quits again.
        _ = Reducer.reduce(&state, .connectFinished(Notice("not connected: cancelled", isError: true)))
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [.quit])
        XCTAssertTrue(state.quitting)
    }

    func testCtrlCClosesADialogInsteadOfQuitting() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("a"))
        guard case .form = state.mode else { return XCTFail("no form: \(state.mode)") }
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertEqual(state.notice?.text, "cancelled; nothing saved")
        Fixtures.press(&state, .char("d"))
        guard case .confirm = state.mode else { return XCTFail("no confirmation: \(state.mode)") }
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [], "no: nothing deleted")
        XCTAssertEqual(state.mode, .browse)
        // A connect question under a connect: Ctrl-C answers "cancel", which ends the attempt.
        Fixtures.press(&state, .enter)
        _ = Reducer.reduce(&state, .prompt(.vaultPassphrase(prompt: "Vault passphrase:", input: "")))
        XCTAssertEqual(Fixtures.press(&state, .ctrl("c")), [.answerPrompt(.cancelled)])
        XCTAssertFalse(state.quitting)
    }

    func testTheTitleBarSaysAConnectIsUnderWayAndHowToCancelIt() {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 24, columns: 80)
        Fixtures.press(&state, .enter, .char("j"))
        XCTAssertTrue(
            Screen.render(state).line(0).contains("connecting to bastion-eu... (Esc cancels)"),
            Screen.render(state).line(0))
    }

    func testTheVaultPassphraseDialogIsMasked() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(&state, .prompt(.vaultPassphrase(prompt: "Vault passphrase:", input: "")))
        Fixtures.type(&state, "yes no")
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("Unlock the vault"), text)
        XCTAssertTrue(text.contains("******"), text)
        XCTAssertFalse(text.contains("yes no"), text)
        XCTAssertEqual(Fixtures.press(&state, .enter), [.answerPrompt(.secret("yes no", remember: false))])
        _ = Reducer.reduce(&state, .prompt(.vaultPassphrase(prompt: "Vault passphrase:", input: "")))
        XCTAssertEqual(Fixtures.press(&state, .escape), [.answerPrompt(.cancelled)])
        XCTAssertEqual(state.notice, Notice("the vault stays locked"))
    }
}

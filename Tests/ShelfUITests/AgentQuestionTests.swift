// AgentQuestionTests: the sshelf agent's "allow this signature?" as a TUI dialog — it opens over a form and gives
// the form back, y and n answer it, a second question is refused while one is open, and it closes by itself when
// the agent stops waiting; `c` asks for copy-id only on a host with an identity.
import Foundation
import ShelfCore
import XCTest

@testable import ShelfUI

final class AgentQuestionTests: XCTestCase {
    let question = AgentQuestion(id: UUID(), text: "sshelf agent: allow ssh (pid 7) to sign with key 'laptop'?")

    func testAQuestionOverAFormIsAnsweredAndTheFormComesBack() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("a"))
        Fixtures.type(&state, "half-typed")
        guard case .form(let form) = state.mode else { return XCTFail("no form") }
        XCTAssertEqual(Reducer.reduce(&state, .agentQuestion(question)), [])
        guard case .confirm(let dialog) = state.mode else { return XCTFail("no dialog") }
        XCTAssertEqual(dialog.agentQuestion, question.id)
        XCTAssertTrue(dialog.lines.contains(question.text))
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [.answerAgent(question.id, allow: true)])
        XCTAssertEqual(state.mode, .form(form), "the form and what was typed are back")
        XCTAssertEqual(state.notice?.text, "allowed the signature")
    }

    func testNoOrEscapeRefuses() {
        for key in [Key.char("n"), .escape] {
            var state = Fixtures.state(Fixtures.threeLevels())
            _ = Reducer.reduce(&state, .agentQuestion(question))
            XCTAssertEqual(Fixtures.press(&state, key), [.answerAgent(question.id, allow: false)])
            XCTAssertEqual(state.mode, .browse)
        }
    }

    func testASecondQuestionIsRefusedWhileOneIsOpen() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(&state, .agentQuestion(question))
        let second = AgentQuestion(id: UUID(), text: "another")
        XCTAssertEqual(Reducer.reduce(&state, .agentQuestion(second)), [.answerAgent(second.id, allow: false)])
        guard case .confirm(let dialog) = state.mode else { return XCTFail("no dialog") }
        XCTAssertEqual(dialog.agentQuestion, question.id, "the first one stays")
    }

    func testTheDialogClosesWhenTheAgentStopsWaiting() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(&state, .agentQuestion(question))
        XCTAssertEqual(
            Reducer.reduce(&state, .agentQuestionEnded(UUID())), [], "another question's end changes nothing")
        guard case .confirm = state.mode else { return XCTFail("closed by someone else's end") }
        XCTAssertEqual(Reducer.reduce(&state, .agentQuestionEnded(question.id)), [])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertEqual(state.notice?.isError, true)
    }

    func testCopyIDNeedsAHostWithAnIdentity() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("g"))
        XCTAssertEqual(state.selectedHost?.name, "bastion-eu")
        XCTAssertEqual(Fixtures.press(&state, .char("c")), [], "bastion-eu has no identity")
        XCTAssertEqual(state.notice?.text.contains("the host has no identity"), true)
        for _ in 0..<20 where state.selectedHost?.name != "web-eu-1" { Fixtures.press(&state, .char("j")) }
        XCTAssertEqual(Fixtures.press(&state, .char("c")), [.copyID(Fixtures.id(101), identity: nil)])
    }

    func testCopyIDFromTheIdentityListAsksWhichHost() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("I"))
        XCTAssertEqual(Fixtures.press(&state, .char("c")), [])
        guard case .form(let asked) = state.mode else { return XCTFail("no host question: \(state.mode)") }
        XCTAssertEqual(asked.kind, .copyIdentity(identityID: Fixtures.id(50)))
        for ch in "nosuch" { Fixtures.press(&state, .char(ch)) }
        XCTAssertEqual(Fixtures.press(&state, .enter), [], "an unknown name starts nothing")
        guard case .form(let refused) = state.mode else { return XCTFail("the form closed") }
        XCTAssertEqual(refused.errors["host"], "no host is named 'nosuch'")
        Fixtures.press(&state, .ctrl("u"))
        for ch in "db-us" { Fixtures.press(&state, .char(ch)) }
        XCTAssertEqual(
            Fixtures.press(&state, .enter), [.copyID(Fixtures.id(103), identity: Fixtures.id(50))],
            "db-us has no identity of its own: the one chosen in the list is installed")
        XCTAssertEqual(state.mode, .browse, "the login runs in the host list, where Esc cancels it")
        XCTAssertEqual(state.connecting?.hostID, Fixtures.id(103))
        XCTAssertEqual(Fixtures.press(&state, .escape), [.cancelConnect])
    }

    func testCopyIDFromTheIdentityListTakesNameAtIDWhenNamesAreShared() {
        let catalog = Fixtures.sharedNames()
        var form = Forms.copyIdentity(Identity(id: Fixtures.id(50), name: "laptop"))
        form.fields[0].value = "LAB"
        guard case .failure(let errors) = Forms.submitCopyIdentity(form, catalog: catalog) else {
            return XCTFail("a shared name picked a host")
        }
        XCTAssertEqual(errors["host"], "2 hosts are named 'LAB': type one of lab@3fa2c1d0, Lab@9b1e22aa")
        form.fields[0].value = "lab"
        XCTAssertEqual(
            try? Forms.submitCopyIdentity(form, catalog: catalog).get().hostname, "lab.site-a.example",
            "an exact name wins, as in the CLI")
        form.fields[0].value = "LAB@9b1e"
        XCTAssertEqual(try? Forms.submitCopyIdentity(form, catalog: catalog).get().hostname, "lab.site-b.example")
    }
}

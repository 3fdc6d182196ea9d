// IdentityListTests: the identity list (`I`) — move, edit through the identity form, delete with a confirmation
// that names the hosts using the identity — and the connect dialogs' keys being in the keymap table.
import Foundation
import ShelfCore
import XCTest
@testable import ShelfUI

final class IdentityListTests: XCTestCase {
    static func catalog() -> Catalog {
        let base = Fixtures.threeLevels()
        let vaulted = Identity(
            id: Fixtures.id(51), name: "yubikey", keyType: .ecdsa,
            privateKeyRef: .identityPrivateKey(Fixtures.id(51)))
        return Catalog(
            hosts: (0..<base.count).map(base.host(at:)), groups: Array(base.tree.groups.values),
            identities: base.identities + [vaulted],
            rules: base.rulesByHost.values.flatMap { $0 })
    }

    func testIOpensTheListAndMovesThroughIt() {
        var state = Fixtures.state(Self.catalog())
        Fixtures.press(&state, .char("I"))
        XCTAssertEqual(state.mode, .identities)
        XCTAssertEqual(state.selectedIdentity?.name, "laptop")
        Fixtures.press(&state, .char("j"))
        XCTAssertEqual(state.selectedIdentity?.name, "yubikey")
        Fixtures.press(&state, .down)
        XCTAssertEqual(state.selectedIdentity?.name, "yubikey", "the cursor stays on the last row")
        Fixtures.press(&state, .up)
        XCTAssertEqual(state.selectedIdentity?.name, "laptop")
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.mode, .browse)
    }

    func testEditSavesThroughAnEffectAndReturnsToTheList() throws {
        var state = Fixtures.state(Self.catalog())
        Fixtures.press(&state, .char("I"), .enter)
        guard case .form(let form) = state.mode else { return XCTFail("no form: \(state.mode)") }
        XCTAssertEqual(form.title, "Edit identity laptop")
        XCTAssertEqual(form.value("keyFile"), "~/.ssh/id_ed25519")
        // A name another identity has is refused inline, on the name field.
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "yubikey")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        guard case .form(let refused) = state.mode else { return XCTFail("form closed") }
        XCTAssertEqual(refused.errors["name"], "an identity named 'yubikey' already exists")
        XCTAssertEqual(refused.focus, 0)
        // An empty name gets Validation's message.
        Fixtures.press(&state, .ctrl("u"), .enter)
        guard case .form(let empty) = state.mode else { return XCTFail("form closed") }
        XCTAssertNotNil(empty.errors["name"])
        Fixtures.type(&state, "work")
        let effects = Fixtures.press(&state, .enter)
        guard case .saveIdentity(let saved) = effects.first else { return XCTFail("no save: \(effects)") }
        XCTAssertEqual(saved.id, Fixtures.id(50), "the same identity, renamed")
        XCTAssertEqual(saved.name, "work")
        XCTAssertEqual(saved.keyFile, "~/.ssh/id_ed25519")
        XCTAssertEqual(Reducer.reduce(&state, .operationFinished(.success("saved identity work"))), [.load])
        XCTAssertEqual(state.mode, .identities, "back in the list after the save")
    }

    func testTheFormSetsTheAgentsConfirmAndLifetime() throws {
        var state = Fixtures.state(Self.catalog())
        Fixtures.press(&state, .char("I"), .enter)
        guard case .form(let form) = state.mode else { return XCTFail("no form: \(state.mode)") }
        XCTAssertEqual(form.value("confirmEachUse"), "no")
        XCTAssertEqual(form.value("agentLifetime"), "", "no limit shows as empty")
        // Name, key type, key file, public key: the fifth field is the confirm toggle, the sixth the lifetime.
        Fixtures.press(&state, .tab, .tab, .tab, .tab, .char(" "), .tab)
        Fixtures.type(&state, "soon")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        guard case .form(let refused) = state.mode else { return XCTFail("form closed") }
        XCTAssertEqual(refused.errors["agentLifetime"], "lifetime 'soon' is not a number of seconds")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "-5")
        Fixtures.press(&state, .enter)
        guard case .form(let negative) = state.mode else { return XCTFail("form closed") }
        XCTAssertEqual(negative.errors["agentLifetime"], "agent lifetime must be 0 (no limit) to 31622400 seconds")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "3600")
        let effects = Fixtures.press(&state, .enter)
        guard case .saveIdentity(let saved) = effects.first else { return XCTFail("no save: \(effects)") }
        XCTAssertTrue(saved.confirmEachUse)
        XCTAssertEqual(saved.agentLifetime, 3600)
        XCTAssertEqual(saved.name, "laptop", "nothing else changed")

        // Editing it again shows what was set; clearing both turns them off.
        var catalog = Self.catalog()
        catalog.identities = catalog.identities.map { $0.id == saved.id ? saved : $0 }
        var again = Fixtures.state(catalog)
        Fixtures.press(&again, .char("I"), .enter)
        guard case .form(let shown) = again.mode else { return XCTFail("no form") }
        XCTAssertEqual(shown.value("confirmEachUse"), "yes")
        XCTAssertEqual(shown.value("agentLifetime"), "3600")
        Fixtures.press(&again, .tab, .tab, .tab, .tab, .char(" "), .tab, .ctrl("u"))
        guard case .saveIdentity(let cleared) = Fixtures.press(&again, .enter).first else { return XCTFail("no save") }
        XCTAssertFalse(cleared.confirmEachUse)
        XCTAssertEqual(cleared.agentLifetime, 0)
    }

    func testCancelAndAddFromTheListComeBackToIt() {
        var state = Fixtures.state(Self.catalog())
        Fixtures.press(&state, .char("I"), .char("e"), .escape)
        XCTAssertEqual(state.mode, .identities)
        Fixtures.press(&state, .char("a"))
        guard case .form(let form) = state.mode else { return XCTFail("no form") }
        XCTAssertEqual(form.title, "Add identity")
        Fixtures.press(&state, .escape)
        XCTAssertEqual(state.mode, .identities)
        Fixtures.press(&state, .char("q"))
        XCTAssertEqual(state.mode, .browse)
        XCTAssertFalse(state.quitting, "q closes the list, it does not quit")
    }

    func testDeleteNamesTheHostsUsingItAndClearsTheirIdentity() {
        var state = Fixtures.state(Self.catalog())
        Fixtures.press(&state, .char("I"), .char("d"))
        guard case .confirm(let confirmation) = state.mode else { return XCTFail("no confirmation: \(state.mode)") }
        XCTAssertEqual(confirmation.title, "Delete identity laptop?")
        XCTAssertEqual(
            confirmation.lines,
            [
                "laptop (ed25519)",
                "Used by 1 host: web-eu-1.",
                "Their identity is cleared; nothing else about them changes.",
                "The key file ~/.ssh/id_ed25519 is not touched.",
            ])
        XCTAssertEqual(confirmation.effect, .deleteIdentity(Fixtures.id(50)))
        XCTAssertEqual(Fixtures.press(&state, .char("n")), [])
        XCTAssertEqual(state.mode, .identities, "n keeps it and stays in the list")
        Fixtures.press(&state, .char("j"), .char("d"))
        guard case .confirm(let vaulted) = state.mode else { return XCTFail("no confirmation") }
        XCTAssertEqual(vaulted.lines[1], "No host uses it.")
        XCTAssertEqual(
            vaulted.lines[2],
            "Its private key stays in the vault ('sshelf vault rm "
                + "identity.00000000-0000-0000-0000-000000000051.privkey' removes it).")
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [.deleteIdentity(Fixtures.id(51))])
        XCTAssertEqual(state.mode, .identities)
    }

    func testEditAndDeleteSayWhyWhenThereIsNoIdentity() {
        var state = Fixtures.state(Fixtures.longList(3))
        Fixtures.press(&state, .char("I"), .char("e"))
        XCTAssertEqual(state.mode, .identities)
        XCTAssertEqual(state.notice, Notice("edit the selected identity: no identity selected", isError: true))
        Fixtures.press(&state, .char("d"))
        XCTAssertEqual(state.mode, .identities)
        XCTAssertEqual(state.notice?.isError, true)
    }

    func testReloadKeepsTheCursorOnARealRow() {
        var state = Fixtures.state(Self.catalog())
        Fixtures.press(&state, .char("I"), .char("j"))
        XCTAssertEqual(state.identityCursor, 1)
        // Renamed so it sorts first: the cursor follows it.
        var renamed = Self.catalog()
        renamed.identities =
            [Identity(id: Fixtures.id(51), name: "a-yubikey", keyType: .ecdsa)] + [renamed.identities[0]]
        _ = Reducer.reduce(&state, .loaded(renamed))
        XCTAssertEqual(state.identityCursor, 0)
        XCTAssertEqual(state.selectedIdentity?.name, "a-yubikey")
        // Deleted: the cursor stays on a real row.
        _ = Reducer.reduce(&state, .loaded(Fixtures.threeLevels()))
        XCTAssertEqual(state.identityCursor, 0)
        XCTAssertEqual(state.selectedIdentity?.name, "laptop")
        _ = Reducer.reduce(&state, .loaded(Catalog()))
        XCTAssertNil(state.selectedIdentity)
    }

    func testConnectDialogKeysAreInTheTableAndDriveTheDialogs() {
        let keys = Keymap.bindings(in: .prompt)
        XCTAssertEqual(
            Set(keys.map(\.command)),
            [.promptTrust, .promptRefuse, .promptCancel, .promptSend, .promptErase, .promptClear, .promptRemember])
        XCTAssertTrue(Keymap.markdown().contains("### Connect dialogs"))
        XCTAssertTrue(HelpView.lines(Fixtures.state(Self.catalog())).contains { $0.0 == "Connect dialogs" })
        // In a text dialog y and n are text, not answers.
        var state = Fixtures.state(Self.catalog())
        _ = Reducer.reduce(
            &state,
            .prompt(
                .secret(
                    host: "db", prompt: "Password:", echo: false, input: "",
                    remember: false, offerRemember: true)))
        Fixtures.type(&state, "yn")
        Fixtures.press(&state, .tab)
        XCTAssertEqual(Fixtures.press(&state, .enter), [.answerPrompt(.secret("yn", remember: true))])
    }
}

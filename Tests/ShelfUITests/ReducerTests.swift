// Reducer: navigation, groups, search (incremental, deferred for big lists, scoped), forms with validation, delete
// plans, connect and quit effects — all on the pure state, no terminal.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class ReducerTests: XCTestCase {
    func testVimAndArrowKeysMoveTheSameWay() {
        var a = Fixtures.state(Fixtures.threeLevels())
        var b = a
        Fixtures.press(&a, .char("j"), .char("j"), .char("k"))
        Fixtures.press(&b, .down, .down, .up)
        XCTAssertEqual(a.hostCursor, 1)
        XCTAssertEqual(b.hostCursor, 1)
        Fixtures.press(&a, .char("G"))
        XCTAssertEqual(a.hostCursor, 7)
        Fixtures.press(&a, .char("g"))
        XCTAssertEqual(a.hostCursor, 0)
    }

    func testGroupSelectionScopesTheHostListIncludingSubgroups() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .tab)  // hosts -> forwards? no rules on first host, so groups
        XCTAssertEqual(state.focus, .groups)
        Fixtures.press(&state, .char("j"))  // prod
        XCTAssertEqual(state.groupRows[state.groupCursor].name, "prod")
        XCTAssertEqual(state.visible.count, 5)
        XCTAssertEqual(
            Set(state.visible.map { state.catalog.host(at: Int($0)).name }),
            ["bastion-eu", "web-eu-1", "web-eu-2", "db-us", "cache-us"])
        Fixtures.press(&state, .char("h"))  // close prod
        XCTAssertEqual(state.groupRows.map(\.name), ["All hosts", "prod", "staging"])
        Fixtures.press(&state, .char(" "))  // open again
        XCTAssertEqual(state.groupRows.map(\.name), ["All hosts", "prod", "eu", "web", "us", "staging"])
        XCTAssertEqual(state.groupRows.first { $0.name == "eu" }?.count, 3)
    }

    func testSearchIsFuzzyWithinOneFieldOfNameAddressUserTagsOrGroupPath() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "weu2")
        Fixtures.settle(&state)
        XCTAssertEqual(state.visible.map { state.catalog.host(at: Int($0)).name }, ["web-eu-2"])
        Fixtures.press(&state, .escape)
        XCTAssertFalse(state.search.isActive)
        XCTAssertEqual(state.visible.count, 8)

        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "eu/web")  // only the group path prod/eu/web has these in order
        Fixtures.settle(&state)
        XCTAssertEqual(Set(state.visible.map { state.catalog.host(at: Int($0)).name }), ["web-eu-1", "web-eu-2"])
        Fixtures.press(&state, .escape)
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "postgres db")  // two terms, ANDed, each in its own field: user and tag
        Fixtures.settle(&state)
        XCTAssertEqual(state.visible.map { state.catalog.host(at: Int($0)).name }, ["db-us"])
        Fixtures.press(&state, .escape)
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "zurich")  // folded: diacritics and case do not matter
        Fixtures.settle(&state)
        XCTAssertEqual(state.visible.map { state.catalog.host(at: Int($0)).name }, ["Zürich-lab"])
        Fixtures.press(&state, .escape)
        Fixtures.press(&state, .char("/"))
        // "ops" is bastion-eu's user; "eu" its group: a term never spans two fields ("o" of ops + "ps"...).
        Fixtures.type(&state, "opseu")
        Fixtures.settle(&state)
        XCTAssertEqual(state.visible, [])
    }

    func testRefiningAQueryOnlyScansThePreviousResults() {
        var state = Fixtures.state(Fixtures.longList(10_000))
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "root")
        Fixtures.settle(&state)
        let rootCount = state.visible.count
        XCTAssertEqual(rootCount, 3333)
        Fixtures.type(&state, " d")
        Fixtures.settle(&state)
        // "root d" was filtered from the 3,333 "root" matches (remembered as "root "), not the 10,000 hosts.
        XCTAssertEqual(state.search.history.suffix(3).map(\.query.text), ["root", "root ", "root d"])
        XCTAssertEqual(state.search.history.suffix(2).first?.rows.count, rootCount)
        XCTAssertEqual(state.visible.count, 666)
        XCTAssertTrue(
            state.visible.allSatisfy {
                state.catalog.host(at: Int($0)).tags == ["db"] && state.catalog.host(at: Int($0)).user == "root"
            })
        // Backspace twice filters the remembered "root" matches again.
        Fixtures.press(&state, .backspace, .backspace)
        XCTAssertFalse(state.search.isRunning)
        XCTAssertEqual(state.visible.count, rootCount)
        XCTAssertEqual(state.search.history.last?.query.text, "root")
    }

    func testABigListSearchesOnceNoKeyIsWaitingAndNeverActsOnStaleRows() {
        var state = Fixtures.state(Fixtures.longList(SearchState.immediateLimit + 5_000))
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "host-0002")
        // Each key only marks the search; the run loop filters when the typing pauses.
        XCTAssertTrue(state.search.isRunning)
        XCTAssertEqual(state.search.results, [])
        // Enter (keep the filter) and Enter (connect) typed before the run loop filtered: both act on the
        // complete, ranked results — the exact name first, never a row of the previous list.
        Fixtures.press(&state, .backspace)
        XCTAssertTrue(state.search.isRunning)
        Fixtures.type(&state, "2")
        let effects = Fixtures.press(&state, .enter, .enter)
        XCTAssertFalse(state.search.isRunning)
        let top = state.catalog.host(at: Int(state.visible[0]))
        XCTAssertEqual(top.name, "host-0002")
        XCTAssertEqual(effects, [.connect(top.id)])
    }

    func testSearchCoversEveryHostAndTabNarrowsItToTheSelectedGroup() {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 30, columns: 120)
        Fixtures.press(&state, .tab, .char("j"), .char("j"))  // groups: prod, eu
        XCTAssertEqual(state.groupRows[state.groupCursor].name, "eu")
        XCTAssertEqual(state.visible.count, 3)
        Fixtures.press(&state, .char("/"))
        Fixtures.type(&state, "us")
        // By default every host: db-us and cache-us are in prod/us, outside prod/eu.
        XCTAssertEqual(Set(state.visible.map { state.catalog.host(at: Int($0)).name }), ["db-us", "cache-us"])
        XCTAssertTrue(Screen.render(state).text.contains("in all hosts — Tab: prod/eu"))
        Fixtures.press(&state, .tab)
        XCTAssertFalse(state.search.allHosts)
        XCTAssertEqual(state.visible, [])
        XCTAssertTrue(Screen.render(state).text.contains("in prod/eu — Tab: all"))
        Fixtures.press(&state, .backspace)  // "u": the three hosts of prod/eu have it in their names
        XCTAssertEqual(
            Set(state.visible.map { state.catalog.host(at: Int($0)).name }), ["bastion-eu", "web-eu-1", "web-eu-2"])
        Fixtures.press(&state, .tab)
        XCTAssertTrue(state.search.allHosts)
        XCTAssertGreaterThan(state.visible.count, 1)
    }

    func testAddHostFormShowsValidationMessagesAndKeepsTheInput() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("a"))
        Fixtures.type(&state, "new-box")
        Fixtures.press(&state, .tab, .tab)  // hostname left empty, to port
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "70000")
        let effects = Fixtures.press(&state, .enter)
        XCTAssertEqual(effects, [])
        guard case .form(let form) = state.mode else { return XCTFail("form closed") }
        XCTAssertEqual(form.errors["hostname"], "hostname is empty")
        XCTAssertEqual(form.errors["port"], "port 70000 is out of range (1-65535)")
        XCTAssertEqual(form.value("name"), "new-box")
        XCTAssertEqual(form.fields[form.focus].key, "hostname", "focus goes to the first problem")
    }

    /// The form refuses what every entry point refuses: shell syntax OpenSSH refuses in a hostname or user (it would
    /// reach ProxyCommand's %h and %r), with the same words as the CLI, and nothing is saved.
    func testAddHostFormRefusesShellSyntaxInHostnameAndUser() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("a"))
        Fixtures.type(&state, "db.corp")
        Fixtures.press(&state, .tab)
        Fixtures.type(&state, "$(touch${IFS}pwned)")
        let effects = Fixtures.press(&state, .enter)
        XCTAssertEqual(effects, [])
        guard case .form(let form) = state.mode else { return XCTFail("form closed") }
        XCTAssertEqual(form.errors["hostname"], "hostname " + Validation.hostnameProblem("$(touch${IFS}pwned)")!)
        XCTAssertTrue(form.errors["hostname"]?.contains("contains '$', which a shell reads as syntax") == true)
    }

    /// A destination pasted into Hostname (`deploy@db1:2222`) is refused with where its parts go, not saved as a
    /// hostname no resolver knows.
    func testAddHostFormSaysWhereAUserOrPortInTheHostnameGoes() {
        for (typed, message) in [
            ("deploy@db1:2222", "holds a user ('deploy@'): the user goes in User, the port in Port"),
            ("db1:2222", "holds a port (':2222'): the user goes in User, the port in Port"),
            (
                "[2001:db8::1]",
                "holds brackets (an IPv6 address goes without them): the user goes in User, the port in Port"
            ),
        ] {
            var state = Fixtures.state(Fixtures.threeLevels())
            Fixtures.press(&state, .char("a"))
            Fixtures.type(&state, "db.corp")
            Fixtures.press(&state, .tab)
            Fixtures.type(&state, typed)
            XCTAssertEqual(Fixtures.press(&state, .enter), [], typed)
            guard case .form(let form) = state.mode else { return XCTFail("form closed") }
            XCTAssertEqual(form.errors["hostname"], message, typed)
        }
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("a"))
        Fixtures.type(&state, "v6")
        Fixtures.press(&state, .tab)
        Fixtures.type(&state, "2001:db8::1")
        Fixtures.press(&state, .enter)
        if case .form(let form) = state.mode { XCTAssertNil(form.errors["hostname"], "an IPv6 address is a hostname") }
    }

    func testAddHostFormSavesThroughAnEffectAndWaitsForTheResult() throws {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("a"))
        Fixtures.type(&state, "new-box")
        Fixtures.press(&state, .tab)
        Fixtures.type(&state, "new.example.com")
        Fixtures.press(&state, .tab, .tab, .tab)
        Fixtures.type(&state, "lab/x")
        Fixtures.press(&state, .tab, .tab, .tab, .tab)  // tags, auth, password, identity
        Fixtures.type(&state, "nope")
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        guard case .form(var form) = state.mode else { return XCTFail("form closed") }
        XCTAssertEqual(form.errors["identity"], "no identity named 'nope' (Ctrl-A adds one)")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "laptop")
        let effects = Fixtures.press(&state, .enter)
        guard case .saveHost(let host, let path, .keep) = effects.first else { return XCTFail("no save: \(effects)") }
        XCTAssertEqual(host.name, "new-box")
        XCTAssertEqual(host.hostname, "new.example.com")
        XCTAssertEqual(host.identityID, Fixtures.id(50))
        XCTAssertEqual(path, "lab/x")
        guard case .form(let pending) = state.mode else { return XCTFail("form closed before the save finished") }
        XCTAssertTrue(pending.pending)
        // A failed save keeps the form and says why.
        _ = Reducer.reduce(&state, .operationFinished(.failure(OperationFailure("database is locked"))))
        guard case .form(let failed) = state.mode else { return XCTFail("form lost after failure") }
        form = failed
        XCTAssertEqual(form.errors[""], "database is locked")
        XCTAssertEqual(form.value("hostname"), "new.example.com")
        _ = Fixtures.press(&state, .enter)
        XCTAssertEqual(Reducer.reduce(&state, .operationFinished(.success("added new-box"))), [.load])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertEqual(state.wantedHostID, host.id)
    }

    func testJumpCycleIsRefusedInTheForm() {
        var state = Fixtures.state(Fixtures.threeLevels())
        // bastion-eu is first; make it jump through web-eu-1, which jumps through bastion-eu.
        Fixtures.press(&state, .char("e"))
        for _ in 0..<9 { Fixtures.press(&state, .tab) }
        Fixtures.type(&state, "web-eu-1")
        Fixtures.press(&state, .enter)
        guard case .form(let form) = state.mode else { return XCTFail() }
        XCTAssertEqual(form.errors["jump"], "jump chain would loop: bastion-eu -> web-eu-1 -> bastion-eu")
    }

    func testGroupForwardAndIdentityFormsValidate() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("N"))
        Fixtures.type(&state, "a/b")
        Fixtures.press(&state, .enter)
        guard case .form(let group) = state.mode else { return XCTFail() }
        XCTAssertEqual(group.errors["name"], "group name 'a/b' contains '/', which separates groups in a path")
        Fixtures.press(&state, .escape)

        Fixtures.press(&state, .char("f"))
        Fixtures.press(&state, .tab, .ctrl("u"))
        Fixtures.type(&state, "0.0.0.0")
        Fixtures.press(&state, .enter)
        guard case .form(let forward) = state.mode else { return XCTFail() }
        XCTAssertEqual(forward.errors["bindPort"], "bind port is empty")
        XCTAssertTrue(forward.errors["bindAddress"]?.contains("not loopback") ?? false)
        XCTAssertEqual(forward.errors["targetHost"], "target host is empty")
        Fixtures.press(&state, .escape)

        Fixtures.press(&state, .char("i"))
        Fixtures.type(&state, "laptop")
        Fixtures.press(&state, .enter)
        guard case .form(let identity) = state.mode else { return XCTFail() }
        XCTAssertEqual(identity.errors["name"], "an identity named 'laptop' already exists")
    }

    func testDeleteAsksAndSaysWhatElseGoes() {
        var state = Fixtures.state(Fixtures.threeLevels())
        let web1 = state.visible.firstIndex { state.catalog.host(at: Int($0)).name == "web-eu-1" }!
        state.hostCursor = web1
        XCTAssertEqual(Fixtures.press(&state, .char("d")), [])
        guard case .confirm(let confirmation) = state.mode else { return XCTFail() }
        XCTAssertTrue(confirmation.lines.contains("Its 2 forward rules go too."), "\(confirmation.lines)")
        var oneRule = state.catalog
        oneRule.rulesByHost[Fixtures.id(101)]?.removeLast()
        XCTAssertTrue(
            DeletePlan.host(state.selectedHost!, catalog: oneRule).lines.contains("Its 1 forward rule goes too."),
            "the verb agrees with the count")
        XCTAssertEqual(Fixtures.press(&state, .char("n")), [])
        XCTAssertEqual(state.mode, .browse)
        Fixtures.press(&state, .char("d"))
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [.deleteHost(Fixtures.id(101))])

        var bastion = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&bastion, .char("d"))
        guard case .confirm(let plan) = bastion.mode else { return XCTFail() }
        XCTAssertTrue(plan.lines.contains { $0.contains("Jumped through by web-eu-1, web-eu-2") }, "\(plan.lines)")

        var group = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&group, .char("h"), .char("j"), .char("d"))  // groups pane, prod
        guard case .confirm(let groupPlan) = group.mode else { return XCTFail() }
        XCTAssertEqual(groupPlan.lines.last, "Also goes: 3 subgroups, 5 hosts and 3 forward rules.")
    }

    func testEnterConnectsAndQIsQuit() {
        var state = Fixtures.state(Fixtures.threeLevels())
        XCTAssertEqual(Fixtures.press(&state, .enter), [.connect(state.selectedHost!.id)])
        XCTAssertEqual(Fixtures.press(&state, .char("q")), [.quit])
        XCTAssertTrue(state.quitting)
    }

    func testDisabledKeysSayWhy() {
        var state = Fixtures.state(Catalog())
        XCTAssertEqual(Fixtures.press(&state, .enter), [])
        XCTAssertEqual(
            state.notice?.text, "connect to the selected host (in the group tree: open the group): no host selected")
        XCTAssertEqual(Fixtures.press(&state, .char("f")), [])
        XCTAssertEqual(state.notice?.isError, true)
    }

    func testTooSmallTerminalOnlyQuits() {
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 14, columns: 80)
        XCTAssertTrue(state.isTooSmall)
        XCTAssertEqual(Fixtures.press(&state, .char("a")), [])
        XCTAssertEqual(state.mode, .browse)
        _ = Reducer.reduce(&state, .resize(rows: 15, columns: 60))
        XCTAssertFalse(state.isTooSmall)
        XCTAssertEqual(Fixtures.press(&state, .char("q")), [.quit])
    }

    func testReloadKeepsTheSelectedHost() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("j"), .char("j"), .char("j"))
        let selected = state.selectedHost?.id
        _ = Reducer.reduce(&state, .loaded(Fixtures.threeLevels()))
        XCTAssertEqual(state.selectedHost?.id, selected)
    }

    func testPasswordPromptIsMaskedAndCanBeRemembered() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(
            &state,
            .prompt(
                .secret(
                    host: "db-us", prompt: "Password:", echo: false, input: "",
                    remember: false, offerRemember: true)))
        Fixtures.type(&state, "s3cret")
        Fixtures.press(&state, .tab)
        let canvas = Screen.render(state)
        XCTAssertTrue(canvas.text.contains("******"))
        XCTAssertFalse(canvas.text.contains("s3cret"))
        XCTAssertTrue(canvas.text.contains("\(Symbols.unicode.check) remember in the vault"), canvas.text)
        XCTAssertEqual(Fixtures.press(&state, .enter), [.answerPrompt(.secret("s3cret", remember: true))])
        // The typed text left the state with the answer.
        XCTAssertEqual(state.mode, .browse)
    }

    func testRememberIsNotOfferedWhenTheVaultCannotKeepIt() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(
            &state,
            .prompt(
                .secret(
                    host: "db-us", prompt: "Password:", echo: false, input: "",
                    remember: false, offerRemember: false)))
        Fixtures.type(&state, "pw")
        Fixtures.press(&state, .tab)
        XCTAssertFalse(Screen.render(state).text.contains("remember in the vault"))
        XCTAssertEqual(Fixtures.press(&state, .enter), [.answerPrompt(.secret("pw", remember: false))])
    }

    func testEchoedPromptShowsWhatIsTypedAndBackspaceErases() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(
            &state,
            .prompt(
                .secret(
                    host: "db-us", prompt: "Verification code:", echo: true, input: "",
                    remember: false, offerRemember: false)))
        Fixtures.type(&state, "12345")
        Fixtures.press(&state, .backspace)
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("Verification code:"), text)
        XCTAssertTrue(text.contains("1234 "), text)
        XCTAssertEqual(Fixtures.press(&state, .enter), [.answerPrompt(.secret("1234", remember: false))])
    }

    func testEscapeCancelsASecretPromptAndSaysSo() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(
            &state,
            .prompt(
                .secret(
                    host: "db-us", prompt: "Password:", echo: false, input: "",
                    remember: false, offerRemember: true)))
        Fixtures.type(&state, "abc")
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "de")
        XCTAssertTrue(Screen.render(state).text.contains("** "), "Ctrl-U cleared the entry")
        XCTAssertFalse(Screen.render(state).text.contains("*** "), "Ctrl-U cleared the entry")
        XCTAssertEqual(Fixtures.press(&state, .escape), [.answerPrompt(.cancelled)])
        XCTAssertEqual(state.mode, .browse)
        XCTAssertEqual(state.notice, Notice("not connected: cancelled", isError: true))
    }

    func testEnterStartsTheLoginAndALoginLaunchesTheSession() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("l"))
        let id = state.selectedHost!.id
        XCTAssertEqual(Fixtures.press(&state, .enter), [.connect(id)])
        XCTAssertEqual(Reducer.reduce(&state, .loggedIn(hostID: id)), [.launchSession(id)])
        _ = Reducer.reduce(&state, .connectFinished(Notice("not connected: host key CHANGED", isError: true)))
        XCTAssertEqual(state.notice, Notice("not connected: host key CHANGED", isError: true))
    }

    func testHostKeyDialogsAnswerOnlyToYesOrNo() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(&state, .prompt(.hostKey(host: "h", keyType: "ssh-ed25519", fingerprint: "SHA256:x")))
        XCTAssertEqual(state.mode, .prompt(.hostKey(host: "h", keyType: "ssh-ed25519", fingerprint: "SHA256:x")))
        XCTAssertEqual(Fixtures.press(&state, .char("x"), .enter), [], "only y, n or Esc answer")
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [.answerPrompt(.trustHostKey(true))])
        XCTAssertEqual(state.mode, .browse)

        _ = Reducer.reduce(&state, .prompt(.hostKey(host: "h", keyType: "ssh-ed25519", fingerprint: "SHA256:x")))
        XCTAssertEqual(Fixtures.press(&state, .escape), [.answerPrompt(.trustHostKey(false))])
        XCTAssertEqual(state.notice, Notice("not connected: the host key was not trusted", isError: true))
    }

    func testAQuestionDuringAFormBringsTheFormBackAfterTheAnswer() {
        var state = Fixtures.state(Fixtures.threeLevels())
        Fixtures.press(&state, .char("a"))
        Fixtures.type(&state, "new-host")
        guard case .form(let form) = state.mode else { return XCTFail("no form") }
        _ = Reducer.reduce(&state, .prompt(.hostKey(host: "h", keyType: "ssh-ed25519", fingerprint: "SHA256:x")))
        XCTAssertEqual(Fixtures.press(&state, .char("y")), [.answerPrompt(.trustHostKey(true))])
        XCTAssertEqual(state.mode, .form(form))
        XCTAssertNil(state.modeAfterPrompt)
    }

    /// A reload with fewer hosts (the last one deleted, here or by another process) while the cursor is on the
    /// last row used to read the old row index from the new catalog and crash.
    func testReloadWithFewerHostsKeepsACursorOnARealRow() {
        var state = Fixtures.state(Fixtures.longList(3))
        Fixtures.press(&state, .char("G"))
        XCTAssertEqual(state.selectedHost?.name, "host-0003")
        _ = Reducer.reduce(&state, .loaded(Fixtures.longList(2)))
        XCTAssertEqual(state.selectedHost?.name, "host-0001", "the deleted host is gone: back to the first row")
        _ = Reducer.reduce(&state, .loaded(Catalog()))
        XCTAssertNil(state.selectedHost)
    }
}

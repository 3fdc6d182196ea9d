// HostFormTests: the host form's password field (never drawn, "set"/"not set", Ctrl-U removes), its options field
// (one option per line, checked by the rules `import` keeps options by, the message under the field), the identity
// pick-list (type to filter, Ctrl-N/P, Enter picks, Ctrl-A adds one and comes back), the Post-quantum choice, and the
// details pane's options with where each comes from.
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class HostFormTests: XCTestCase {
    /// threeLevels with options on db-us, two defaults blocks matching it, and three identities.
    static func catalog() -> Catalog {
        let base = Fixtures.threeLevels()
        var hosts = (0..<base.count).map(base.host(at:))
        let db = hosts.firstIndex { $0.name == "db-us" }!
        hosts[db].options = ["ServerAliveInterval 30", "ControlMaster auto"]
        let identities =
            base.identities + [
                Identity(
                    id: Fixtures.id(51), name: "yubikey", keyType: .ecdsa,
                    privateKeyRef: .identityPrivateKey(Fixtures.id(51))),
                Identity(id: Fixtures.id(52), name: "work-key", keyType: .ed25519, keyFile: "~/.ssh/work"),
            ]
        var catalog = Catalog(
            hosts: hosts, groups: Array(base.tree.groups.values), identities: identities,
            rules: base.rulesByHost.values.flatMap { $0 })
        catalog.optionDefaults = [
            OptionDefaults(pattern: "*-us", options: ["ServerAliveInterval 60", "Compression yes"]),
            OptionDefaults(pattern: "*", options: ["ForwardX11 yes"]),
        ]
        return catalog
    }

    static func select(_ state: inout UIState, _ name: String) {
        state.hostCursor = state.visible.firstIndex { state.catalog.host(at: Int($0)).name == name }!
    }

    /// Tabs to the field with `key` in the open form.
    static func focus(_ state: inout UIState, _ key: String) {
        for _ in 0..<20 {
            guard case .form(let form) = state.mode, form.fields[form.focus].key != key else { return }
            Fixtures.press(&state, .tab)
        }
    }

    private func form(_ state: UIState) -> Form? {
        if case .form(let form) = state.mode { return form }
        return nil
    }

    func testPasswordIsNeverDrawnAndGoesToTheSaveAsAVaultChange() throws {
        var state = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Self.select(&state, "db-us")
        Fixtures.press(&state, .char("e"))
        XCTAssertTrue(
            Screen.render(state).text.contains("Password     set (type to replace it)"), Screen.render(state).text)
        Self.focus(&state, "password")
        Fixtures.type(&state, "pa ss w0rd!")
        let screen = Screen.render(state).text
        XCTAssertFalse(screen.contains("pa ss") || screen.contains("w0rd"), "the password is drawn:\n\(screen)")
        XCTAssertTrue(screen.contains("Password     ***********"), screen)
        let effects = Fixtures.press(&state, .enter)
        guard case .saveHost(let host, _, .set(let password)) = effects.first else { return XCTFail("\(effects)") }
        XCTAssertEqual(password, "pa ss w0rd!", "spaces are part of a password: nothing trimmed")
        XCTAssertEqual(
            host.passwordRef, .hostPassword(host.id), "the record keeps its pointer; the vault gets the value")

        // A host without one says so; nothing typed keeps it as it is.
        var fresh = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Self.select(&fresh, "home-nas")
        Fixtures.press(&fresh, .char("e"))
        XCTAssertTrue(Screen.render(fresh).text.contains("Password     not set"), Screen.render(fresh).text)
        guard case .saveHost(_, _, .keep) = Fixtures.press(&fresh, .enter).first else { return XCTFail() }
    }

    func testCtrlUOnAnEmptyPasswordFieldRemovesTheStoredOneAndAgainKeepsIt() {
        var state = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Self.select(&state, "db-us")
        Fixtures.press(&state, .char("e"))
        Self.focus(&state, "password")
        Fixtures.press(&state, .ctrl("u"))
        XCTAssertTrue(Screen.render(state).text.contains("not set (the stored one is removed on save"))
        var again = state
        Fixtures.press(&again, .ctrl("u"))
        guard case .saveHost(_, _, .keep) = Fixtures.press(&again, .enter).first else { return XCTFail("not kept") }
        guard case .saveHost(_, _, .remove) = Fixtures.press(&state, .enter).first else {
            return XCTFail("not removed")
        }
    }

    /// The Aliases field: the host's aliases, comma- or space-separated; saved as the host's; a pattern character is
    /// refused under the field with the CLI's words.
    func testAliasesFieldShowsEditsAndChecksAliases() {
        var base = Self.catalog()
        var hosts = (0..<base.count).map(base.host(at:))
        let db = hosts.firstIndex { $0.name == "db-us" }!
        hosts[db].aliases = ["db1", "db1.us"]
        base = Catalog(hosts: hosts, groups: Array(base.tree.groups.values), identities: base.identities)
        var state = Fixtures.state(base, rows: 40, columns: 120)
        Self.select(&state, "db-us")
        Fixtures.press(&state, .char("e"))
        XCTAssertTrue(Screen.render(state).text.contains("Aliases      db1,db1.us"), Screen.render(state).text)
        Self.focus(&state, "aliases")
        Fixtures.type(&state, ", db-*")
        Fixtures.press(&state, .enter)
        guard let refused = form(state) else { return XCTFail("the form closed") }
        XCTAssertEqual(refused.errors["aliases"], HostAliases.problem("db-*"))
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "db1, db-primary pg")
        guard case .saveHost(let host, _, _) = Fixtures.press(&state, .enter).first else { return XCTFail("not saved") }
        XCTAssertEqual(host.aliases, ["db1", "db-primary", "pg"])
    }

    /// The catalog with `host` saved in place of db-us, db-us selected.
    private static func showing(_ host: ShelfCore.Host) -> UIState {
        var base = catalog()
        var hosts = (0..<base.count).map(base.host(at:))
        hosts[hosts.firstIndex { $0.name == "db-us" }!] = host
        base = Catalog(hosts: hosts, groups: Array(base.tree.groups.values), identities: base.identities)
        var shown = Fixtures.state(base, rows: 40, columns: 120)
        select(&shown, "db-us")
        return shown
    }

    /// The Post-quantum choice: off by default, Space makes it require and the save carries it (`edit --pq`); a host
    /// that requires it says so in its form and in the details pane.
    func testThePostQuantumChoiceIsSavedAndShown() {
        var state = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Self.select(&state, "db-us")
        Fixtures.press(&state, .char("e"))
        XCTAssertTrue(Screen.render(state).text.contains("Post-quantum (off)  require"), Screen.render(state).text)
        Self.focus(&state, "pq")
        Fixtures.press(&state, .char(" "))
        guard case .saveHost(let host, _, _) = Fixtures.press(&state, .enter).first else { return XCTFail("not saved") }
        XCTAssertEqual(host.pq, .require)

        var shown = Self.showing(host)
        XCTAssertTrue(
            Screen.render(shown).text.contains("required: sessions go through"), Screen.render(shown).text)
        Fixtures.press(&shown, .char("e"))
        XCTAssertTrue(Screen.render(shown).text.contains("Post-quantum  off  (require)"), Screen.render(shown).text)
        guard case .saveHost(let kept, _, _) = Fixtures.press(&shown, .enter).first else { return XCTFail("not saved") }
        XCTAssertEqual(kept.pq, .require, "a save that did not touch it keeps it")
    }

    /// The Record choice (`edit --record`): `group` (as its group) by default; Space cycles off, on, ask and the save
    /// carries it; `group` again clears the host's own setting. A group's form has the same field.
    func testTheRecordChoiceIsSavedForHostsAndGroups() {
        var state = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Self.select(&state, "db-us")
        Fixtures.press(&state, .char("e"))
        XCTAssertTrue(
            Screen.render(state).text.contains("Record        off   on   ask  (group)"), Screen.render(state).text)
        Self.focus(&state, "record")
        Fixtures.press(&state, .char(" "))
        Fixtures.press(&state, .char(" "))
        guard case .saveHost(let host, _, _) = Fixtures.press(&state, .enter).first else { return XCTFail("not saved") }
        XCTAssertEqual(host.record, .on)

        var shown = Self.showing(host)
        Fixtures.press(&shown, .char("e"))
        XCTAssertTrue(
            Screen.render(shown).text.contains("Record        off  (on)  ask   group"), Screen.render(shown).text)
        var untouched = shown
        guard case .saveHost(let kept, _, _) = Fixtures.press(&untouched, .enter).first else {
            return XCTFail("not saved")
        }
        XCTAssertEqual(kept.record, .on, "a save that did not touch it keeps it")
        Self.focus(&shown, "record")
        Fixtures.press(&shown, .char(" "), .char(" "))
        guard case .saveHost(let cleared, _, _) = Fixtures.press(&shown, .enter).first else {
            return XCTFail("not saved")
        }
        XCTAssertNil(cleared.record, "group: as its group says")

        var group = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Fixtures.press(&group, .char("N"))
        Fixtures.type(&group, "lab")
        Self.focus(&group, "record")
        Fixtures.press(&group, .char(" "), .char(" "), .char(" "))
        guard case .saveGroup(let saved, _) = Fixtures.press(&group, .enter).first else { return XCTFail("not saved") }
        XCTAssertEqual(saved.record, .ask)
    }

    /// A form covers the details pane whole: none of its text shows along the form's right edge.
    func testAFormLeavesNoDetailsTextBesideIt() {
        var state = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Self.select(&state, "db-us")
        let before = Screen.render(state).text
        XCTAssertTrue(before.contains("this host"), before)
        Fixtures.press(&state, .char("e"))
        let screen = Screen.render(state).text
        for gone in ["this host", "localhost:5432", "from Host", "not pinned"] {
            XCTAssertFalse(screen.contains(gone), "'\(gone)' shows beside the form:\n\(screen)")
        }
    }

    /// The identity line says where the private key lives: the vault, a key file, or not synced here.
    func testDetailsSayWhereTheKeyLives() {
        var base = Self.catalog()
        var hosts = (0..<base.count).map(base.host(at:))
        let nas = hosts.firstIndex { $0.name == "home-nas" }!
        hosts[nas].identityID = Fixtures.id(51)
        let web = hosts.firstIndex { $0.name == "web-eu-1" }!
        hosts[web].authMethod = .auto
        let key = ReferenceKey.identityPrivateKey(Fixtures.id(51)).rawValue
        for (present, words) in [(Set([key]), "yubikey (ecdsa), key in the vault"), ([], "key not synced to this")] {
            base = Catalog(
                hosts: hosts, groups: Array(base.tree.groups.values), identities: base.identities,
                secretsPresent: present)
            var state = Fixtures.state(base, rows: 40, columns: 200)
            Self.select(&state, "home-nas")
            XCTAssertTrue(Screen.render(state).text.contains(words), Screen.render(state).text)
        }
        var state = Fixtures.state(base, rows: 40, columns: 200)
        Self.select(&state, "web-eu-1")
        XCTAssertTrue(
            Screen.render(state).text.contains("laptop (ed25519), key file ~/.ssh/id_ed25519"),
            Screen.render(state).text)
    }

    func testOptionsAreOneAPerLineCheckedAsImportChecksThem() {
        var state = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Self.select(&state, "db-us")
        Fixtures.press(&state, .char("e"))
        Self.focus(&state, "options")
        XCTAssertEqual(form(state)?.fields[form(state)!.focus].value, "ServerAliveInterval 30\nControlMaster auto")
        // Enter starts a line; a host field of its own is refused with import's words, under the field.
        Fixtures.press(&state, .enter)
        Fixtures.type(&state, "HostName other.example.com")
        Fixtures.press(&state, .tab, .enter)
        guard let refused = form(state) else { return XCTFail("the form closed") }
        XCTAssertEqual(refused.errors["options"], SSHOption.problem("HostName other.example.com"))
        XCTAssertEqual(refused.fields[refused.focus].key, "options", "the cursor goes to the field")
        let screen = Screen.render(state).text
        XCTAssertTrue(screen.contains("HostName is a host field of its own"), screen)
        XCTAssertTrue(screen.contains("ControlMaster auto"), "every line is drawn:\n\(screen)")
        // Fixed: the typed line replaced by an option; blank lines do not count.
        Fixtures.press(&state, .ctrl("u"))
        Fixtures.type(&state, "ServerAliveInterval 15")
        Fixtures.press(&state, .enter, .enter)
        Fixtures.type(&state, "ForwardAgent no")
        Fixtures.press(&state, .tab)
        guard case .saveHost(let host, _, _) = Fixtures.press(&state, .enter).first else { return XCTFail("not saved") }
        XCTAssertEqual(host.options, ["ServerAliveInterval 15", "ForwardAgent no"])
    }

    func testIdentityPickListFiltersPicksAndAddsOne() {
        var state = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Fixtures.press(&state, .char("a"))
        Fixtures.type(&state, "new-box")
        Fixtures.press(&state, .tab)
        Fixtures.type(&state, "new.example.com")
        Self.focus(&state, "identity")
        Fixtures.type(&state, "K")
        XCTAssertEqual(form(state)?.field("identity")?.pickMatches, ["work-key", "yubikey"], "contains, ignoring case")
        var screen = Screen.render(state).text
        XCTAssertTrue(screen.contains("work-key") && screen.contains("yubikey") && !screen.contains("laptop"), screen)
        Fixtures.press(&state, .ctrl("n"))
        XCTAssertEqual(Fixtures.press(&state, .enter), [], "Enter picks; it does not save yet")
        XCTAssertEqual(form(state)?.value("identity"), "yubikey")
        guard case .saveHost(let host, _, _) = Fixtures.press(&state, .enter).first else { return XCTFail("not saved") }
        XCTAssertEqual(host.identityID, Fixtures.id(51))

        // Ctrl-A: the identity form, then back with the new identity picked.
        var adding = Fixtures.state(Self.catalog(), rows: 40, columns: 120)
        Fixtures.press(&adding, .char("a"))
        Self.focus(&adding, "identity")
        Fixtures.type(&adding, "zz")
        screen = Screen.render(adding).text
        XCTAssertTrue(screen.contains("none matches: Ctrl-A adds one"), screen)
        Fixtures.press(&adding, .ctrl("a"))
        XCTAssertEqual(form(adding)?.title, "Add identity")
        Fixtures.type(&adding, "deploy-key")
        guard case .saveIdentity(let identity) = Fixtures.press(&adding, .enter).first else { return XCTFail() }
        _ = Reducer.reduce(&adding, .operationFinished(.success("saved identity deploy-key")))
        guard let back = form(adding) else { return XCTFail("not back in the host form") }
        XCTAssertEqual(back.title, "Add host")
        XCTAssertEqual(back.value("identity"), "deploy-key")
        XCTAssertEqual(back.fields[back.focus].key, "identity")
        var catalog = Self.catalog()
        catalog.identities.append(identity)
        _ = Reducer.reduce(&adding, .loaded(catalog))
        Fixtures.press(&adding, .char("x"), .backspace)  // still the host form, still typing
        XCTAssertEqual(form(adding)?.value("identity"), "deploy-key")
    }

    func testDetailsPaneShowsEachOptionAndWhereItComesFrom() {
        var state = Fixtures.state(Self.catalog(), rows: 50, columns: 200)
        Self.select(&state, "db-us")
        let screen = Screen.render(state).text
        for expected in [
            "ServerAliveInterval 30  this host",
            "ControlMaster auto  this host; not applied: OpenSSH only",
            "ServerAliveInterval 60  from Host *-us; an earlier value wins",
            "Compression yes  from Host *-us",
            "ForwardX11 yes  sshelf's defaults (Host *); not applied: OpenSSH only",
        ] {
            XCTAssertTrue(screen.contains(expected), "missing '\(expected)':\n\(screen)")
        }
        // The same lines, in the same order, as `sshelf show` prints (one computation).
        let lines = HostOptionSources.lines(host: state.selectedHost!, defaults: state.catalog.optionDefaults)
        XCTAssertEqual(
            lines.map(\.text),
            [
                "ServerAliveInterval 30", "ControlMaster auto", "ServerAliveInterval 60",
                "Compression yes", "ForwardX11 yes",
            ])
    }
}

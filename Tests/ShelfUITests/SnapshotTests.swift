// Snapshots: every screen rendered on a Canvas at 80x24, 120x40 and 200x50, compared as text with the recorded
// snapshots, one plain-text file per screen and size in Snapshots/ (e.g. Snapshots/help-80x24.txt).
// SSHELF_UPDATE_SNAPSHOTS=1 rewrites them (then review the diff).
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class SnapshotTests: XCTestCase {
    static let sizes = [(24, 80), (40, 120), (50, 200)]

    /// Every screen the issue names, by snapshot name.
    static func screens(rows: Int, columns: Int) -> [(String, UIState)] {
        var out: [(String, UIState)] = []
        func add(_ name: String, _ state: UIState) { out.append(("\(name)-\(columns)x\(rows)", state)) }
        let three = Fixtures.threeLevels()

        add("empty", Fixtures.state(Catalog(), rows: rows, columns: columns))
        var offer = Fixtures.state(Catalog(), rows: rows, columns: columns)
        _ = Reducer.reduce(&offer, .userConfig(UserConfigState(exists: true)))
        add("empty-import-offer", offer)
        var noConfig = Fixtures.state(Catalog(), rows: rows, columns: columns)
        _ = Reducer.reduce(&noConfig, .userConfig(UserConfigState(exists: false)))
        add("empty-no-ssh-config", noConfig)
        var preview = offer
        Fixtures.press(&preview, .char("o"))
        _ = Reducer.reduce(&preview, .importPreviewed(.success(ImportDialogTests.previewLines)))
        add("import-preview", preview)
        var imported = preview
        Fixtures.press(&imported, .char("y"))
        _ = Reducer.reduce(&imported, .imported(.success(ImportDialogTests.summaryLines)))
        add("import-done", imported)
        for (name, state) in FleetSnapshots.screens(rows: rows, columns: columns) { add(name, state) }
        for (name, state) in FilesSnapshots.screens(rows: rows, columns: columns) { add(name, state) }
        for (name, state) in SnippetPickerSnapshots.screens(rows: rows, columns: columns) { add(name, state) }
        for (name, state) in RecordingListSnapshots.screens(rows: rows, columns: columns) { add(name, state) }
        var main = Fixtures.state(three, rows: rows, columns: columns)
        main.hostCursor = main.visible.firstIndex { main.catalog.host(at: Int($0)).name == "web-eu-1" }!
        add("groups-3-levels", main)
        var configChanged = main
        _ = Reducer.reduce(&configChanged, .userConfig(UserConfigState(exists: true, changedSinceImport: true)))
        add("ssh-config-changed", configChanged)
        var forwards = main
        _ = Reducer.reduce(&forwards, .key(.char("l")))
        _ = Reducer.reduce(&forwards, .key(.char("j")))
        add("forwards-focused", forwards)
        for (name, live) in Self.forwardStates {
            var running = forwards
            running.forwardCursor = 0
            running.forwardStates[Fixtures.id(200)] = live
            add("forwards-\(name)", running)
        }
        var publicBind = forwards
        publicBind.forwardCursor = 0
        publicBind.catalog.rulesByHost[Fixtures.id(101)]?[0].bindAddress = "0.0.0.0"
        Fixtures.press(&publicBind, .char("t"))
        add("confirm-public-bind", publicBind)
        var long = Fixtures.state(Fixtures.longList(500), rows: rows, columns: columns)
        for _ in 0..<3 { _ = Reducer.reduce(&long, .key(.pageDown)) }
        add("long-list", long)
        var search = Fixtures.state(three, rows: rows, columns: columns)
        Fixtures.press(&search, .char("/"))
        Fixtures.type(&search, "web eu")
        Fixtures.settle(&search)
        add("search", search)
        var noMatch = search
        Fixtures.type(&noMatch, "zzz")
        Fixtures.settle(&noMatch)
        add("search-no-match", noMatch)

        var hostForm = Fixtures.state(three, rows: rows, columns: columns)
        Fixtures.press(&hostForm, .char("a"))
        Fixtures.type(&hostForm, "new box")
        Fixtures.press(&hostForm, .tab, .tab, .ctrl("u"))
        Fixtures.type(&hostForm, "abc")
        Fixtures.press(&hostForm, .enter)
        add("form-host-errors", hostForm)
        var groupForm = Fixtures.state(three, rows: rows, columns: columns)
        Fixtures.press(&groupForm, .char("N"))
        Fixtures.type(&groupForm, "a/b")
        Fixtures.press(&groupForm, .enter)
        add("form-group-errors", groupForm)
        var forwardForm = main
        Fixtures.press(&forwardForm, .char("f"), .tab, .tab)
        Fixtures.type(&forwardForm, "99999")
        Fixtures.press(&forwardForm, .enter)
        add("form-forward-errors", forwardForm)
        var identityForm = main
        Fixtures.press(&identityForm, .char("i"), .enter)
        add("form-identity-errors", identityForm)
        var identities = Fixtures.state(IdentityListTests.catalog(), rows: rows, columns: columns)
        Fixtures.press(&identities, .char("I"), .char("j"))
        add("identities", identities)
        var identityEdit = identities
        Fixtures.press(&identityEdit, .char("k"), .char("e"), .ctrl("u"))
        Fixtures.type(&identityEdit, "yubikey")
        Fixtures.press(&identityEdit, .enter)
        add("form-identity-edit-errors", identityEdit)
        var identityDelete = identities
        Fixtures.press(&identityDelete, .char("k"), .char("d"))
        add("confirm-delete-identity", identityDelete)
        add(
            "identities-empty",
            {
                var s = Fixtures.state(Catalog(), rows: rows, columns: columns)
                Fixtures.press(&s, .char("I")); return s
            }())
        add("conflicts", ConflictListTests.open(rows: rows, columns: columns))
        var confirm = main
        Fixtures.press(&confirm, .char("d"))
        add("confirm-delete-host", confirm)
        var help = main
        Fixtures.press(&help, .char("?"))
        add("help", help)
        var hostKey = main
        _ = Reducer.reduce(
            &hostKey,
            .prompt(
                .hostKey(
                    host: "web-eu-1", keyType: "ssh-ed25519",
                    fingerprint: "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s")))
        add("prompt-host-key", hostKey)
        var otherType = main
        _ = Reducer.reduce(
            &otherType,
            .prompt(
                .keyMismatch(
                    KeyMismatch(
                        kind: .otherType, host: "web-eu-1", address: "10.1.0.11",
                        offered: "ssh-ed25519 SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
                        known: ["ecdsa-sha2-nistp256"],
                        source: "the host's pinned key"))))
        Fixtures.type(&otherType, "web-")
        add("prompt-host-key-other-type", otherType)
        var changed = main
        _ = Reducer.reduce(&changed, .prompt(.keyMismatch(Self.changedKey)))
        Fixtures.type(&changed, "web-eu-2")
        Fixtures.press(&changed, .enter)
        add("prompt-host-key-changed", changed)
        var vaultPassphrase = main
        _ = Reducer.reduce(
            &vaultPassphrase,
            .prompt(
                .vaultPassphrase(
                    prompt: "Wrong passphrase (try 2 of 3). Vault passphrase:", input: "")))
        Fixtures.type(&vaultPassphrase, "hunter2")
        add("prompt-vault-passphrase", vaultPassphrase)
        var connecting = main
        Fixtures.press(&connecting, .enter, .char("j"))
        add("connecting", connecting)
        var storeFailure = Fixtures.state(Catalog(), rows: rows, columns: columns, loaded: false)
        _ = Reducer.reduce(
            &storeFailure,
            .loadFailed(
                "store /home/u/.local/share/sshelf/store.sqlite is damaged: database disk image is malformed",
                hint: "restore it from a backup, or move it aside to start an empty store "
                    + "(sshelf never changes a damaged file)"))
        add("failure-store", storeFailure)
        var vaultFailure = main
        _ = Reducer.reduce(
            &vaultFailure,
            .vaultFailed(
                "vault /home/u/.local/share/sshelf/vault.sqlite is readable by other users (mode 644)",
                hint: "run: chmod 600 /home/u/.local/share/sshelf/vault.sqlite"))
        add("failure-vault", vaultFailure)
        var password = main
        _ = Reducer.reduce(
            &password,
            .prompt(
                .secret(
                    host: "web-eu-1", prompt: "deploy@web-eu-1.example.com's password:",
                    echo: false, input: "", remember: false, offerRemember: true)))
        Fixtures.type(&password, "hunter2")
        Fixtures.press(&password, .tab)
        add("prompt-password", password)
        add("shared-names", Fixtures.state(Fixtures.sharedNames(), rows: rows, columns: columns))
        var wide = Fixtures.state(WideCharacterTests.wideCatalog(), rows: rows, columns: columns)
        add("wide-characters", wide)
        Fixtures.press(&wide, .char("/"))
        Fixtures.type(&wide, "京 web")
        Fixtures.settle(&wide)
        add("wide-characters-search", wide)
        var wideForm = Fixtures.state(WideCharacterTests.wideCatalog(), rows: rows, columns: columns)
        Fixtures.press(&wideForm, .char("e"))
        add("wide-characters-form", wideForm)
        // #26's host form: a stored password, options over several lines, the identity pick-list; the details
        // pane's options with where each comes from.
        var fullForm = Fixtures.state(HostFormTests.catalog(), rows: rows, columns: columns)
        HostFormTests.select(&fullForm, "db-us")
        Fixtures.press(&fullForm, .char("e"))
        HostFormTests.focus(&fullForm, "options")
        Fixtures.press(&fullForm, .enter)
        Fixtures.type(&fullForm, "ForwardAgent")
        Fixtures.press(&fullForm, .up, .up, .enter)
        add("form-host-full", fullForm)
        var pick = Fixtures.state(HostFormTests.catalog(), rows: rows, columns: columns)
        Fixtures.press(&pick, .char("a"))
        HostFormTests.focus(&pick, "identity")
        Fixtures.type(&pick, "k")
        Fixtures.press(&pick, .ctrl("n"))
        add("form-host-pick-list", pick)
        var details = Fixtures.state(HostFormTests.catalog(), rows: rows, columns: columns)
        HostFormTests.select(&details, "db-us")
        add("details-options", details)
        var ascii = Fixtures.state(three, rows: rows, columns: columns)
        ascii.symbols = .ascii
        ascii.status.sync = .localFallback(reason: "sync folder /mnt/nas/sshelf not found")
        add("ascii-symbols", ascii)
        out += reachabilityScreens(rows: rows, columns: columns)
        return out
    }

    /// web-eu-1's key changed; the known one came from its pin (fingerprints as OpenSSH prints them).
    static let changedKey = KeyMismatch(
        kind: .changed, host: "web-eu-1", address: "10.1.0.11",
        offered: "ssh-ed25519 SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
        known: ["ssh-ed25519 SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU"], source: "the host's pinned key",
        retry: ConnectAttempt(hostID: Fixtures.id(101), name: "web-eu-1"))

    /// The rule web-eu-1's "admin" in each live state (run by the TUI, or by `forward up`).
    static let forwardStates: [(String, ForwardLive)] = [
        ("starting", ForwardLive(phase: .starting, runner: .tui)),
        (
            "active",
            ForwardLive(
                phase: .active, runner: .tui, boundPort: 8080, activeConnections: 2,
                totalConnections: 17, bytesOut: 1_234_567, bytesIn: 348_160)
        ),
        (
            "retrying",
            ForwardLive(
                phase: .retrying, runner: .supervisor, lastError: "connection refused",
                nextAttempt: Fixtures.now.addingTimeInterval(4))
        ),
        (
            "failed",
            ForwardLive(
                phase: .failed, runner: .tui,
                lastError: "port 8080 on 127.0.0.1 is already in use")
        ),
        (
            "by-terminal",
            ForwardLive(
                phase: .active, runner: .command(pid: 4242), boundPort: 8080,
                activeConnections: 1, totalConnections: 1, bytesOut: 512, bytesIn: 2048)
        ),
    ]

    static let statusStates: [(String, StatusModel)] = [
        ("off", StatusModel(sync: .off, vault: .notSetUp)),
        ("syncing", StatusModel(sync: .syncing, vault: .locked)),
        ("synced", StatusModel(sync: .synced(at: Fixtures.now.addingTimeInterval(-120)), vault: .unlocked)),
        (
            "partly-unlocked",
            StatusModel(sync: .synced(at: Fixtures.now.addingTimeInterval(-30)), vault: .partlyUnlocked)
        ),
        (
            "fallback",
            StatusModel(sync: .localFallback(reason: "sync folder /mnt/nas/sshelf not found"), vault: .noPassphrase)
        ),
        ("vault-broken", StatusModel(sync: .off, vault: .broken("vault file damaged (bad MAC)"))),
        (
            "sync-notes",
            StatusModel(
                sync: .synced(at: Fixtures.now.addingTimeInterval(-60)), vault: .unlocked,
                syncNotes: [SyncNote("2 merge conflicts: C lists them", .warning)])
        ),
        (
            "revoked",
            StatusModel(
                sync: .localFallback(reason: "this device was revoked"), vault: .unlocked,
                syncNotes: [SyncNote("this device was revoked from the sync group", .error)])
        ),
    ]

    static func allSnapshots() -> [(String, String)] {
        var out: [(String, String)] = []
        for (rows, columns) in sizes {
            for (name, state) in screens(rows: rows, columns: columns) { out.append((name, Screen.render(state).text)) }
            for (name, model) in statusStates {
                let state = Fixtures.state(Fixtures.threeLevels(), rows: rows, columns: columns, status: model)
                let canvas = Screen.render(state)
                out.append(("status-\(name)-\(columns)x\(rows)", canvas.line(rows - 1)))
            }
        }
        out.append(
            ("too-small-59x15", Screen.render(Fixtures.state(Fixtures.threeLevels(), rows: 15, columns: 59)).text))
        out.append(
            ("smallest-60x15", Screen.render(Fixtures.state(Fixtures.threeLevels(), rows: 15, columns: 60)).text))
        return out
    }

    /// Snapshots/, next to this file (the sources are where the tests were built from).
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
    static let updateVariable = "SSHELF_UPDATE_SNAPSHOTS"

    static func file(_ name: String) -> URL { folder.appendingPathComponent(name + ".txt") }

    /// The recorded names (files ending in .txt).
    static func recorded() throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".txt") }
                .map { String($0.dropLast(4)) })
    }

    func testScreensMatchSnapshots() throws {
        let actual = Self.allSnapshots()
        if ProcessInfo.processInfo.environment[Self.updateVariable] == "1" {
            try Self.write(actual)
            return
        }
        for (name, text) in actual {
            // Each file holds the screen's text and one closing newline.
            guard let data = FileManager.default.contents(atPath: Self.file(name).path) else {
                XCTFail(
                    """
                    no snapshot \(Self.file(name).path); record it with \(Self.updateVariable)=1 swift test --filter \
                    SnapshotTests (or make test) and review the new file. This run rendered:
                    \(text)
                    """)
                continue
            }
            let expected = String(decoding: data, as: UTF8.self)
            XCTAssertEqual(
                text + "\n", expected, "snapshot \(name) differs from \(Self.file(name).path); actual:\n\(text)")
        }
        let stale = try Self.recorded().subtracting(actual.map(\.0))
        XCTAssertTrue(
            stale.isEmpty,
            "snapshot files no screen renders any more (\(Self.updateVariable)=1 removes them): "
                + stale.sorted().joined(separator: ", "))
    }

    /// Writes every snapshot that changed and removes the ones no screen renders any more.
    static func write(_ snapshots: [(String, String)]) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in snapshots
        where FileManager.default.contents(atPath: file(name).path) != Data((text + "\n").utf8) {
            try (text + "\n").write(to: file(name), atomically: true, encoding: .utf8)
        }
        for name in try recorded().subtracting(snapshots.map(\.0)) {
            try FileManager.default.removeItem(at: file(name))
        }
    }
}

// Live state in the reducer and the layout: a store that cannot be opened is a full-screen message (q quits, r
// tries again), a broken vault one that Esc leaves; V unlocks or locks the vault, S syncs; a change elsewhere
// reloads; the panes share the width in proportion and the address column shows whole addresses when they fit.
import Foundation
import ShelfCore
import XCTest

@testable import ShelfUI

final class LiveStateTests: XCTestCase {
    func testAStoreThatCannotBeOpenedFillsTheScreenWithItsErrorAndHint() {
        var state = Fixtures.state(Catalog(), loaded: false)
        _ = Reducer.reduce(
            &state,
            .loadFailed(
                "store /x/store.sqlite is damaged: file is not a database",
                hint: "move it aside to start an empty store"))
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("The host store cannot be opened"), text)
        XCTAssertTrue(text.contains("store /x/store.sqlite is damaged: file is not a database"), text)
        XCTAssertTrue(text.contains("hint: move it aside to start an empty store"), text)
        XCTAssertFalse(text.contains("loading..."), text)
        XCTAssertTrue(text.contains("q quit"), text)
        // Nothing else acts: no form over a store that is not there; Esc does not pretend to go on.
        XCTAssertEqual(Fixtures.press(&state, .char("a"), .enter, .escape), [])
        XCTAssertNotNil(state.failure)
        XCTAssertEqual(Fixtures.press(&state, .char("r")), [.load])
        XCTAssertNil(state.failure)
        _ = Reducer.reduce(&state, .loadFailed("still damaged", hint: nil))
        XCTAssertEqual(Fixtures.press(&state, .char("q")), [.quit])
        XCTAssertTrue(state.quitting)
    }

    func testTheStoreScreenGoesAwayWhenTheStoreLoads() {
        var state = Fixtures.state(Catalog(), loaded: false)
        _ = Reducer.reduce(&state, .loadFailed("locked", hint: nil))
        _ = Reducer.reduce(&state, .loaded(Fixtures.threeLevels()))
        XCTAssertNil(state.failure)
        // A reload that fails later keeps the list and says so in the title bar.
        _ = Reducer.reduce(&state, .loadFailed("disk I/O error", hint: nil))
        XCTAssertNil(state.failure)
        XCTAssertEqual(state.notice, Notice("disk I/O error", isError: true))
    }

    func testABrokenVaultIsShownOnceAndEscapeGoesOnWithoutIt() {
        var state = Fixtures.state(Fixtures.threeLevels())
        _ = Reducer.reduce(&state, .vaultFailed("vault file is readable by others", hint: "chmod 600 it"))
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("The vault cannot be opened"), text)
        XCTAssertTrue(text.contains("hint: chmod 600 it"), text)
        XCTAssertTrue(text.contains("Esc go on without it"), text)
        XCTAssertEqual(Fixtures.press(&state, .char("r")), [], "the vault is checked again by itself")
        XCTAssertEqual(Fixtures.press(&state, .escape), [])
        XCTAssertNil(state.failure)
        _ = Reducer.reduce(&state, .vaultFailed("vault file is readable by others", hint: "chmod 600 it"))
        XCTAssertNil(state.failure, "the same failure is not shown again")
        _ = Reducer.reduce(&state, .vaultFailed("the vault file was altered", hint: nil))
        XCTAssertNotNil(state.failure, "a new one is")
    }

    func testTheVaultKeyUnlocksALockedVaultAndLocksAnUnlockedOne() {
        var state = Fixtures.state(Fixtures.threeLevels())
        for (vault, effects) in [
            (VaultIndicator.locked, [Effect.unlockVault]), (.partlyUnlocked, [.unlockVault]),
            (.unlocked, [.lockVault]),
            // No vault yet: the app offers to create one (TUIVaultCreate), through the same effect.
            (.notSetUp, [.unlockVault]),
        ] {
            _ = Reducer.reduce(&state, .status(StatusModel(sync: .off, vault: vault)))
            XCTAssertEqual(Fixtures.press(&state, .char("V")), effects, "\(vault)")
        }
        for vault in [VaultIndicator.noPassphrase, .broken("bad MAC")] {
            _ = Reducer.reduce(&state, .status(StatusModel(sync: .off, vault: vault)))
            XCTAssertEqual(Fixtures.press(&state, .char("V")), [], "\(vault)")
            XCTAssertEqual(state.notice?.isError, true, "the key says why it does nothing")
        }
        _ = Reducer.reduce(&state, .status(StatusModel(sync: .off, vault: .locked)))
        Fixtures.press(&state, .enter)
        XCTAssertEqual(Fixtures.press(&state, .char("V")), [], "not while a connect may ask for the passphrase itself")
    }

    func testSyncNowNeedsSyncAndAChangeElsewhereReloads() {
        var state = Fixtures.state(Fixtures.threeLevels())
        XCTAssertEqual(Fixtures.press(&state, .char("S")), [])
        XCTAssertTrue(state.notice?.text.contains("sync is off") == true, "\(String(describing: state.notice))")
        _ = Reducer.reduce(&state, .status(StatusModel(sync: .synced(at: Fixtures.now), vault: .notSetUp)))
        XCTAssertEqual(Fixtures.press(&state, .char("S")), [.syncNow])
        XCTAssertEqual(Reducer.reduce(&state, .storeChanged), [.load])
    }

    func testSyncNotesFollowTheSyncStateInTheirColours() {
        let notes = [
            SyncNote("waiting to be enrolled by another device", .warning),
            SyncNote("this device was revoked from the sync group", .error),
            SyncNote("credentials not joined on this device", .info),
        ]
        var state = Fixtures.state(Fixtures.threeLevels(), rows: 24, columns: 250)
        _ = Reducer.reduce(
            &state, .status(StatusModel(sync: .synced(at: Fixtures.now), vault: .unlocked, syncNotes: notes)))
        let canvas = Screen.render(state)
        let line = canvas.line(23)
        XCTAssertTrue(
            line.hasPrefix("✓ synced just now │ waiting to be enrolled by another device │ this device was"), line)
        func style(of text: String) -> CellStyle? {
            guard let range = line.range(of: text) else { return nil }
            return canvas[23, line.distance(from: line.startIndex, to: range.lowerBound)].style
        }
        XCTAssertEqual(style(of: "waiting")?.color, .orange)
        XCTAssertEqual(style(of: "this device was")?.color, .red)
        XCTAssertEqual(style(of: "credentials not")?.color, .dim)
    }

    func testThePanesShareTheWidthInProportion() {
        let narrow = Layout(rows: 40, columns: 120)
        let wide = Layout(rows: 50, columns: 200)
        XCTAssertTrue(narrow.detailsBeside && wide.detailsBeside)
        XCTAssertGreaterThan(wide.details.width, narrow.details.width + 25, "the details pane grows with the terminal")
        XCTAssertGreaterThan(wide.hosts.width, narrow.hosts.width)
        XCTAssertGreaterThanOrEqual(wide.details.width, 72, "a whole fingerprint line fits at 200 columns")
        for layout in [narrow, wide, Layout(rows: 24, columns: 80)] {
            let right =
                layout.detailsBeside
                ? layout.details.column + layout.details.width : layout.hosts.column + layout.hosts.width
            XCTAssertEqual(right, layout.title.width, "the panes fill the width")
        }
    }

    func testTheAddressColumnShowsWholeAddressesWhenTheyFit() {
        for (rows, columns) in SnapshotTests.sizes {
            let state = Fixtures.state(Fixtures.threeLevels(), rows: rows, columns: columns)
            let text = Screen.render(state).text
            for address in [
                "postgres@db.us.example.com:2222", "ops@bastion.eu.example.com", "ci@app.staging.example.com",
            ] {
                XCTAssertTrue(text.contains(address), "\(columns)x\(rows):\n\(text)")
            }
        }
    }

    func testColumnSharesGiveEachWhatItNeedsFirst() {
        XCTAssertEqual(HostListView.share(40, needs: [10, 50]), [10, 30])
        XCTAssertEqual(HostListView.share(40, needs: [25, 25]), [20, 20])
        XCTAssertEqual(HostListView.share(40, needs: [5, 5]), [5, 5])
        XCTAssertEqual(HostListView.share(41, needs: [30, 30]), [21, 20])
        let c = HostListView.columns(width: 50, natural: (name: 10, destination: 31, tags: 20))
        XCTAssertEqual(c.destination, 31, "the address whole")
        XCTAssertEqual(c.name + c.destination + c.tags + c.last + 3, 50)
        let tight = HostListView.columns(width: 40, natural: (name: 10, destination: 31, tags: 20))
        XCTAssertEqual(tight.name + tight.destination + tight.tags + tight.last + 3, 40)
        XCTAssertGreaterThanOrEqual(tight.tags, 4, "tags keep a little room")
    }

    /// Names shorter than the header ("host-0001" under "Hosts 1200"): the count is shown whole, never cut to
    /// "Hosts 12…", which would read as another number.
    func testTheHostCountInTheHeaderIsNeverCut() {
        let state = Fixtures.state(Fixtures.longList(1200), rows: 24, columns: 140)
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("Hosts 1200 "), text)
    }

    func testHostsSharingANameAreMarkedWithTheNameCommandsTake() {
        var state = Fixtures.state(Fixtures.sharedNames(), rows: 24, columns: 100)
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("lab@3fa2c1d0"), text)
        XCTAssertTrue(text.contains("Lab@9b1e22aa"), text)
        XCTAssertTrue(text.contains("lab2 "), "lab2 is its own name: \(text)")
        XCTAssertFalse(text.contains("lab2@"), text)
        XCTAssertTrue(text.contains("name      shared with 1 other host: commands take lab@3fa2c1d0"), text)
        Fixtures.press(&state, .char("G"))
        XCTAssertFalse(Screen.render(state).text.contains("shared with"), "lab2 shares nothing")
        XCTAssertEqual(state.catalog.rowsSharingName(with: 0), [0, 1])
        XCTAssertEqual(state.catalog.rowsSharingName(with: 2), [2])
    }

    func testAFingerprintWrapsInTheDetailsPaneInsteadOfBeingCut() {
        let state = Fixtures.state(Fixtures.threeLevels(), rows: 24, columns: 80)
        var selected = state
        selected.hostCursor = selected.visible.firstIndex { selected.catalog.table.name(Int($0)) == "web-eu-1" }!
        let text = Screen.render(selected).text
        XCTAssertTrue(text.contains("SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU"), text)
    }
}

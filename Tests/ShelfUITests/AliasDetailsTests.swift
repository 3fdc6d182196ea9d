// AliasDetailsTests: the details pane names a host's aliases, and the TUI's search finds a host by one of them (the
// matcher's rule) and by its port (`:2222`).
import Foundation
import ShelfCore
@testable import ShelfUI
import XCTest

final class AliasDetailsTests: XCTestCase {
    func catalog() -> Catalog {
        Catalog(hosts: [
            ShelfCore.Host(id: Fixtures.id(1), name: "web1", hostname: "10.0.0.1", aliases: ["web1.prod", "w1"]),
            ShelfCore.Host(id: Fixtures.id(2), name: "db", hostname: "10.0.0.2", port: 2222),
        ])
    }

    func testTheDetailsPaneShowsTheAliases() {
        let state = Fixtures.state(catalog(), rows: 24, columns: 120)
        XCTAssertEqual(state.selectedHost?.name, "web1")
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("aliases   web1.prod, w1"), text)
        var onDB = state
        _ = Reducer.reduce(&onDB, .key(.char("j")))
        XCTAssertEqual(onDB.selectedHost?.name, "db")
        XCTAssertFalse(Screen.render(onDB).text.contains("aliases"), "no line for a host without aliases")
    }

    func testTheSearchFindsAHostByAnAliasAndByItsPort() {
        for (query, expected) in [("prod", ["web1"]), ("w1", ["web1"]), (":2222", ["db"]), (":22", ["db", "web1"])] {
            var state = Fixtures.state(catalog(), rows: 24, columns: 120)
            _ = Fixtures.press(&state, .char("/"))
            Fixtures.type(&state, query)
            Fixtures.settle(&state)
            XCTAssertEqual(state.visible.map { state.catalog.host(at: Int($0)).name }.sorted(), expected, query)
        }
    }
}

// KeyExchangeDetailsTests: the details pane says which key exchange the selected host's last session from this device
// used, and whether it was post-quantum; a host never connected has no such line. A key a host certificate vouched
// for says so too.
import ShelfCore
import XCTest

@testable import ShelfUI

final class KeyExchangeDetailsTests: XCTestCase {
    func testTheDetailsSayTheLastSessionsKeyExchange() throws {
        var catalog = HostFormTests.catalog()
        let db = try XCTUnwrap((0..<catalog.count).map(catalog.host(at:)).first { $0.name == "db-us" })
        var state = Fixtures.state(catalog, rows: 30, columns: 100)
        HostFormTests.select(&state, "db-us")
        XCTAssertFalse(Screen.render(state).text.contains("kex "), "never connected from this device")
        catalog.keyExchanges[db.id] = "curve25519-sha256"
        state = Fixtures.state(catalog, rows: 30, columns: 100)
        HostFormTests.select(&state, "db-us")
        XCTAssertTrue(
            Screen.render(state).text.contains("kex       curve25519-sha256 (not post-quantum)"),
            Screen.render(state).text)
        catalog.keyExchanges[db.id] = "sntrup761x25519-sha512@openssh.com"
        state = Fixtures.state(catalog, rows: 30, columns: 100)
        HostFormTests.select(&state, "db-us")
        XCTAssertTrue(
            Screen.render(state).text.contains("kex       sntrup761x25519-sha512@openssh.com (post-quantum)"),
            Screen.render(state).text)
    }

    func testTheDetailsSayAHostCertificateVouchedForTheKey() throws {
        var catalog = HostFormTests.catalog()
        let db = try XCTUnwrap((0..<catalog.count).map(catalog.host(at:)).first { $0.name == "db-us" })
        var state = Fixtures.state(catalog, rows: 30, columns: 140)
        HostFormTests.select(&state, "db-us")
        XCTAssertFalse(Screen.render(state).text.contains("cert "), "no certificate vouched")
        catalog.hostCertificates[db.id] = "a host certificate (serial 7, principal db.example, valid until 2026-12-07)"
        state = Fixtures.state(catalog, rows: 30, columns: 140)
        HostFormTests.select(&state, "db-us")
        let text = Screen.render(state).text
        XCTAssertTrue(text.contains("cert      key vouched for by a host certificate"), text)
        XCTAssertTrue(text.contains("(serial 7, principal db.example,"), text)
    }
}

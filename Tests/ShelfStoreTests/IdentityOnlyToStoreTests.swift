// IdentityOnlyToStoreTests: an identity's host bindings (`identity edit --only`) through JSON (sync's shape) and
// SQLite, the migration that moves them out of the unknown fields of an identity synced from a newer device, and a
// form this version cannot read kept as a binding that matches no host (never dropped, which would widen it).
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class IdentityOnlyToStoreTests: XCTestCase {
    func testBindingsRoundTripThroughJSONAndUnknownFormsAreKept() throws {
        let host = UUID()
        let group = UUID()
        let identity = Identity(
            name: "k", onlyTo: [.host(host), .group(group), .other("tag:db")],
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let encoded = try ShelfJSON.encoder().encode(identity)
        let text = String(decoding: encoded, as: UTF8.self)
        XCTAssertTrue(text.contains("host:\(host.uuidString.lowercased())"), text)
        XCTAssertEqual(try ShelfJSON.decoder().decode(Identity.self, from: encoded), identity)
        XCTAssertEqual(try ShelfJSON.decoder().decode(Identity.self, from: Data("{}".utf8)).onlyTo, [])
        XCTAssertEqual(KeyDestination(text: ""), .other("invalid"), "an empty entry still binds (to nothing)")
    }

    func testGroupsBringTheirSubgroupsHosts() {
        let prod = HostGroup(name: "prod")
        let eu = HostGroup(name: "eu", parentID: prod.id)
        let hosts = [Host(name: "a", groupID: eu.id), Host(name: "b"), Host(name: "c", groupID: prod.id)]
        let named = KeyDestination.hosts([.group(prod.id), .other("x")], among: hosts, groups: [prod, eu])
        XCTAssertEqual(named.map(\.name), ["a", "c"])
        XCTAssertEqual(KeyDestination.hosts([.host(hosts[1].id)], among: hosts, groups: []).map(\.name), ["b"])
    }

    func testBindingsAreStoredAndAnOlderCopyInExtraMovesIntoTheColumn() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let kept = UUID()
        let host = UUID()
        do {
            let old = try Store(path: path, migrateTo: 11)  // the step before identityDestinations
            // As a version without the column stored an identity that came by sync from a newer device.
            try old.db.run(
                "INSERT INTO identities(id, name, extra) VALUES (?, 'synced', ?)",
                [
                    .text(kept.storeText),
                    .text(#"{"onlyTo":["host:\#(host.uuidString)",7,"later:form"],"future":"kept"}"#),
                ])
        }
        let store = try Store(path: path)
        let migrated = try XCTUnwrap(try store.identities().first { $0.id == kept })
        XCTAssertEqual(migrated.onlyTo, [.host(host), .other("invalid"), .other("later:form")])
        XCTAssertEqual(migrated.extra, ["future": .string("kept")])

        var edited = migrated
        edited.onlyTo = [.group(host)]
        try store.write { try $0.save(edited) }
        XCTAssertEqual(try XCTUnwrap(try Store(path: path).identities().first { $0.id == kept }).onlyTo, [.group(host)])
    }
}

// PostQuantumStoreTests: the `pq` setting through JSON (sync's shape: left out when off, so an older body is
// unchanged) and SQLite (a host's column, a group's `extra`), the migration that moves a host's setting out of the
// unknown fields a newer device's sync left there, and a value this version does not know read as requiring.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class PostQuantumStoreTests: XCTestCase {
    func testTheSettingRoundTripsAndAnUnknownValueRequires() throws {
        let stamp = Date(timeIntervalSince1970: 1_700_000_000)
        let host = Host(
            name: "web", createdAt: stamp, updatedAt: stamp, pq: .require, extra: ["future": .string("kept")])
        let encoded = String(decoding: try ShelfJSON.encoder().encode(host), as: UTF8.self)
        XCTAssertTrue(encoded.contains(#""pq":"require""#), encoded)
        XCTAssertEqual(try ShelfJSON.decoder().decode(Host.self, from: Data(encoded.utf8)), host)
        let off = String(decoding: try ShelfJSON.encoder().encode(Host(name: "web")), as: UTF8.self)
        XCTAssertFalse(off.contains("pq"), "off leaves the body as it always was: \(off)")
        XCTAssertEqual(try ShelfJSON.decoder().decode(Host.self, from: Data("{}".utf8)).pq, .off)
        XCTAssertTrue(PostQuantumSetting(rawValue: "prefer-later").requires, "never weakened by being misread")

        let prod = HostGroup(name: "prod", pq: .require)
        let eu = HostGroup(name: "eu", parentID: prod.id)
        let groups = [prod.id: prod, eu.id: eu]
        XCTAssertTrue(PostQuantumSetting.required(Host(name: "a", groupID: eu.id), groups: groups))
        XCTAssertFalse(PostQuantumSetting.required(Host(name: "b"), groups: groups))
        XCTAssertEqual(PostQuantumSetting.source(Host(name: "c", groupID: eu.id), groups: groups), .group(prod))
    }

    func testStoredAndAnOlderCopyInExtraMovesIntoTheColumn() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let synced = UUID()
        do {
            // Schema 15 (matchDefaults) is the step before postQuantumSetting; a schema's number never changes.
            let old = try Store(path: path, migrateTo: 15)
            // As a version without the column stored a host that came by sync from a newer device.
            try old.db.run(
                "INSERT INTO hosts(id, name, hostname, extra) VALUES (?, 'synced', 's.example', ?)",
                [.text(synced.storeText), .text(#"{"pq":"require","future":"kept"}"#)])
        }
        let store = try Store(path: path)
        let migrated = try XCTUnwrap(try store.host(id: synced))
        XCTAssertEqual(migrated.pq, .require)
        XCTAssertEqual(migrated.extra, ["future": .string("kept")])
        XCTAssertEqual(try store.db.query("SELECT pq FROM hosts") { $0.text(0) }, ["require"])
        // The catalog the TUI reads carries it too (a form saved from it keeps it).
        XCTAssertEqual(try store.hostTable(useCache: false).host(at: 0).pq, .require)

        let group = HostGroup(name: "prod", pq: .require)
        try store.write { try $0.save(group) }
        XCTAssertEqual(try Store(path: path).groups().first { $0.id == group.id }?.pq, .require)
        var off = migrated
        off.pq = .off
        try store.write { try $0.save(off) }
        XCTAssertEqual(try Store(path: path).host(id: synced)?.pq, .off)
    }
}

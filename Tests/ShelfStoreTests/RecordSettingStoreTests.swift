// RecordSettingStoreTests: a host's and a group's record setting through JSON (its own sync field group), SQLite and
// the catalog (what the TUI edits, so an edit there keeps it); and the migration that moves it out of the unknown
// fields of a host synced from a newer device.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class RecordSettingStoreTests: XCTestCase {
    func testTheSettingRoundTripsThroughJSONTheStoreAndTheCatalog() throws {
        let group = HostGroup(name: "prod", record: .ask)
        let host = ShelfCore.Host(
            name: "web1", hostname: "10.0.0.1", groupID: group.id,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000), record: .on)
        XCTAssertEqual(
            try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: try ShelfJSON.encoder().encode(host)), host)
        XCTAssertNil(try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: Data("{}".utf8)).record)
        let body = try JSONDecoder().decode([String: JSONValue].self, from: try ShelfJSON.encoder().encode(host))
        XCTAssertEqual(FieldGroups.fields(of: "record", kind: .host, in: body), ["record": .string("on")])
        XCTAssertNil(FieldGroups.fields(of: FieldGroups.extra, kind: .host, in: body)["record"])
        let groupBody = try JSONDecoder().decode(
            [String: JSONValue].self, from: try ShelfJSON.encoder().encode(group))
        XCTAssertEqual(FieldGroups.fields(of: "record", kind: .group, in: groupBody), ["record": .string("ask")])

        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        let plain = ShelfCore.Host(name: "db", hostname: "10.0.0.2")
        try store.write { store in
            try store.save(group)
            try store.save(host)
            try store.save(plain)
        }
        XCTAssertEqual(try store.host(id: host.id)?.record, .on)
        XCTAssertNil(try store.host(id: plain.id)?.record)
        XCTAssertEqual(try store.groups().first?.record, .ask)
        XCTAssertEqual(try store.groups().first?.extra, [:], "kept in extra in the file, not in the model's extra")
        let table = try store.hostTable()
        let row = try XCTUnwrap(table.index(of: host.id))
        XCTAssertEqual(table.host(at: row).record, .on, "the catalog (what the TUI edits) keeps it")
        XCTAssertEqual(table.host(at: row).extra, [:])
        XCTAssertNil(table.host(at: try XCTUnwrap(table.index(of: plain.id))).record)
        XCTAssertEqual(try store.cachedHostTable()?.host(at: row).record, .on, "and so does its cache file")
        XCTAssertEqual(
            RecordSetting.effective(host: plain, groups: [:]), .off, "no setting anywhere: off")
        var inGroup = plain
        inGroup.groupID = group.id
        XCTAssertEqual(RecordSetting.effective(host: inGroup, groups: [group.id: group]), .ask)
    }

    func testAnOlderCopyInExtraMovesIntoTheColumn() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let kept = UUID()
        do {
            // Schema 17 (snippets) is the step before recordSetting; a schema's number never changes.
            let older = try Store(path: path, migrateTo: 17)
            try older.db.run(
                "INSERT INTO hosts(id, name, hostname, extra) VALUES (?, 'synced', 's.example', ?)",
                [.text(kept.storeText), .text(#"{"future":"kept","record":"ask"}"#)])
        }
        let store = try Store(path: path)
        let migrated = try XCTUnwrap(try store.host(id: kept))
        XCTAssertEqual(migrated.record, .ask)
        XCTAssertEqual(migrated.extra, ["future": .string("kept")])
    }
}

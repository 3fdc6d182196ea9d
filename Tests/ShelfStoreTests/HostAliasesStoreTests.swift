// HostAliasesStoreTests: a host's aliases through JSON (sync's shape and its field group), SQLite, the catalog and its
// cache; found by alias ignoring case; and the migration that moves them out of the unknown fields of a host synced
// from a newer device (and marks older catalog caches stale).
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class HostAliasesStoreTests: XCTestCase {
    func testAliasesRoundTripThroughJSONTheStoreAndTheCatalog() throws {
        let host = ShelfCore.Host(
            name: "web1", hostname: "10.0.0.1", createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000), aliases: ["web1.prod", "Zürich-w1"])
        XCTAssertEqual(
            try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: try ShelfJSON.encoder().encode(host)), host)
        XCTAssertEqual(try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: Data("{}".utf8)).aliases, [])
        let body = try XCTUnwrap(
            try JSONDecoder().decode([String: JSONValue].self, from: try ShelfJSON.encoder().encode(host)))
        XCTAssertEqual(
            FieldGroups.fields(of: "aliases", kind: .host, in: body),
            ["aliases": .array([.string("web1.prod"), .string("Zürich-w1")])],
            "the aliases sync as a field group of their own")
        XCTAssertNil(FieldGroups.fields(of: FieldGroups.extra, kind: .host, in: body)["aliases"])

        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        try store.write { store in
            try store.save(host)
            try store.save(ShelfCore.Host(name: "db", hostname: "10.0.0.2"))
        }
        XCTAssertEqual(try store.host(id: host.id)?.aliases, host.aliases)
        XCTAssertEqual(try store.hosts(aliased: "WEB1.PROD").map(\.id), [host.id], "ASCII case ignored")
        XCTAssertEqual(try store.hosts(aliased: "web1"), [], "a name is not an alias")
        XCTAssertEqual(try store.hosts(answeringTo: "web1").map(\.id), [host.id])
        let table = try store.hostTable()
        let row = try XCTUnwrap(table.index(of: host.id))
        XCTAssertEqual(table.host(at: row).aliases, host.aliases, "the catalog (what the TUI edits) keeps them")
        XCTAssertEqual(table.fields(row), ["web1", "10.0.0.1", ""], "displayed fields keep their layout")
        XCTAssertEqual(try store.cachedHostTable()?.host(at: row).aliases, host.aliases, "and so does its cache file")
        let matcher = HostMatcher(table: table, groupPaths: table.groupIDs.map { _ in "" })
        XCTAssertEqual(
            matcher.search(HostQuery("zurich"), in: (0..<Int32(table.count)).map { $0 }).map { table.name(Int($0)) },
            ["web1"])
    }

    func testAnOlderCopyInExtraMovesIntoTheColumnAndOldCachesAreStale() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let kept = UUID()
        var tokenBefore: [UInt8]?
        do {
            let older = try Store(path: path, migrateTo: 10)  // the step before hostAliases
            try older.db.run(
                "INSERT INTO hosts(id, name, hostname, extra) VALUES (?, 'synced', 's.example', ?)",
                [.text(kept.storeText), .text(#"{"future":"kept","aliases":["s1","s.prod"]}"#)])
            tokenBefore = try older.catalogToken()
        }
        let store = try Store(path: path)
        let migrated = try XCTUnwrap(try store.host(id: kept))
        XCTAssertEqual(migrated.aliases, ["s1", "s.prod"])
        XCTAssertEqual(migrated.extra, ["future": .string("kept")])
        XCTAssertNotEqual(try store.catalogToken(), tokenBefore)
        XCTAssertEqual(try store.hosts(aliased: "s.prod").map(\.id), [kept])
    }
}

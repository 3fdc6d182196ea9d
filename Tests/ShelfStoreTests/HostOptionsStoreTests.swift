// HostOptionsStoreTests: a host's kept ssh_config options through JSON (sync's shape), SQLite and the catalog cache;
// the migration that moves them out of the unknown fields of a host synced from a newer device (and marks older
// catalog caches stale); the defaults blocks in order; and the one change hook, called after a write that changed a
// row and never after one that changed nothing or rolled back.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class HostOptionsStoreTests: XCTestCase {
    func testOptionsRoundTripThroughJSONTheStoreAndTheCatalog() throws {
        let host = ShelfCore.Host(
            name: "web", hostname: "w.example.com",
            options: ["ServerAliveInterval 15", "ProxyCommand sh -c \"nc %h %p\""],
            createdAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_000)
        )
        XCTAssertEqual(
            try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: try ShelfJSON.encoder().encode(host)), host)
        XCTAssertEqual(try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: Data("{}".utf8)).options, [])
        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        try store.write { try $0.save(host) }
        XCTAssertEqual(try store.host(id: host.id)?.options, host.options)
        XCTAssertEqual(
            try store.hostTable().host(at: 0).options, host.options, "the catalog (what the TUI edits) keeps them")
        XCTAssertEqual(try store.cachedHostTable()?.host(at: 0).options, host.options, "and so does its cache file")
    }

    func testAnOlderCopyInExtraMovesIntoTheColumnAndOldCachesAreStale() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let kept = UUID()
        var tokenBefore: [UInt8]?
        do {
            let v7 = try Store(path: path, migrateTo: 7)
            try v7.db.run(
                "INSERT INTO hosts(id, name, hostname, extra) VALUES (?, 'synced', 's.example', ?)",
                [.text(kept.storeText), .text(#"{"future":"kept","options":["Compression yes","SendEnv LANG"]}"#)])
            tokenBefore = try v7.catalogToken()
        }
        let store = try Store(path: path)
        let migrated = try XCTUnwrap(try store.host(id: kept))
        XCTAssertEqual(migrated.options, ["Compression yes", "SendEnv LANG"])
        XCTAssertEqual(migrated.extra, ["future": .string("kept")])
        XCTAssertNotEqual(try store.catalogToken(), tokenBefore)
    }

    func testDefaultsKeepTheirOrder() throws {
        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        let blocks = [
            OptionDefaults(pattern: "*.internal !bastion", options: ["Compression yes"]),
            OptionDefaults(pattern: "*", options: ["ServerAliveInterval 60", "SendEnv LANG"]),
        ]
        try store.write { try $0.setOptionDefaults(blocks) }
        XCTAssertEqual(try store.optionDefaults(), blocks)
        try store.write { try $0.setOptionDefaults(Array(blocks.reversed())) }
        XCTAssertEqual(try store.optionDefaults(), blocks.reversed())
    }

    func testTheChangeHookRunsAfterChangesOnly() throws {
        let home = TempHome()
        let store = try Store(path: home.sshelfHome + "/data/store.sqlite")
        var calls = 0
        store.afterChange = { _ in calls += 1 }
        try store.write { try $0.save(ShelfCore.Host(name: "a", hostname: "a.example")) }
        XCTAssertEqual(calls, 1)
        _ = try store.write { try $0.hosts() }
        XCTAssertEqual(calls, 1, "a write transaction that changed nothing")
        struct Abort: Error {}
        XCTAssertThrowsError(
            try store.write { store in
                try store.save(ShelfCore.Host(name: "b", hostname: "b.example"))
                throw Abort()
            })
        XCTAssertEqual(calls, 1, "a transaction rolled back")
        try store.bulkWrite { try $0.save(hosts: [ShelfCore.Host(name: "c", hostname: "c.example")]) }
        XCTAssertEqual(calls, 2, "a bulk write (an import) too")
        try store.write { store in
            try store.write { try $0.setOptionDefaults([OptionDefaults(pattern: "*", options: ["Compression yes"])]) }
        }
        XCTAssertEqual(calls, 3, "nested writes: once, after the outermost commit")
    }
}

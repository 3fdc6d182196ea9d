// IdentityAgentOptionsStoreTests: an identity's agent options (confirm each use, lifetime) through JSON (sync's shape)
// and SQLite, and the migration that moves them out of the unknown fields of an identity synced from a newer device.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class IdentityAgentOptionsStoreTests: XCTestCase {
    func testOptionsRoundTripThroughJSON() throws {
        let identity = Identity(
            name: "k", confirmEachUse: true, agentLifetime: 600,
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let encoded = try ShelfJSON.encoder().encode(identity)
        XCTAssertEqual(try ShelfJSON.decoder().decode(Identity.self, from: encoded), identity)
        let defaults = try ShelfJSON.decoder().decode(Identity.self, from: Data("{}".utf8))
        XCTAssertFalse(defaults.confirmEachUse)
        XCTAssertEqual(defaults.agentLifetime, 0)
    }

    func testOptionsAreStoredAndAnOlderCopyInExtraMovesIntoTheColumns() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let kept = UUID()
        do {
            let v5 = try Store(path: path, migrateTo: 5)
            // As a version without the columns stored an identity that came by sync from a newer device.
            try v5.db.run(
                "INSERT INTO identities(id, name, extra) VALUES (?, 'synced', ?)",
                [.text(kept.storeText), .text(#"{"agentLifetime":3600,"confirmEachUse":true,"future":"kept"}"#)])
        }
        let store = try Store(path: path)
        let migrated = try XCTUnwrap(try store.identities().first { $0.id == kept })
        XCTAssertTrue(migrated.confirmEachUse)
        XCTAssertEqual(migrated.agentLifetime, 3600)
        XCTAssertEqual(migrated.extra, ["future": .string("kept")])

        var edited = migrated
        edited.confirmEachUse = false
        edited.agentLifetime = 60
        try store.write { try $0.save(edited) }
        let reread = try XCTUnwrap(try Store(path: path).identities().first { $0.id == kept })
        XCTAssertFalse(reread.confirmEachUse)
        XCTAssertEqual(reread.agentLifetime, 60)
    }
}

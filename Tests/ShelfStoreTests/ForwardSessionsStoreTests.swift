// ForwardSessionsStoreTests: a rule's `sessions` through JSON (sync's shape) and SQLite, and the migration that moves
// a `sessions` kept among a rule's unknown fields (synced from a newer device) into its column, so it is neither
// lost nor encoded twice.
import Foundation
import ShelfCore
@testable import ShelfStore
import TestSupport
import XCTest

final class ForwardSessionsStoreTests: XCTestCase {
    func testSessionsRoundTripsThroughJSONWithUnknownFields() throws {
        let json = #"{"kind":"local","bindPort":9000,"targetHost":"h","targetPort":9000,"sessions":4,"future":[1]}"#
        let rule = try ShelfJSON.decoder().decode(PortForwardRule.self, from: Data(json.utf8))
        XCTAssertEqual(rule.sessions, 4)
        XCTAssertEqual(rule.extra, ["future": .array([.number(1)])])
        let encoded = String(decoding: try ShelfJSON.encoder().encode(rule), as: UTF8.self)
        XCTAssertEqual(encoded.components(separatedBy: "\"sessions\"").count - 1, 1, encoded)
        XCTAssertEqual(try ShelfJSON.decoder().decode(PortForwardRule.self, from: Data(encoded.utf8)), rule)
        XCTAssertEqual(try ShelfJSON.decoder().decode(PortForwardRule.self, from: Data("{}".utf8)).sessions, 1)

        // A stale copy in `extra` never comes back out next to the field.
        var stale = rule
        stale.extra["sessions"] = .number(2)
        let again = try ShelfJSON.decoder().decode(PortForwardRule.self, from: try ShelfJSON.encoder().encode(stale))
        XCTAssertEqual(again.sessions, 4)
    }

    func testSessionsIsStoredAndAnOlderCopyInExtraMovesIntoTheColumn() throws {
        let home = TempHome()
        let path = home.sshelfHome + "/data/store.sqlite"
        let kept = UUID()
        do {
            let v3 = try Store(path: path, migrateTo: 3)
            // As a version without the column stored a rule that came by sync from a newer device.
            try v3.db.run(
                "INSERT INTO forward_rules(id, kind, bind_port, target_host, target_port, extra) VALUES (?, 'local', "
                    + "9000, 'h', 9000, ?)",
                [.text(kept.storeText), .text(#"{"future":"kept","sessions":3}"#)])
        }
        let store = try Store(path: path)
        let migrated = try XCTUnwrap(try store.forwardRules().first { $0.id == kept })
        XCTAssertEqual(migrated.sessions, 3)
        XCTAssertEqual(migrated.extra, ["future": .string("kept")])

        let rule = PortForwardRule(kind: .dynamic, bindPort: 1080, sessions: 8)
        try store.write { try $0.save(rule) }
        XCTAssertEqual(try Store(path: path).forwardRules().first { $0.id == rule.id }?.sessions, 8)
    }
}

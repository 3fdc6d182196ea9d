// RecordTablePathsTests: the field table's fast paths give what the slow ones did — a stored property read where it
// lies in the record is the key path's value (and a property not stored in place falls back to the key path), and
// validation reports each field's problems in the table's order under the field's name.
import Foundation
@testable import ShelfCore
import XCTest

final class RecordTablePathsTests: XCTestCase {
    func testAPropertyReadInPlaceIsTheKeyPathsValue() {
        let host = ShelfCore.Host(
            name: "web1", hostname: "10.0.0.1", port: 2222, user: "deploy", groupID: UUID(), tags: ["a", "b"],
            jumpHostIDs: [UUID()], pinnedHostKey: PinnedHostKey(type: "ssh-ed25519", key: "AAAA"),
            options: ["ServerAliveInterval 30"], lastConnectedAt: Date(timeIntervalSince1970: 5), aliases: ["w1"],
            record: .ask, extra: ["future": .bool(true)])
        func same<Value: Equatable>(_ path: KeyPath<ShelfCore.Host, Value> & Sendable) {
            let property = StoredProperty(path)
            XCTAssertNotNil(property.offset, "\(path) is stored in place")
            XCTAssertEqual(property.value(in: host), host[keyPath: path], "\(path)")
        }
        same(\.id)
        same(\.name)
        same(\.aliases)
        same(\.port)
        same(\.groupID)
        same(\.pinnedHostKey)
        same(\.lastConnectedAt)
        same(\.record)
        same(\.extra)
        let computed = StoredProperty(\ShelfCore.Host.destination)
        XCTAssertNil(computed.offset, "a computed property has no place in the record")
        XCTAssertEqual(computed.value(in: host), "deploy@10.0.0.1:2222")
    }

    func testValidationReportsEachFieldsProblemsInTheTablesOrder() {
        let id = UUID()
        let host = ShelfCore.Host(
            id: id, name: " ", hostname: "-x", port: 0, user: "a b", tags: ["", "t t"], jumpHostIDs: [id],
            unresolvedJump: "a;b", options: [], notes: "bell \u{07}", aliases: ["", "x*"])
        let problems = Validation.problems(host)
        XCTAssertEqual(
            problems.map(\.field),
            ["name", "aliases", "aliases", "hostname", "port", "user", "tags", "tags", "jump", "jump", "notes"])
        XCTAssertEqual(problems.first?.message, "name is empty")
        XCTAssertEqual(problems.last?.message, "notes contains a control character (U+0007)")
        XCTAssertTrue(Validation.problems(ShelfCore.Host(name: "ok", hostname: "ok")).isEmpty)
    }
}

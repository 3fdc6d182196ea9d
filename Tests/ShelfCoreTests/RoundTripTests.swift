// Sync-shaped records: unknown enum values and unknown fields survive decode/encode; every field has a default.
import Foundation
import ShelfCore
import XCTest

final class RoundTripTests: XCTestCase {
    func testUnknownFieldsAndEnumValuesSurvive() throws {
        let id = UUID().uuidString.lowercased()
        let json = """
            {"id":"\(id)","name":"web","hostname":"w","authMethod":"fido2-magic","futureField":{"a":[1,true,null]},
             "tags":["x"],"port":2200}
            """
        let host = try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: Data(json.utf8))
        XCTAssertEqual(host.authMethod, .other("fido2-magic"))
        XCTAssertFalse(host.authMethod.isKnown)
        XCTAssertEqual(host.extra["futureField"], .object(["a": .array([.number(1), .bool(true), .null])]))
        let again = try JSONSerialization.jsonObject(with: try ShelfJSON.encoder().encode(host)) as? [String: Any]
        XCTAssertEqual(again?["authMethod"] as? String, "fido2-magic")
        XCTAssertNotNil(again?["futureField"])
        XCTAssertEqual(
            try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: try ShelfJSON.encoder().encode(host)), host)
    }

    func testEmptyRecordsDecodeWithDefaults() throws {
        let host = try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: Data("{}".utf8))
        XCTAssertEqual(host.port, 22)
        XCTAssertEqual(host.authMethod, .auto)
        XCTAssertEqual(host.tags, [])
        let rule = try ShelfJSON.decoder().decode(PortForwardRule.self, from: Data(#"{"kind":"teleport"}"#.utf8))
        XCTAssertEqual(rule.kind, .other("teleport"))
        XCTAssertEqual(rule.bindAddress, "127.0.0.1")
        XCTAssertTrue(rule.enabled)
        XCTAssertEqual(try ShelfJSON.decoder().decode(HostGroup.self, from: Data("{}".utf8)).parentID, nil)
        XCTAssertEqual(
            try ShelfJSON.decoder().decode(Identity.self, from: Data(#"{"keyType":"pq-kem"}"#.utf8)).keyType,
            .other("pq-kem"))
    }

    func testASecretInAReferenceFieldIsRejectedOnDecode() {
        let json = #"{"passwordRef":"hunter2"}"#
        XCTAssertThrowsError(try ShelfJSON.decoder().decode(ShelfCore.Host.self, from: Data(json.utf8)))
    }

    func testForwardSpecsParseAndPrint() throws {
        let l = try ForwardSpec.parse("8080:db.internal:5432", kind: .local)
        XCTAssertEqual(
            l,
            ForwardSpec(
                kind: .local, bindAddress: "127.0.0.1", bindPort: 8080, targetHost: "db.internal", targetPort: 5432))
        let v6 = try ForwardSpec.parse("[::1]:8080:[2001:db8::5]:80", kind: .remote)
        XCTAssertEqual(v6.bindAddress, "::1")
        XCTAssertEqual(v6.targetHost, "2001:db8::5")
        XCTAssertEqual(v6.description, "[::1]:8080:[2001:db8::5]:80")
        XCTAssertEqual(try ForwardSpec.parse("*:1080", kind: .dynamic).bindAddress, "*")
        XCTAssertEqual(try ForwardSpec.parse("1080", kind: .dynamic).description, "127.0.0.1:1080")
        XCTAssertEqual(try ForwardSpec.parseConfig(["0.0.0.0:80", "web:8080"], kind: .local).bindAddress, "0.0.0.0")
        for bad in ["", "80", "x:db:5432", "8080:db:0", "8080::5432", "70000:db:1", "[::1:8080:db:1", "1:2:3:4:5"] {
            XCTAssertThrowsError(try ForwardSpec.parse(bad, kind: .local), bad)
        }
        XCTAssertThrowsError(try ForwardSpec.parse("1080:x:1", kind: .dynamic))
    }

    func testDataLocations() {
        let xdg = DataLocations.resolve(environment: [
            "HOME": "/home/u", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "relative",
        ])
        XCTAssertEqual(xdg.store, "/d/sshelf/store.sqlite")
        XCTAssertEqual(xdg.deviceKey, "/home/u/.local/state/sshelf/device.key")
        XCTAssertEqual(xdg.configDirectory, "/home/u/.config/sshelf")
        let pinned = DataLocations.resolve(environment: ["HOME": "/home/u", "SSHELF_HOME": "/tmp/x/"])
        XCTAssertEqual(pinned.store, "/tmp/x/data/store.sqlite")
        XCTAssertEqual(pinned.vault, "/tmp/x/data/vault.sqlite")
        XCTAssertTrue(pinned.deviceKey.hasPrefix("/tmp/x/"))
        XCTAssertTrue(pinned.runtimeDirectory.hasPrefix("/tmp/x/"))
    }
}

final class DateFormatTests: XCTestCase {
    func testMillisecondsRoundTripExactly() {
        for seconds in [0.0, 1796003727.612, 1796003727.6119999, 1796003727.9996, -1.5, 951782400.001] {
            let text = ISO8601.format(Date(timeIntervalSince1970: seconds))
            XCTAssertEqual(ISO8601.format(ISO8601.parse(text)!), text, text)
        }
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: 1796003727.6119999)), "2026-11-30T01:55:27.612Z")
        XCTAssertEqual(ISO8601.parse("2026-11-30T01:55:27Z")?.timeIntervalSince1970, 1796003727)
        XCTAssertNil(ISO8601.parse("2026-11-30T01:55:27.xZ"))
    }
}

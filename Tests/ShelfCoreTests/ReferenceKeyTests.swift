// ReferenceKey: only reference strings can be stored in *Ref fields; anything else is rejected.
import Foundation
import ShelfCore
import XCTest

final class ReferenceKeyTests: XCTestCase {
    func testValidReferencesRoundTrip() throws {
        let id = UUID()
        for text in [
            "host.\(id.uuidString.lowercased()).password", "identity.\(id.uuidString.lowercased()).privkey",
            "identity.\(id.uuidString.lowercased()).passphrase", "host.\(id.uuidString.lowercased()).remember",
            "sync.key", "log.key",
            "sync.signing", "sync.\(id.uuidString.lowercased()).group", "sync.\(id.uuidString.lowercased()).epoch",
            "sync.\(id.uuidString.lowercased()).invite",
        ] {
            XCTAssertEqual(ReferenceKey(text)?.rawValue, text)
        }
        XCTAssertTrue(ReferenceKey("log.key")!.isDeviceSecret)
        XCTAssertTrue(ReferenceKey("sync.signing")!.isDeviceSecret)
        XCTAssertFalse(ReferenceKey.hostPassword(id).isDeviceSecret)
    }

    func testSecretsAndMalformedTextAreNotReferences() {
        let id = UUID().uuidString.lowercased()
        for text in [
            "hunter2", "", "host..password", "host.\(id).privkey", "identity.\(id).password",
            "host.\(id.uppercased()).password", "host.\(id).password.extra", "sync.\(id).key", "log.\(id).key",
            "log.password", "sync.password", "log.signing", "sync.group", "sync.\(id).signing", "log.\(id).group",
            "host.\(id).group", "identity.\(id).epoch",
            "host.\(id).password ", String(repeating: "a", count: 10_000), "-----BEGIN OPENSSH PRIVATE KEY-----",
        ] {
            XCTAssertNil(ReferenceKey(text), text)
        }
    }
}

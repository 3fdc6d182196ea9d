// ReferenceKey: only reference strings can be stored in *Ref fields; anything else is rejected.
import Foundation
import ShelfCore
import XCTest

final class ReferenceKeyTests: XCTestCase {
    func testValidReferencesRoundTrip() throws {
        let id = UUID()
        for text in ["host.\(id.uuidString.lowercased()).password", "identity.\(id.uuidString.lowercased()).privkey",
                     "identity.\(id.uuidString.lowercased()).passphrase", "host.\(id.uuidString.lowercased()).remember", "sync.key", "log.key"] {
            XCTAssertEqual(ReferenceKey(text)?.rawValue, text)
        }
    }

    func testSecretsAndMalformedTextAreNotReferences() {
        let id = UUID().uuidString.lowercased()
        for text in ["hunter2", "", "host..password", "host.\(id).privkey", "identity.\(id).password",
                     "host.\(id.uppercased()).password", "host.\(id).password.extra", "sync.\(id).key", "log.\(id).key",
                     "log.password", "sync.password",
                     "host.\(id).password ", String(repeating: "a", count: 10_000), "-----BEGIN OPENSSH PRIVATE KEY-----"] {
            XCTAssertNil(ReferenceKey(text), text)
        }
    }
}

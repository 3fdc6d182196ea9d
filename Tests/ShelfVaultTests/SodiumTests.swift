// Sodium: the library initialises and reports the version the vault format was written for.
import ShelfVault
import XCTest

final class SodiumTests: XCTestCase {
    func testLibsodiumInitialises() {
        XCTAssertTrue(Sodium.initialize())
        XCTAssertTrue(Sodium.version.hasPrefix("1.0."), Sodium.version)
    }
}

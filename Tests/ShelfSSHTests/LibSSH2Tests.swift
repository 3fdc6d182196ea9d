// LibSSH2: the library initialises and a session object can be created (crypto backend present).
import ShelfSSH
import XCTest

final class LibSSH2Tests: XCTestCase {
    func testSessionCanBeCreated() {
        XCTAssertTrue(LibSSH2.selfTest())
        XCTAssertTrue(LibSSH2.version.hasPrefix("1."), LibSSH2.version)
    }
}

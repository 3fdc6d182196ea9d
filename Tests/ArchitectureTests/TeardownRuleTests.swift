// TeardownRuleTests: tests clean up with TestSupport's `addTeardown`, never XCTest's `addTeardownBlock` directly —
// corelibs XCTest keeps every block (and the test case) until the process exits, so what a block captured (a world
// with its sshd, a home) outlived the test; `addTeardown` lets go of it once it ran.
import Foundation
import XCTest

final class TeardownRuleTests: XCTestCase {
    static let allowed = "Tests/TestSupport/Teardown.swift"

    func testNoTestAddsATeardownBlockDirectly() throws {
        let callers = try DeclaredToolsTests.testSources(
            using: "addTeardownBlock", except: Self.allowed, rule: Self.self)
        XCTAssertEqual(callers, [], "use addTeardown { … } (TestSupport), which lets go of what the block captured")
    }
}

// TeardownRuleTests: tests clean up with TestSupport's `addTeardown`, never XCTest's `addTeardownBlock` directly —
// corelibs XCTest keeps every block (and the test case) until the process exits, so what a block captured (a world
// with its sshd, a home) outlived the test; `addTeardown` lets go of it once it ran.
import Foundation
import XCTest

final class TeardownRuleTests: XCTestCase {
    static let allowed = "Tests/TestSupport/Teardown.swift"

    func testNoTestAddsATeardownBlockDirectly() throws {
        let sources = try DeclaredToolsTests.testSources()
        XCTAssertTrue(sources.contains { $0.path == Self.allowed }, "\(Self.allowed) was not read")
        let callers = sources.filter {
            $0.path != Self.allowed && $0.path != "Tests/ArchitectureTests/\(Self.self).swift"
        }
        .filter { $0.text.contains("addTeardownBlock") }.map(\.path)
        XCTAssertEqual(callers, [], "use addTeardown { … } (TestSupport), which lets go of what the block captured")
    }
}

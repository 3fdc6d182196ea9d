// SkipRuleTests: tests skip through TestSupport's `skipped(…)` / `skip(if:…)`, never XCTSkip directly — parallel
// swift test's report has no place for a skip, so a bare XCTSkip was counted by scripts/run-tests as a pass.
import Foundation
import XCTest

final class SkipRuleTests: XCTestCase {
    static let allowed = "Tests/TestSupport/Skipped.swift"

    func testNoTestSkipsWithXCTSkipDirectly() throws {
        let sources = try DeclaredToolsTests.testSources()
        XCTAssertTrue(sources.contains { $0.path == Self.allowed }, "\(Self.allowed) was not read")
        let callers = sources.filter {
            $0.path != Self.allowed && $0.path != "Tests/ArchitectureTests/\(Self.self).swift"
        }
        .filter { $0.text.contains("XCTSkip") }.map(\.path)
        XCTAssertEqual(callers, [], "throw skipped(\"why\") (TestSupport), which run-tests counts as a skip")
    }
}

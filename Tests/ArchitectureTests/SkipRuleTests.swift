// SkipRuleTests: tests skip through TestSupport's `skipped(…)` / `skip(if:…)`, never XCTSkip directly — parallel
// swift test's report has no place for a skip, so a bare XCTSkip was counted by scripts/run-tests as a pass.
import Foundation
import XCTest

final class SkipRuleTests: XCTestCase {
    static let allowed = "Tests/TestSupport/Skipped.swift"

    func testNoTestSkipsWithXCTSkipDirectly() throws {
        let callers = try DeclaredToolsTests.testSources(using: "XCTSkip", except: Self.allowed, rule: Self.self)
        XCTAssertEqual(callers, [], "throw skipped(\"why\") (TestSupport), which run-tests counts as a skip")
    }
}

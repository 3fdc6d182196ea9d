// DocSectionTests: the docs describe what exists. A to-do list in a doc ("Not done yet", "Planned", "TODO") goes
// stale the day its item is built — docs/FORWARDS.md listed `forward edit --sessions` and the TUI form's Sessions
// field as missing long after both existed (issue 39) — so no doc has one: what sshelf does not do, and will not do
// as it stands, is a known limit, under "Known limits", said as a fact about what exists.
import Foundation
import XCTest

final class DocSectionTests: XCTestCase {
    /// Headings (any level) that announce work to come rather than describe what is there.
    static let forbidden = ["not done yet", "not yet done", "todo", "to do", "planned", "future work", "roadmap"]

    func testNoDocHasAToDoSection() throws {
        let root = ImportRulesTests.root
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }
            .map { "docs/" + $0 }
        XCTAssertFalse(docs.isEmpty, "no docs found under \(root)/docs")
        var found: [String] = []
        for file in docs + ["README.md"] {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.hasPrefix("#") {
                let heading = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                if Self.forbidden.contains(where: { heading == $0 || heading.hasPrefix($0 + " ") }) {
                    found.append("\(file):\(number + 1): \(line)")
                }
            }
        }
        XCTAssertEqual(
            found, [],
            "a doc lists work to come; describe what exists, and put what it cannot do under \"Known limits\"")
    }
}

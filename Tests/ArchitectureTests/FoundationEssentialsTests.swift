// FoundationEssentialsTests: the shipped code imports FoundationEssentials, never the whole of Foundation — one
// `import Foundation` links FoundationInternationalization and ICU's 34 MB of data into the binary again
// (docs/PERFORMANCE.md, "Binary size"). Tests may use all of Foundation.
import Foundation
import XCTest

final class FoundationEssentialsTests: XCTestCase {
    func testNoSourceFileImportsTheWholeOfFoundation() throws {
        let sources = ImportRulesTests.root + "/Sources"
        let banned: Set<String> = [
            "Foundation", "FoundationInternationalization", "FoundationNetworking", "FoundationXML",
        ]
        var offenders: [String] = []
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources))
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                let importing = words.first == "import" || words.first == "@_exported"
                if words.count >= 2, importing, banned.contains(String(words.last!)) {
                    offenders.append("\(file): \(line)")
                }
            }
        }
        XCTAssertGreaterThan(try FileManager.default.subpathsOfDirectory(atPath: sources).count, 100)
        XCTAssertEqual(offenders, [], "import FoundationEssentials (and the helpers in ShelfCore) instead")
    }
}

// ReleaseLogWriterTests: the release log has one writer — the vault's release call (ShelfVault/VaultRelease.swift).
// Every other file goes through `vault.release` or `vault.record`, so no caller hands out a secret whose line it
// forgot to write, and no face words a release line its own way.
import Foundation
import XCTest

final class ReleaseLogWriterTests: XCTestCase {
    static let writer = "Sources/ShelfVault/VaultRelease.swift"

    /// A call of ReleaseLog's `append(_:vault:)`, across lines: `log.append(entry, vault: vault)`.
    static let appendCall = try! NSRegularExpression(pattern: "\\.append\\(\\s*[^()]*?,\\s*vault:")

    func testOnlyTheReleaseCallAppendsToTheReleaseLog() throws {
        let root = ImportRulesTests.root
        var writers: [String] = []
        let files = FileManager.default.enumerator(atPath: root + "/Sources")?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/Sources/" + file, encoding: .utf8)
            if Self.appendCall.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                writers.append("Sources/" + file)
            }
        }
        XCTAssertEqual(writers, [Self.writer], "only the vault's release call may append to the release log")
    }

    /// The pattern finds the calls it is there to find (a test that cannot fail is a defect).
    func testThePatternFindsAnAppend() {
        let calls = [
            "try log.append(line, vault: vault)", "try ReleaseLog(locations: l).append(\n  entry,\n  vault: self)",
        ]
        for text in calls {
            XCTAssertNotNil(Self.appendCall.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), text)
        }
        let other = "entries.append(parsed.entry)"
        XCTAssertNil(Self.appendCall.firstMatch(in: other, range: NSRange(other.startIndex..., in: other)))
    }

    /// Every name a login gives the release log (`releasedBy: "files"`) is one `ReleaseEntry.by` says it may hold:
    /// the comment is what someone reading `sshelf log` goes by.
    func testEveryReleasingPartIsNamedWhereTheLogLineIsDescribed() throws {
        let root = ImportRulesTests.root
        let log = try String(contentsOfFile: root + "/Sources/ShelfVault/ReleaseLog.swift", encoding: .utf8)
        let comment = try XCTUnwrap(
            log.components(separatedBy: "public var by: String").first?.components(separatedBy: "public var item")
                .last)
        let argument = try NSRegularExpression(pattern: #"releasedBy:\s*([^,\n]*)"#)
        let literal = try NSRegularExpression(pattern: #""([a-z-]+)""#)
        var names: Set<String> = []
        for file in try VaultDoorTests.swiftFiles(under: "Sources") {
            for match in argument.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) {
                guard let range = Range(match.range(at: 1), in: file.text) else { continue }
                let expression = String(file.text[range])
                for name in literal.matches(in: expression, range: NSRange(expression.startIndex..., in: expression)) {
                    if let found = Range(name.range(at: 1), in: expression) { names.insert(String(expression[found])) }
                }
            }
        }
        XCTAssertTrue(names.isSuperset(of: ["files", "tui", "forward"]), "the search finds the names: \(names)")
        let missing = names.filter { !comment.contains($0) }.sorted()
        XCTAssertEqual(missing, [], "name them in ReleaseEntry.by's comment")
    }
}

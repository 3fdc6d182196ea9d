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
}

// FaceNeutralHintTests: a flag of one command line is the CLI's to name. Below the faces (operations, vault, sync,
// SSH) and in the TUI, no string names --passphrase-fd or --allow-duplicate, and no hint names --force or --yes:
// those layers say what is needed (PassphraseNeed for the vault passphrase) and each face words it
// (ShelfCLI/CLIErrorHints.swift, ShelfTUIApp/TUIErrorLine.swift). Comments may name them.
import Foundation
import XCTest

final class FaceNeutralHintTests: XCTestCase {
    /// The CLI layer: where a command line's flags are named.
    static let cliLayer = ["Sources/ShelfCLI/"]
    static let anywhere = ["--passphrase-fd", "--allow-duplicate"]
    static let inHints = ["--force", "--yes"]

    /// The lines of `text` outside comments that name a CLI-only flag.
    static func offending(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            let code = line.components(separatedBy: "//").first ?? ""
            guard code.contains("\"") else { return false }
            return anywhere.contains { code.contains($0) }
                || (code.lowercased().contains("hint") && inHints.contains { code.contains($0) })
        }
    }

    func testNoCLIOnlyFlagBelowTheCLI() throws {
        let root = ImportRulesTests.root
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: root + "/Sources")?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let path = "Sources/" + file
            guard !Self.cliLayer.contains(where: { path.hasPrefix($0) }) else { continue }
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            found += Self.offending(text).map { "\(path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        XCTAssertEqual(found, [], "say what is needed (PassphraseNeed) and let each face word it")
    }

    /// The check finds what it is there to find (a test that cannot fail is a defect).
    func testTheCheckFindsAFlagInAHint() {
        XCTAssertEqual(Self.offending("hint: \"run it with --passphrase-fd N\")").count, 1)
        XCTAssertEqual(Self.offending("    hint: \"remove it anyway with --force\"").count, 1)
        XCTAssertEqual(Self.offending("// --passphrase-fd in a comment").count, 0)
        XCTAssertEqual(Self.offending("\"git push --force --all origin\"").count, 0)
    }
}

// LintTests: `make lint` (scripts/style lint) catches what it is there for — a file `make format` would change and a
// line over 120 columns that the formatter cannot break, each named as file:line — passes a clean file (columns
// counted in characters, not bytes), and fails, saying why, where the toolchain has no swift-format.
import Foundation
import XCTest

final class LintTests: XCTestCase {
    static let script = ImportRulesTests.root + "/scripts/style"

    /// `scripts/style lint` on files written into a scratch folder (with `swift`: as SWIFT, the swift it runs): its
    /// exit status and what it printed.
    func lint(_ files: [String: String], swift: String? = nil) throws -> (status: Int32, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sshelf-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = ["lint"] + files.keys.sorted().map { folder.appendingPathComponent($0).path }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT"] = swift ?? environment["SWIFT"]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }

    /// Its first line is 120 columns and 354 bytes (an em dash is three): within the width, counted in characters.
    static let clean = "// " + String(repeating: "—", count: 117) + "\nlet greeting = \"hello\"\n"

    func testACleanFilePasses() throws {
        XCTAssertEqual(Self.clean.split(separator: "\n").first?.count, 120)
        XCTAssertGreaterThan(Self.clean.split(separator: "\n").first?.utf8.count ?? 0, 120)
        let result = try lint(["Clean.swift": Self.clean])
        XCTAssertEqual(result.status, 0, result.output)
    }

    func testAMisformattedFileIsNamedWithItsLines() throws {
        let result = try lint(["Clean.swift": Self.clean, "Misformatted.swift": "func f( a:Int ) {\nreturn\n}\n"])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("Misformatted.swift:1:"), result.output)
        XCTAssertTrue(result.output.contains("Misformatted.swift:2:"), result.output)
        XCTAssertTrue(result.output.contains("run 'make format'"), result.output)
        XCTAssertFalse(result.output.contains("Clean.swift"), result.output)
    }

    /// A string literal the formatter cannot break, in a file otherwise as `make format` leaves it.
    func testALineOverTheWidthIsNamedWithItsColumns() throws {
        let literal = String(repeating: "word ", count: 24)
        let wide = "// A long literal.\nlet text = \"\(literal)\"\n"
        let result = try lint(["Clean.swift": Self.clean, "Wide.swift": wide])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("Wide.swift:2: \(literal.count + 13) columns, over 120"), result.output)
        XCTAssertFalse(result.output.contains("Clean.swift"), result.output)
    }

    func testAToolchainWithoutSwiftFormatFailsSayingSo() throws {
        let result = try lint(["Clean.swift": Self.clean], swift: "/nonexistent/swift")
        XCTAssertEqual(result.status, 2, result.output)
        XCTAssertTrue(result.output.contains("lacks swift-format"), result.output)
    }
}

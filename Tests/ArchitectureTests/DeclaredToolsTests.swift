// DeclaredToolsTests: every program a test runs is declared in TestSupport's table (TestTools.swift) with its Debian
// package, every such package is one `make test` installs (the Makefile's TEST_DEBS), and the tests launch programs
// only through that table — so a program installed by hand on one machine cannot hide a missing install step.
import Foundation
import XCTest

final class DeclaredToolsTests: XCTestCase {
    static let root = ImportRulesTests.root
    static let tableFile = "Tests/TestSupport/TestTools.swift"

    /// The table's rows: program name and Debian package (nil for the Swift toolchain).
    static func table() throws -> [(program: String, package: String?)] {
        let text = try String(contentsOfFile: root + "/" + tableFile, encoding: .utf8)
        let row = try NSRegularExpression(pattern: #"TestTool\("([^"]+)", package: (?:"([^"]+)"|nil)\)"#)
        return row.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            let program = String(text[Range(match.range(at: 1), in: text)!])
            let package = Range(match.range(at: 2), in: text).map { String(text[$0]) }
            return (program, package)
        }
    }

    /// The packages `make test` installs: TEST_DEBS with its `$(RUN_DEBS)` expanded.
    static func testPackages() throws -> Set<String> {
        let makefile = try String(contentsOfFile: root + "/Makefile", encoding: .utf8)
            .replacingOccurrences(of: "\\\n", with: " ")
        var variables: [String: [String]] = [:]
        for line in makefile.split(separator: "\n") {
            guard let assignment = line.range(of: ":=") else { continue }
            let name = line[..<assignment.lowerBound].trimmingCharacters(in: .whitespaces)
            variables[name] = line[assignment.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\t" })
                .map(String.init)
        }
        return Set(
            (variables["TEST_DEBS"] ?? []).flatMap { word -> [String] in
                if word.hasPrefix("$("), word.hasSuffix(")") {
                    return variables[String(word.dropFirst(2).dropLast())] ?? []
                }
                return [word]
            })
    }

    /// Every Swift file under Tests/, as (path relative to the root, text).
    static func testSources() throws -> [(path: String, text: String)] {
        let tests = root + "/Tests"
        let files = FileManager.default.enumerator(atPath: tests)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.sorted().map {
            ("Tests/" + $0, try String(contentsOfFile: tests + "/" + $0, encoding: .utf8))
        }
    }

    /// The test files other than `allowed` (which must have been read) and the rule's own test `rule` whose text
    /// contains `word`: what a rule that only one helper may use something finds breaking it.
    static func testSources(using word: String, except allowed: String, rule: AnyClass) throws -> [String] {
        let sources = try testSources()
        XCTAssertTrue(sources.contains { $0.path == allowed }, "\(allowed) was not read")
        return sources.filter { $0.path != allowed && $0.path != "Tests/ArchitectureTests/\(rule).swift" }
            .filter { $0.text.contains(word) }.map(\.path)
    }

    func testTheTableIsReadable() throws {
        let table = try Self.table()
        XCTAssertGreaterThan(table.count, 10, "the table in \(Self.tableFile) was not read")
        XCTAssertTrue(table.contains { $0.program == "sshd" && $0.package == "openssh-server" })
    }

    func testEveryDeclaredPackageIsInstalledByMakeTest() throws {
        let packages = try Self.testPackages()
        XCTAssertTrue(packages.contains("openssh-server"), "TEST_DEBS was not read from the Makefile")
        for (program, package) in try Self.table() {
            guard let package else { continue }
            XCTAssertTrue(
                packages.contains(package),
                "\(program) comes from the Debian package \(package), which the Makefile's TEST_DEBS lacks")
        }
    }

    /// Run after `make test-deps`: a declared program that is missing means the table names the wrong package.
    func testEveryDeclaredProgramIsInstalled() throws {
        for (program, package) in try Self.table() {
            let folders =
                package == nil
                ? (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
                : ["/usr/bin", "/usr/sbin", "/bin", "/sbin"]
            XCTAssertTrue(
                folders.contains { FileManager.default.isExecutableFile(atPath: $0 + "/" + program) },
                "\(program) is not installed although \(package ?? "the toolchain") is declared for it")
        }
    }

    /// A program path written into a test (`"/usr/bin/rsync"`) bypasses the table; so does a Process launched
    /// outside TestSupport on anything but the table's programs or the binary under test (`…/bin/sshelf`, wherever a
    /// test puts a copy of it).
    func testTestsLaunchProgramsOnlyThroughTheTable() throws {
        let literalPath = try NSRegularExpression(pattern: #""/(usr/)?s?bin/(?!sshelf")[A-Za-z0-9._+-]+"#)
        var found: [String] = []
        // TestSupport is the helper that launches them (its Shell and SpawnedProcess take the table's paths).
        for (path, text) in try Self.testSources()
        where !path.hasPrefix("Tests/TestSupport/") && !path.hasPrefix("Tests/ArchitectureTests/") {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if literalPath.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(path):\(number + 1): a program path written out; use TestTool")
                }
                if line.contains("executableURL ="),
                    !(line.contains("TestTool.") || line.contains("binary") || line.contains("Binary"))
                {
                    found.append("\(path):\(number + 1): a Process on a program outside the table")
                }
            }
        }
        XCTAssertEqual(found, [], found.joined(separator: "\n"))
    }
}

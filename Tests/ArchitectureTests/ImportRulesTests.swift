// ImportRulesTests: docs/ARCHITECTURE.md's import-rules table is the law, and this test holds the package to
// it — each target declares in Package.swift exactly the modules the table gives it and imports every one of
// them (no unused or undocumented dependency), each C module belongs to exactly one Swift target, dependencies
// point one way (only to rows above), and tests import no C module and nothing they do not declare.
import Foundation
import XCTest

final class ImportRulesTests: XCTestCase {
    struct Rule {
        var target: String
        var modules: [String]
        var cModules: [String]
        var allowed: Set<String> { Set(modules + cModules) }
    }

    struct PackageTarget {
        var kind: String
        var name: String
        var path: String
        var dependencies: Set<String>
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The table between the import-rules markers of docs/ARCHITECTURE.md, in its order.
    static func rules() throws -> [Rule] {
        let text = try String(contentsOfFile: root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        guard let start = text.range(of: "<!-- import-rules:begin -->"),
            let end = text.range(of: "<!-- import-rules:end -->")
        else { throw RulesError("docs/ARCHITECTURE.md has no import-rules table") }
        var rules: [Rule] = []
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5, !cells[1].isEmpty, cells[1] != "target", !cells[1].hasPrefix("-") else { continue }
            func names(_ cell: String) -> [String] {
                cell.replacingOccurrences(of: "`", with: "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "—" }
            }
            rules.append(
                Rule(
                    target: cells[1].replacingOccurrences(of: "`", with: ""), modules: names(cells[2]),
                    cModules: names(cells[3])))
        }
        return rules
    }

    /// Targets as Package.swift declares them (each `.target(`, `.testTarget(`, … up to the next one).
    static func packageTargets() throws -> [PackageTarget] {
        let text = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        let kinds = ["systemLibrary", "executableTarget", "testTarget", "target"]
        let pattern = try NSRegularExpression(pattern: "\\.(\(kinds.joined(separator: "|")))\\(")
        let whole = NSRange(text.startIndex..., in: text)
        let starts = pattern.matches(in: text, range: whole)
        var targets: [PackageTarget] = []
        for (index, match) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].range.location : whole.length
            let chunk = (text as NSString).substring(
                with: NSRange(location: match.range.location, length: end - match.range.location))
            let kind = (text as NSString).substring(with: match.range(at: 1))
            func first(_ regex: String) -> String? {
                guard
                    let found = try? NSRegularExpression(pattern: regex, options: [.dotMatchesLineSeparators])
                        .firstMatch(in: chunk, range: NSRange(chunk.startIndex..., in: chunk))
                else { return nil }
                return (chunk as NSString).substring(with: found.range(at: 1))
            }
            guard let name = first("name:\\s*\"([^\"]+)\"") else { continue }
            let list = first("dependencies:\\s*\\[(.*?)\\]") ?? ""
            let dependencies = Set(
                list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }
                    .filter { !$0.isEmpty })
            targets.append(
                PackageTarget(
                    kind: kind, name: name, path: first("path:\\s*\"([^\"]+)\"") ?? "Sources/\(name)",
                    dependencies: dependencies))
        }
        return targets
    }

    /// Module names imported by the Swift files under `path`, with the file that imports each.
    static func imports(under path: String) -> [String: String] {
        var found: [String: String] = [:]
        let base = root + "/" + path
        guard let files = FileManager.default.enumerator(atPath: base) else { return [:] }
        for case let file as String in files where file.hasSuffix(".swift") {
            guard let text = try? String(contentsOfFile: base + "/" + file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                let start = words.first == "@testable" ? 1 : 0
                guard words.count > start + 1, words[start] == "import" else { continue }
                found[String(words[start + 1]), default: path + "/" + file] = path + "/" + file
            }
        }
        return found
    }

    struct RulesError: Error, CustomStringConvertible {
        var description: String
        init(_ text: String) { description = text }
    }

    func testEachTargetDeclaresAndImportsExactlyWhatTheTableAllows() throws {
        let rules = try Self.rules()
        let targets = try Self.packageTargets()
        let ours = Set(targets.map(\.name))
        let swiftTargets = targets.filter {
            ($0.kind == "target" || $0.kind == "executableTarget") && !$0.name.hasPrefix("C")
                && $0.name != "TestSupport"
        }
        XCTAssertFalse(rules.isEmpty)
        XCTAssertEqual(
            Set(rules.map(\.target)), Set(swiftTargets.map(\.name)), "every Swift target has one row, and no more")
        for target in swiftTargets {
            guard let rule = rules.first(where: { $0.target == target.name }) else { continue }
            XCTAssertEqual(
                target.dependencies, rule.allowed, "\(target.name): Package.swift dependencies differ from the table")
            let imported = Self.imports(under: target.path).filter { ours.contains($0.key) }
            for (module, file) in imported where !rule.allowed.contains(module) {
                XCTFail("\(file) imports \(module), which the table does not allow \(target.name)")
            }
            for module in rule.allowed where imported[module] == nil {
                XCTFail("\(target.name) declares \(module) but no file of it imports it")
            }
        }
    }

    func testEachCModuleHasOneOwnerAndDependenciesPointOneWay() throws {
        let rules = try Self.rules()
        let targets = try Self.packageTargets()
        let cModules = targets.filter { $0.kind == "systemLibrary" || ($0.kind == "target" && $0.name.hasPrefix("C")) }
            .map(\.name)
        XCTAssertFalse(cModules.isEmpty)
        for module in cModules {
            let owners = rules.filter { $0.cModules.contains(module) }.map(\.target)
            XCTAssertEqual(owners.count, 1, "\(module) must be imported by exactly one Swift target, not \(owners)")
        }
        for (index, rule) in rules.enumerated() {
            let above = Set(rules[..<index].map(\.target))
            for module in rule.modules where !above.contains(module) {
                XCTFail(
                    "\(rule.target) depends on \(module), which is not listed above it: dependencies must point one way"
                )
            }
        }
    }

    func testTestsImportNoCModuleAndOnlyWhatTheyDeclare() throws {
        let targets = try Self.packageTargets()
        let ours = Set(targets.map(\.name))
        let cModules = Set(
            targets.filter { $0.kind == "systemLibrary" || ($0.kind == "target" && $0.name.hasPrefix("C")) }.map(\.name)
        )
        for target in targets where target.kind == "testTarget" || target.name == "TestSupport" {
            for (module, file) in Self.imports(under: target.path) where ours.contains(module) {
                XCTAssertFalse(
                    cModules.contains(module),
                    "\(file) imports the C module \(module); tests go through the Swift wrappers")
                XCTAssertTrue(
                    target.dependencies.contains(module),
                    "\(file) imports \(module), which \(target.name) does not declare")
            }
        }
    }
}

// FaceRulesTests: the faces (docs/ARCHITECTURE.md's list between the faces markers: the command line, the TUI) never
// import one another, and no target below them imports a face or a module only the faces use (the face-modules list:
// the TUI's state and reducer, the terminal) — in the import-rules table, in Package.swift and in the files. What two
// faces share goes down a layer (ShelfOperations, ShelfServices), and what one face alone uses lives in it: a public
// type of ShelfServices that only one face names is a process or a file the services own (the one-face-services
// list), never that face's own code (its prompts, its printing). Only the executable, which wires the faces together,
// and the tests see them all.
import Foundation
import XCTest

final class FaceRulesTests: XCTestCase {
    /// The names in backquotes between `<!-- NAME:begin -->` and `<!-- NAME:end -->` of docs/ARCHITECTURE.md.
    static func marked(_ name: String) throws -> [String] {
        let text = try String(contentsOfFile: ImportRulesTests.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        guard let start = text.range(of: "<!-- \(name):begin -->"), let end = text.range(of: "<!-- \(name):end -->")
        else {
            throw ImportRulesTests.RulesError("docs/ARCHITECTURE.md has no \(name) list")
        }
        return text[start.upperBound..<end.lowerBound].split(separator: "`").enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The face targets named between the faces markers of docs/ARCHITECTURE.md.
    static func faces() throws -> [String] { try marked("faces") }

    /// One target's uses of faces it may not use: `uses` maps a module to where it is used (a file, the table,
    /// Package.swift). A face may use no other face; any other target (not the executable) no face at all.
    static func violations(target: String, uses: [String: String], faces: Set<String>) -> [String] {
        uses.filter { faces.contains($0.key) && $0.key != target }.sorted { $0.key < $1.key }.map { module, place in
            faces.contains(target)
                ? "\(place): the face \(target) uses the face \(module); move what they share into ShelfOperations "
                    + "or ShelfServices"
                : "\(place): \(target) is below the faces and uses the face \(module)"
        }
    }

    /// A target below the faces using a module only the faces use (`faceModules`).
    static func faceModuleViolations(target: String, uses: [String: String], faceModules: Set<String>) -> [String] {
        uses.filter { faceModules.contains($0.key) }.sorted { $0.key < $1.key }.map { module, place in
            "\(place): \(target) is below the faces and uses \(module), which only the faces use; move the type "
                + "both need down (into ShelfCore)"
        }
    }

    /// Where each module a library target uses is used: Package.swift, the import-rules table, its files.
    static func uses(of target: ImportRulesTests.PackageTarget, rules: [ImportRulesTests.Rule]) -> [String: String] {
        var uses: [String: String] = [:]
        for module in target.dependencies { uses[module] = "Package.swift" }
        for module in rules.first(where: { $0.target == target.name })?.modules ?? [] {
            uses[module] = "docs/ARCHITECTURE.md's import-rules table"
        }
        for (module, file) in ImportRulesTests.imports(under: target.path) { uses[module] = file }
        return uses
    }

    func testNoFaceImportsAnotherAndNothingBelowImportsAFace() throws {
        let faces = Set(try Self.faces())
        let targets = try ImportRulesTests.packageTargets()
        let rules = try ImportRulesTests.rules()
        XCTAssertGreaterThanOrEqual(faces.count, 2, "docs/ARCHITECTURE.md lists the faces")
        for face in faces {
            XCTAssertTrue(targets.contains { $0.name == face && $0.kind == "target" }, "\(face) is a library target")
        }
        var found: [String] = []
        for target in targets where target.kind == "target" && !target.name.hasPrefix("C") {
            found += Self.violations(target: target.name, uses: Self.uses(of: target, rules: rules), faces: faces)
        }
        XCTAssertEqual(found, [])
    }

    func testNothingBelowTheFacesUsesAModuleOnlyTheFacesUse() throws {
        let faces = Set(try Self.faces())
        let faceModules = Set(try Self.marked("face-modules"))
        let targets = try ImportRulesTests.packageTargets()
        let rules = try ImportRulesTests.rules()
        XCTAssertTrue(faceModules.contains("ShelfUI"), "docs/ARCHITECTURE.md lists the modules only the faces use")
        var found: [String] = []
        for target in targets where target.kind == "target" && !target.name.hasPrefix("C") {
            guard !faces.contains(target.name), !faceModules.contains(target.name), target.name != "TestSupport"
            else { continue }
            found += Self.faceModuleViolations(
                target: target.name, uses: Self.uses(of: target, rules: rules), faceModules: faceModules)
        }
        XCTAssertEqual(found, [])
    }

    /// The Swift files under `path` (relative to the root), each with its text.
    static func sources(under path: String) -> [(file: String, text: String)] {
        let base = ImportRulesTests.root + "/" + path
        let files = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".swift") }.sorted().compactMap { file in
            (try? String(contentsOfFile: base + "/" + file, encoding: .utf8)).map { (path + "/" + file, $0) }
        }
    }

    /// The public types a file declares at its top level (`public final class Name`, `public enum Name`, …).
    static func publicTypes(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("public ") else { return nil }
            var words = line.split(separator: " ")
            words.removeFirst()
            while let word = words.first, ["final", "indirect"].contains(word) { words.removeFirst() }
            guard words.count >= 2, ["class", "struct", "enum", "protocol", "actor"].contains(words[0]) else {
                return nil
            }
            let name = words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return name.isEmpty ? nil : String(name)
        }
    }

    /// Whether `text` names `word` as a whole identifier.
    static func names(_ word: String, in text: String) -> Bool {
        var rest = text[...]
        while let found = rest.range(of: word) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            func part(_ character: Character?) -> Bool {
                character.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false
            }
            if !part(before) && !part(after) { return true }
            rest = text[found.upperBound...]
        }
        return false
    }

    /// The public types of `shared` (name and file) that exactly one of `users` names, and no other file of `shared`
    /// nor any of `others`, leaving out `allowed`: what one face alone uses, kept below it.
    static func oneFaceTypes(
        shared: [(file: String, text: String)], users: [String: [(file: String, text: String)]],
        others: [(file: String, text: String)], allowed: Set<String>
    ) -> [String] {
        var found: [String] = []
        for source in shared {
            for name in publicTypes(in: source.text) where !allowed.contains(name) {
                let faces = users.filter { $0.value.contains { names(name, in: $0.text) } }.map(\.key)
                let elsewhere =
                    shared.contains { $0.file != source.file && names(name, in: $0.text) }
                    || others.contains { names(name, in: $0.text) }
                if faces.count == 1, !elsewhere {
                    found.append(
                        "\(source.file): \(name) is used by \(faces[0]) alone; move it into \(faces[0]) (or, if it "
                            + "is a process or file the services own, list it in docs/ARCHITECTURE.md's "
                            + "one-face-services)"
                    )
                }
            }
        }
        return found
    }

    func testWhatOneFaceAloneUsesIsNotInTheServices() throws {
        let faces = try Self.faces()
        let allowed = Set(try Self.marked("one-face-services"))
        let users = Dictionary(uniqueKeysWithValues: faces.map { ($0, Self.sources(under: "Sources/\($0)")) })
        let found = Self.oneFaceTypes(
            shared: Self.sources(under: "Sources/ShelfServices"), users: users,
            others: Self.sources(under: "Sources/sshelf"), allowed: allowed)
        XCTAssertEqual(found, [])
    }

    /// The checks find what they are there to find (a test that cannot fail is a defect).
    func testTheCheckFindsAFaceImportingAnotherFace() {
        let faces: Set = ["ShelfCLI", "ShelfTUIApp"]
        let tui = [
            "ShelfCLI": "Sources/ShelfTUIApp/TUILogin.swift", "ShelfServices": "Sources/ShelfTUIApp/TUIApp.swift",
        ]
        XCTAssertEqual(Self.violations(target: "ShelfTUIApp", uses: tui, faces: faces).count, 1)
        let below = ["ShelfTUIApp": "Package.swift"]
        XCTAssertEqual(Self.violations(target: "ShelfServices", uses: below, faces: faces).count, 1)
        XCTAssertEqual(Self.violations(target: "ShelfCLI", uses: ["ShelfServices": "Package.swift"], faces: faces), [])
        let services = ["ShelfUI": "Sources/ShelfServices/ConflictItems.swift", "ShelfCore": "Package.swift"]
        XCTAssertEqual(
            Self.faceModuleViolations(target: "ShelfServices", uses: services, faceModules: ["ShelfUI"]).count, 1)
    }

    func testTheCheckFindsATypeOneFaceAloneUses() {
        let shared = [
            (file: "Sources/ShelfServices/TerminalPrompts.swift", text: "public final class TerminalPrompts: X {}"),
            (file: "Sources/ShelfServices/Agent.swift", text: "public struct AgentState {}\npublic enum Kept {}"),
        ]
        let users = [
            "ShelfCLI": [(file: "a", text: "let p = TerminalPrompts(); AgentState(); Kept.x")],
            "ShelfTUIApp": [(file: "b", text: "AgentState(); let q = TerminalPromptsView()")],
        ]
        XCTAssertEqual(
            Self.oneFaceTypes(shared: shared, users: users, others: [], allowed: ["Kept"])
                .map { $0.components(separatedBy: " is used").first ?? "" },
            ["Sources/ShelfServices/TerminalPrompts.swift: TerminalPrompts"])
        let declared = "public final class A: B {\n  public struct Inner {}\npublic enum C<T> {"
        XCTAssertEqual(Self.publicTypes(in: declared), ["A", "C"], "top-level types only")
    }
}

// FaceRulesTests: the faces (docs/ARCHITECTURE.md's list between the faces markers: the command line, the TUI) never
// import one another, and no target below them imports a face — in the import-rules table, in Package.swift and in
// the files. What two faces share goes down a layer (ShelfOperations, ShelfServices); only the executable, which
// wires the faces together, and the tests see them all.
import Foundation
import XCTest

final class FaceRulesTests: XCTestCase {
    /// The face targets named between the faces markers of docs/ARCHITECTURE.md.
    static func faces() throws -> [String] {
        let text = try String(contentsOfFile: ImportRulesTests.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        guard let start = text.range(of: "<!-- faces:begin -->"), let end = text.range(of: "<!-- faces:end -->") else {
            throw ImportRulesTests.RulesError("docs/ARCHITECTURE.md has no faces list")
        }
        return text[start.upperBound..<end.lowerBound].split(separator: "`").enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

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
            var uses: [String: String] = [:]
            for module in target.dependencies { uses[module] = "Package.swift" }
            for module in rules.first(where: { $0.target == target.name })?.modules ?? [] {
                uses[module] = "docs/ARCHITECTURE.md's import-rules table"
            }
            for (module, file) in ImportRulesTests.imports(under: target.path) { uses[module] = file }
            found += Self.violations(target: target.name, uses: uses, faces: faces)
        }
        XCTAssertEqual(found, [])
    }

    /// The check finds what it is there to find (a test that cannot fail is a defect).
    func testTheCheckFindsAFaceImportingAnotherFace() {
        let faces: Set = ["ShelfCLI", "ShelfTUIApp"]
        let tui = [
            "ShelfCLI": "Sources/ShelfTUIApp/TUILogin.swift", "ShelfServices": "Sources/ShelfTUIApp/TUIApp.swift",
        ]
        XCTAssertEqual(Self.violations(target: "ShelfTUIApp", uses: tui, faces: faces).count, 1)
        let below = ["ShelfTUIApp": "Package.swift"]
        XCTAssertEqual(Self.violations(target: "ShelfServices", uses: below, faces: faces).count, 1)
        XCTAssertEqual(Self.violations(target: "ShelfCLI", uses: ["ShelfServices": "Package.swift"], faces: faces), [])
    }
}

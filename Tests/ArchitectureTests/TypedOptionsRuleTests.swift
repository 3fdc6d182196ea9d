// TypedOptionsRuleTests: a command reads its options through the typed keys it declares (`call[\.port]`, ShelfCLI's
// TypedOptions), never by a name in a string — a misspelt or undeclared option then fails to compile, and a bad
// value is refused once, by its kind, before the command runs. The files below still read by name (the
// connect-family commands, migrated next); the list only shrinks.
import Foundation
import XCTest

final class TypedOptionsRuleTests: XCTestCase {
    /// A look-up by name on a parsed command line: `call.value("port")`, `call.flag("json")`, `call.all("tag")`,
    /// `invocation.values["only"]`, `SecretInput(call, option: "passphrase-fd")`.
    static let byName = try! NSRegularExpression(
        pattern: #"\b(call|invocation|exec)\.(value|flag|all)\(\s*""#
            + #"|\b(call|invocation|exec)\.(values|flags)\[\s*""#
            + #"|SecretInput\(\s*(call|invocation)\s*,\s*option:"#)

    /// Files not migrated yet, each still reading its options by name.
    static let notYetMigrated: Set<String> = [
        "Sources/ShelfCLI/Commands/CACommands.swift",
        "Sources/ShelfCLI/Commands/CopyCommand.swift",
        "Sources/ShelfCLI/Commands/CopyIDCommand.swift",
        "Sources/ShelfCLI/Commands/FilesCommand.swift",
        "Sources/ShelfCLI/Commands/ForwardRunCommands.swift",
        "Sources/ShelfCLI/Commands/RecordChoice.swift",
        "Sources/ShelfCLI/Commands/RunCommand.swift",
        "Sources/ShelfCLI/Commands/RunCommandFleet.swift",
        "Sources/ShelfCLI/Commands/RunCommandSudo.swift",
        "Sources/ShelfCLI/Commands/SSHCommands.swift",
        "Sources/ShelfCLI/Commands/SnippetCommands.swift",
        "Sources/ShelfCLI/Commands/WarmCommands.swift",
    ]

    static func lookUps(_ text: String) -> Int {
        byName.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
    }

    func testNoCommandReadsAnOptionByName() throws {
        let files = try VaultDoorTests.swiftFiles(under: "Sources/ShelfCLI")
        let readers = Set(files.filter { Self.lookUps($0.text) > 0 }.map(\.path))
        XCTAssertEqual(
            readers.subtracting(Self.notYetMigrated).sorted(), [],
            "declare the option in the command's options struct and read it as call[\\.name] (docs/ARCHITECTURE.md, "
                + "\"Typed options\")")
        XCTAssertEqual(
            Self.notYetMigrated.subtracting(readers).sorted(), [],
            "migrated: take the file off TypedOptionsRuleTests.notYetMigrated")
    }

    /// The pattern finds what it is there to find (a rule that cannot fail is a defect).
    func testThePatternFindsTheOldWays() {
        for text in [
            #"if let port = call.value("port") {"#, #"if call.flag("json") {"#, #"for tag in call.all("tag") {"#,
            #"try call.values["only", default: []]"#, #"let input = try SecretInput(call, option: "passphrase-fd")"#,
            #"exec.values["tty"] = nil"#,
        ] {
            XCTAssertEqual(Self.lookUps(text), 1, text)
        }
        for text in [
            #"if let port = call[\.fields.port] {"#, #"SecretInput(call, \.passphraseFD)"#,
            #"SecretInput(fd: nil, option: "passphrase-fd")"#, #"call.argument(0)"#, #"call.arguments[0]"#,
        ] {
            XCTAssertEqual(Self.lookUps(text), 0, text)
        }
    }
}

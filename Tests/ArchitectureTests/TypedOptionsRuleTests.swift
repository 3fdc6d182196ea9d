// TypedOptionsRuleTests: a command reads its options through the typed keys it declares (`call[\.port]`, ShelfCLI's
// TypedOptions), never by a name in a string — a misspelt or undeclared option then fails to compile, and a bad
// value is refused once, by its kind, before the command runs.
import Foundation
import XCTest

final class TypedOptionsRuleTests: XCTestCase {
    /// A look-up by name on a parsed command line, whatever the variable: `call.value("port")`, `call.flag("json")`,
    /// `call.all("tag")`, `invocation.values["only"]`, `given.flags.contains("yes")`, `SecretInput(call, option:
    /// "passphrase-fd")`. (`OptionSpec.flag("help", …)` declares --help, the parser's own.)
    static let byName = try! NSRegularExpression(
        pattern: #"(?<!OptionSpec)\.(value|flag|all)\(\s*""#
            + #"|\.(values|flags)\[\s*""#
            + #"|\.flags\.contains\(\s*""#
            + #"|SecretInput\(\s*\w+\s*,\s*option:"#)

    static func lookUps(_ text: String) -> Int {
        byName.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
    }

    func testNoCommandReadsAnOptionByName() throws {
        let files = try VaultDoorTests.swiftFiles(under: "Sources/ShelfCLI")
        let readers = files.filter { Self.lookUps($0.text) > 0 }.map(\.path)
        XCTAssertEqual(
            readers, [],
            "declare the option in the command's options struct and read it as call[\\.name] (docs/ARCHITECTURE.md, "
                + "the command line)")
    }

    /// The pattern finds what it is there to find (a rule that cannot fail is a defect).
    func testThePatternFindsTheOldWays() {
        for text in [
            #"if let port = call.value("port") {"#, #"if call.flag("json") {"#, #"for tag in call.all("tag") {"#,
            #"try call.values["only", default: []]"#, #"let input = try SecretInput(call, option: "passphrase-fd")"#,
            #"exec.values["tty"] = nil"#, #"if given.flags.contains("yes") {"#, #"let v = parsed.value("x")"#,
        ] {
            XCTAssertEqual(Self.lookUps(text), 1, text)
        }
        for text in [
            #"if let port = call[\.fields.port] {"#, #"SecretInput(call, \.passphraseFD)"#,
            #"SecretInput(fd: nil, option: "passphrase-fd")"#, #"call.argument(0)"#, #"call.arguments[0]"#,
            #"static let globalHelp = OptionSpec.flag("help", short: "h", "show help for this command")"#,
            #"exec.values = given.values.filter { execOptions.contains($0.key) }"#,
        ] {
            XCTAssertEqual(Self.lookUps(text), 0, text)
        }
    }
}

// SnippetTemplateTests: a snippet's parameters read out of its command ({{name}}, {{name:default}}, \{{), filled in
// with values and defaults, and each mistake named with its place.
import ShelfCore
import XCTest

final class SnippetTemplateTests: XCTestCase {
    func testParametersAndDefaultsAreFilledIn() throws {
        let template = try SnippetTemplate("journalctl -u {{unit}} -n {{lines:100}} --since {{since:1 hour ago}}")
        XCTAssertEqual(template.parameters.map(\.name), ["unit", "lines", "since"])
        XCTAssertEqual(template.parameters.map(\.defaultValue), [nil, "100", "1 hour ago"])
        XCTAssertEqual(
            try template.filled(["unit": "nginx"]), "journalctl -u nginx -n 100 --since 1 hour ago")
        XCTAssertEqual(
            try template.filled(["unit": "ssh", "lines": "5"]), "journalctl -u ssh -n 5 --since 1 hour ago")
    }

    func testARepeatedParameterIsAskedOnceAndTakesItsFirstDefault() throws {
        let template = try SnippetTemplate("cp {{file}} {{file}}.bak && echo {{ dir : /tmp }}")
        XCTAssertEqual(template.parameters.map(\.name), ["file", "dir"])
        XCTAssertEqual(template.parameters[1].defaultValue, " /tmp ", "a default is kept as written")
        XCTAssertEqual(try template.filled(["file": "a.conf"]), "cp a.conf a.conf.bak && echo  /tmp ")
    }

    func testEscapedBracesAndADefaultWithAColon() throws {
        let template = try SnippetTemplate("docker ps --format '\\{{.Names}}' && curl {{url:http://localhost:8080}}")
        XCTAssertEqual(template.parameters.map(\.name), ["url"])
        XCTAssertEqual(try template.filled([:]), "docker ps --format '{{.Names}}' && curl http://localhost:8080")
        XCTAssertEqual(try SnippetTemplate("no parameters { here }").filled([:]), "no parameters { here }")
    }

    func testMistakesAreNamedWithTheirPlace() {
        func error(_ text: String) -> String {
            do {
                _ = try SnippetTemplate(text)
                return "no error"
            } catch { return error.description }
        }
        XCTAssertEqual(
            error("echo {{name"), "'{{' at character 6 is not closed with '}}' (write \\{{ for two literal braces)")
        XCTAssertTrue(
            error("docker ps --format '{{.Names}}'").contains(
                "'{{.Names}}' at character 21 is not a "
                    + "parameter: a name is a letter"), error("docker ps --format '{{.Names}}'"))
        XCTAssertTrue(error("echo {{}}").contains("the name is empty"))
        XCTAssertTrue(error("echo {{a {{b}}").contains("is not closed"))
    }

    func testFillingRefusesUnknownMissingAndControlValues() throws {
        let template = try SnippetTemplate("systemctl restart {{unit}}")
        func error(_ values: [String: String]) -> String {
            do {
                return try template.filled(values)
            } catch { return error.description }
        }
        XCTAssertEqual(error([:]), "no value for 'unit', which has no default")
        XCTAssertEqual(error(["unit": "a", "other": "b"]), "the snippet has no parameter 'other' (it has: unit)")
        XCTAssertEqual(error(["unit": "a\nreboot"]), "the value of 'unit' contains a control character (U+000A)")
    }

    func testSnippetValidation() {
        func messages(_ snippet: Snippet) -> [String] { Validation.problems(snippet).map(\.message) }
        XCTAssertEqual(messages(Snippet(name: "restart", command: "sudo systemctl restart {{unit:nginx}}")), [])
        XCTAssertEqual(
            messages(Snippet(name: "two words", command: "true")),
            ["snippet name 'two words' may hold only letters, digits, '-', '_' and '.' (not first: '-', '.')"])
        XCTAssertEqual(messages(Snippet(name: "x", command: "  ")), ["the snippet's command is empty"])
        let huge = String(repeating: "a", count: Validation.maxSnippetCommandLength + 1)
        XCTAssertTrue(messages(Snippet(name: "x", command: huge))[0].contains("over the limit of 16384"))
        XCTAssertEqual(
            messages(Snippet(name: "x", command: "printf '\u{1B}]52;c;AAAA\u{07}'")),
            ["the command contains a control character (U+001B)"])
        XCTAssertEqual(messages(Snippet(name: "x", command: "echo one\n\techo two")), [], "lines and tabs are fine")
    }
}

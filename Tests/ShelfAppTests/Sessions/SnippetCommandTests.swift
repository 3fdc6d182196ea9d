// SnippetCommandTests: `sshelf snippet add|list|show|edit|rm` through the real binary — parameters and defaults in
// list/show/--json, a name in use, and each bad input (unclosed {{, a bad name, a huge command, an unknown snippet)
// refused with its exit status and a message saying what to do, nothing saved.
import Foundation
import TestSupport
import XCTest

final class SnippetCommandTests: XCTestCase {
    func testAddListShowEditRemove() throws {
        let home = TempHome()
        let added = try home.run(
            "snippet", "add", "logs", "--tag", "debug", "--", "journalctl -u {{unit}} -n {{lines:100}} --no-pager")
        XCTAssertExit(added, 0)
        XCTAssertEqual(added.stdout, "saved snippet 'logs' (parameters: unit lines=100)\n")
        XCTAssertExit(try home.run("snippet", "add", "up", "--", "uptime"), 0)

        let list = try home.run("snippet", "list")
        XCTAssertExit(list, 0)
        XCTAssertTrue(list.stdout.contains("logs  unit lines=100  debug  journalctl -u {{unit}}"), list.stdout)
        XCTAssertTrue(
            list.stdout.split(separator: "\n").contains { $0.hasPrefix("up ") && $0.hasSuffix(" uptime") }, list.stdout)
        XCTAssertEqual(try home.run("snippet", "list", "--tag", "debug", "--names").stdout, "logs\n")

        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try home.run("snippet", "list", "--json").stdout.utf8))
                as? [[String: Any]])
        let logs = try XCTUnwrap(json.first { $0["name"] as? String == "logs" })
        XCTAssertEqual(logs["command"] as? String, "journalctl -u {{unit}} -n {{lines:100}} --no-pager")
        let parameters = try XCTUnwrap(logs["parameters"] as? [[String: Any]])
        XCTAssertEqual(parameters.map { $0["name"] as? String }, ["unit", "lines"])
        XCTAssertNil(parameters[0]["default"])
        XCTAssertEqual(parameters[1]["default"] as? String, "100")

        let show = try home.run("snippet", "show", "logs")
        XCTAssertExit(show, 0)
        XCTAssertTrue(
            show.stdout.contains("parameter:  unit (no default)\nparameter:  lines (default: 100)"), show.stdout)
        XCTAssertTrue(show.stdout.hasSuffix("command:\n  journalctl -u {{unit}} -n {{lines:100}} --no-pager\n"))

        XCTAssertExit(
            try home.run("snippet", "edit", "logs", "--name", "journal", "--untag", "debug", "--tag", "ops"), 0)
        XCTAssertExit(try home.run("snippet", "edit", "journal", "--", "journalctl -u {{unit:ssh}}"), 0)
        let edited = try home.run("snippet", "show", "journal")
        XCTAssertTrue(edited.stdout.contains("tags:       ops\nparameter:  unit (default: ssh)"), edited.stdout)

        XCTAssertExit(try home.run("snippet", "rm", "journal"), 0)
        XCTAssertEqual(try home.run("snippet", "list", "--names").stdout, "up\n")
    }

    func testBadInputIsRefusedWithWhatToDoAndNothingSaved() throws {
        let home = TempHome()
        func refused(_ arguments: [String], _ status: Int32, _ message: String, hint: String? = nil) throws {
            let result = try home.run(arguments)
            XCTAssertExit(result, status)
            XCTAssertTrue(result.stderr.contains("sshelf: error: " + message), result.stderr)
            if let hint { XCTAssertTrue(result.stderr.contains("sshelf: hint: " + hint), result.stderr) }
        }
        try refused(
            ["snippet", "add", "x", "--", "echo {{name"], 4,
            "'{{' at character 6 is not closed with '}}' (write \\{{ for two literal braces)")
        try refused(
            ["snippet", "add", "x", "--", "docker ps --format '{{.Names}}'"], 4,
            "'{{.Names}}' at character 21 is not a parameter: a name is a letter, then letters, digits, '_' or '-'")
        try refused(
            ["snippet", "add", "two words", "--", "true"], 4,
            "snippet name 'two words' may hold only letters, digits, '-', '_' and '.'")
        try refused(
            ["snippet", "add", "big", "--", String(repeating: "x", count: 20_000)], 4,
            "the snippet's command is 20000 bytes, over the limit of 16384")
        try refused(["snippet", "add", "x"], 2, "snippet add: missing CMD", hint: "usage: sshelf snippet add")
        try refused(["snippet", "add", "x", "--", ""], 2, "snippet add: missing the command")
        try refused(
            ["snippet", "add", "esc", "--", "printf '\u{1B}[2J'"], 4,
            "the command contains a control character (U+001B)")
        XCTAssertEqual(try home.run("snippet", "list", "--names").stdout, "", "nothing was saved")

        XCTAssertExit(try home.run("snippet", "add", "restart", "--", "systemctl restart {{unit}}"), 0)
        try refused(
            ["snippet", "add", "Restart", "--", "true"], 4, "a snippet named 'restart' exists already",
            hint: "pick another name, or change that one: sshelf snippet edit restart -- COMMAND")
        try refused(["snippet", "show", "restrat"], 3, "no snippet named 'restrat'", hint: "did you mean: restart?")
        try refused(["snippet", "edit", "restart"], 2, "snippet edit: nothing to change")
        try refused(
            ["snippet", "run", "restart", "web", "--param", "unit"], 2, "--param 'unit' has no '='",
            hint: "give it as --param NAME=VALUE")
        try refused(
            ["snippet", "run", "restart", "web"], 2, "snippet 'restart': no value for 'unit', which has no default",
            hint: "its parameters: unit; give each as --param NAME=VALUE")
        try refused(
            ["snippet", "run", "restart", "web", "--param", "unit=a", "--param", "other=b"], 2,
            "snippet 'restart': the snippet has no parameter 'other' (it has: unit)")
        XCTAssertEqual(try home.run("snippet", "show", "restart").stdout.contains("systemctl restart {{unit}}"), true)
    }
}

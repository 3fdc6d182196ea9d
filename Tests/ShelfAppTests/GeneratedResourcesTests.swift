// The man page and the shell completions in Resources/ are the program's own output for the current command
// table (regenerate with `make resources`), and each mentions every command and option.
import Foundation
import TestSupport
import XCTest

final class GeneratedResourcesTests: XCTestCase {
    var root: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    func testResourcesMatchTheCommandTable() throws {
        let home = TempHome()
        let files: [([String], String)] = [
            (["manpage"], "Resources/sshelf.1"),
            (["completions", "bash"], "Resources/completions/sshelf.bash"),
            (["completions", "zsh"], "Resources/completions/_sshelf"),
            (["completions", "fish"], "Resources/completions/sshelf.fish"),
        ]
        for (arguments, file) in files {
            let generated = try home.run(arguments)
            XCTAssertExit(generated, 0)
            let committed = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            XCTAssertEqual(committed, generated.stdout, "\(file) is stale: run `make resources`")
        }
    }

    func testManPageAndCompletionsCoverEveryOption() throws {
        let home = TempHome()
        let help = try home.run("add", "--help").stdout
        let options = help.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "--") else { return nil }
            return String(line[range.lowerBound...].prefix { !$0.isWhitespace })
        }
        XCTAssertTrue(options.contains("--jump"))
        let man = try home.run("manpage").stdout
        let bash = try home.run("completions", "bash").stdout
        for option in options where option != "--help" {
            XCTAssertTrue(man.contains(option.replacingOccurrences(of: "-", with: "\\-")), "man page lacks \(option)")
            XCTAssertTrue(bash.contains(option), "bash completion lacks \(option)")
        }
    }

    func testBashCompletionScriptIsValidBash() throws {
        let home = TempHome()
        let path = try home.write(try home.run("completions", "bash").stdout, to: "completion.bash")
        let process = Process()
        process.executableURL = TestTool.bash.url
        process.arguments = ["-n", path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }
}

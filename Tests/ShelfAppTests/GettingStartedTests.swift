// GettingStartedTests: `sshelf --help` opens with the getting-started block, and the README's first screen says the
// same five commands in the same order (after its opening `make run` and `make test`).
import Foundation
import TestSupport
import XCTest

final class GettingStartedTests: XCTestCase {
    var root: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    func testHelpOpensWithGettingStartedAndTheReadmeSaysTheSame() throws {
        let help = try TempHome().run("--help")
        XCTAssertExit(help, 0)
        let lines = help.stdout.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex(of: "getting started:"), help.stdout)
        XCTAssertLessThan(start, 8, "before the command list: \(help.stdout)")
        let block = lines[(start + 1)...].prefix { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
        let commands = block.map { $0.components(separatedBy: "   ")[0] }
        XCTAssertEqual(
            commands,
            [
                "sshelf import ssh-config --dry-run", "sshelf", "sshelf vault unlock", "sshelf ssh-config install",
                "sshelf service install",
            ])

        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8).components(separatedBy: "\n")
        XCTAssertEqual(
            readme[3],
            "make run    # installs the Debian packages it needs, builds, and starts sshelf on your local store")
        XCTAssertTrue(readme[4].hasPrefix("make test   # "), readme[4])
        let first = readme.prefix(40)
        for line in block {
            let parts = line.components(separatedBy: "   ")
            let words = parts.filter { !$0.isEmpty }
            let readmeLine =
                words[0].padding(toLength: 37, withPad: " ", startingAt: 0) + "# "
                + words[1]
                .trimmingCharacters(in: .whitespaces)
            XCTAssertTrue(first.contains(readmeLine), "README's first screen lacks: \(readmeLine)")
        }
    }
}

// ExitCodeTests: every exit code `sshelf --help` documents happens, each from a case the table describes, and the
// README's table is the same table. A code added to the list without a case here fails the test.
import Foundation
import TestSupport
import XCTest

final class ExitCodeTests: XCTestCase {
    var root: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    /// The exit codes and meanings `sshelf --help` prints.
    func documented(_ home: TempHome) throws -> [(Int32, String)] {
        let help = try home.run("--help").stdout
        let section = help.components(separatedBy: "\nexit codes:\n").last ?? ""
        return section.split(separator: "\n").compactMap { line in
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let code = Int32(parts[0]) else { return nil }
            return (code, parts[1].trimmingCharacters(in: .whitespaces))
        }
    }

    func testEveryDocumentedExitCodeHappens() throws {
        let home = TempHome()
        home.extraEnvironment = ["SSHELF_TEST_WEAK_KDF": "1"]
        XCTAssertExit(try home.run("add", "web", "--host", "web.example.com"), 0)
        XCTAssertExit(try home.run(["vault", "passwd", "--passphrase-fd", "3"], fd3: "right horse"), 0)
        let closed = try TrafficSocket.freePort()
        XCTAssertExit(try home.run("add", "nobody-home", "--host", "127.0.0.1", "--port", String(closed)), 0)

        let cases: [Int32: (String, () throws -> CLIResult)] = [
            0: ("success", { try home.run("list") }),
            1: (
                "a wrong vault passphrase",
                { try home.run(["vault", "unlock", "--passphrase-fd", "3"], fd3: "wrong horse") }
            ),
            2: ("an unknown command", { try home.run("lst") }),
            3: ("no such host", { try home.run("show", "nope") }),
            4: ("a port outside 1-65535", { try home.run("add", "x", "--host", "h", "--port", "70000") }),
            5: (
                "a damaged store",
                {
                    let damaged = TempHome()
                    XCTAssertExit(try damaged.run("add", "web", "--host", "h"), 0)
                    try Data(repeating: 0x41, count: 4096).write(
                        to: URL(fileURLWithPath: damaged.sshelfHome + "/data/store.sqlite"))
                    return try damaged.run("list")
                }
            ),
            255: ("a connection refused", { try home.run("exec", "nobody-home", "--no-stdin", "--", "true") }),
        ]
        let codes = try documented(home)
        XCTAssertEqual(codes.map(\.0), [0, 1, 2, 3, 4, 5, 255], "the documented codes")
        for (code, _) in codes {
            guard let (what, run) = cases[code] else {
                XCTFail("exit code \(code) is documented but no case here makes it happen")
                continue
            }
            let result = try run()
            XCTAssertEqual(result.status, code, "\(what): \(result)")
            if code != 0 { XCTAssertTrue(result.stderr.hasPrefix("sshelf: error: "), "\(what): \(result)") }
        }
    }

    func testTheReadmeTableIsTheDocumentedOne() throws {
        let home = TempHome()
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        guard let start = readme.range(of: "<!-- exit-codes:start -->\n"),
            let end = readme.range(of: "<!-- exit-codes:end -->")
        else { return XCTFail("README.md has no exit-codes table") }
        let rows = readme[start.upperBound..<end.lowerBound].split(separator: "\n").dropFirst(2).map(String.init)
        let expected = try documented(home).map { "| `\($0.0)` | \($0.1) |" }
        XCTAssertEqual(rows, expected, "README.md's exit code table differs from `sshelf --help`")
    }
}

// DidYouMeanTests: a mistyped command or option gets the closest real one as a hint, and the hint, followed, runs.
import Foundation
import TestSupport
import XCTest

final class DidYouMeanTests: XCTestCase {
    func testMistypedCommandsAndOptionsSuggestOnesThatWork() throws {
        let home = TempHome()
        XCTAssertExit(try home.run("add", "web", "--host", "web.example.com"), 0)
        let cases: [(typed: [String], suggestion: String, follow: [String])] = [
            (["lst"], "did you mean 'sshelf list'?", ["list"]),
            (["shwo", "web"], "did you mean 'sshelf show'?", ["show", "web"]),
            (["forwrd", "list"], "did you mean 'sshelf forward'?", ["forward", "list"]),
            (["forward", "lsit"], "did you mean 'sshelf forward list'?", ["forward", "list"]),
            (["vault", "inti"], "did you mean 'sshelf vault init'?", ["vault", "init"]),
            (["list", "--jsn"], "did you mean --json?", ["list", "--json"]),
            (["show", "web", "--josn"], "did you mean --json?", ["show", "web", "--json"]),
            (["edit", "web", "--name", "web2"], "did you mean --rename?", ["edit", "web", "--rename", "web2"]),
        ]
        for (typed, suggestion, follow) in cases {
            let result = try home.run(typed)
            XCTAssertExit(result, 2)
            XCTAssertTrue(result.stderr.contains("sshelf: hint: \(suggestion)"), "\(typed): \(result.stderr)")
            XCTAssertExit(try home.run(follow), 0)
        }
        // Nothing close: the pointer to the list of commands, not a wild guess.
        let far = try home.run("frobnicate")
        XCTAssertTrue(far.stderr.contains("sshelf: hint: run 'sshelf --help' for the list of commands"), far.stderr)
        XCTAssertTrue(try home.run("help", "forward").stdout.contains("forward start"))
    }
}

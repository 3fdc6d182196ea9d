// TypedEchoTests: the rule that decides which typed keys a recording keeps (TypedEcho). The canary: a password typed
// with echo off, as sudo reads it, whose next output begins with the same bytes (a program printing what it read) —
// the old rule (held until any output starting with them) kept it as typed input; the keys are typed one by one and
// none is echoed before the next, so none is kept. Echoed keys are kept, in pieces too; a late echo is not.
import Foundation
@testable import ShelfOperations
import XCTest

final class TypedEchoTests: XCTestCase {
    private func shown(_ echo: inout TypedEcho, _ text: String, at time: Double) -> String {
        let bytes = Array(text.utf8)
        return String(decoding: bytes.withUnsafeBytes { echo.shown($0, at: time) }, as: UTF8.self)
    }

    func testAKeyTypedWithEchoOffIsNotKeptWhenTheNextOutputStartsWithIt() {
        var echo = TypedEcho()
        var time = 10.0
        for key in "s3cret-canary" {
            echo.typed(Array(String(key).utf8), at: time)
            time += 0.05
        }
        echo.typed([0x0D], at: time)
        // The program behind the prompt prints what it read: the output starts with the typed bytes.
        XCTAssertEqual(shown(&echo, "s3cret-canary\r\n", at: time + 0.01), "", "a key not echoed is never kept")
    }

    func testEchoedKeysAreKeptAsTheyComeAndALateEchoIsNot() {
        var echo = TypedEcho()
        echo.typed(Array("l".utf8), at: 1)
        XCTAssertEqual(shown(&echo, "l", at: 1.02), "l")
        echo.typed(Array("s".utf8), at: 1.1)
        XCTAssertEqual(shown(&echo, "s", at: 1.12), "s")
        // A paste echoed in two pieces.
        echo.typed(Array("echo hi".utf8), at: 2)
        XCTAssertEqual(shown(&echo, "echo", at: 2.01), "echo")
        XCTAssertEqual(shown(&echo, " hi", at: 2.02), " hi")
        // Something else first: dropped.
        echo.typed(Array("x".utf8), at: 3)
        XCTAssertEqual(shown(&echo, "\u{1B}[0mx", at: 3.01), "")
        XCTAssertEqual(shown(&echo, "x", at: 3.02), "")
        // An echo later than the window: dropped.
        echo.typed(Array("y".utf8), at: 4)
        XCTAssertEqual(shown(&echo, "y", at: 4 + TypedEcho.window + 0.5), "")
    }
}

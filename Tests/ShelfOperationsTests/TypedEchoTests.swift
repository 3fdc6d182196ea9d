// TypedEchoTests: the rule that decides which typed keys a recording keeps (TypedEcho). The canary: a password typed
// with echo off, as sudo reads it, whose next output begins with the same bytes (a program printing what it read) —
// the old rule (held until any output starting with them) kept it as typed input; the keys are typed one by one and
// none is echoed before the next, so none is kept. The same password pasted with its Enter in one read, and a paste
// that runs on past a line end, are not kept either (no output can tell their echo from a program printing them).
// Echoed keys are kept, in pieces too; a late echo is not.
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

    func testAPasswordPastedWithItsEnterInOneReadIsNotKeptWhenTheNextOutputStartsWithIt() {
        var echo = TypedEcho()
        echo.typed(Array("s3cret-canary\r".utf8), at: 10)
        // Echo off, then the program prints what it read: the same bytes an echo would have shown.
        XCTAssertEqual(shown(&echo, "s3cret-canary\r\n", at: 10.01), "", "a pasted line is never kept")
        // A line pasted at the shell is left out the same way (its echo is in the output); an Enter alone is kept.
        echo.typed(Array("ls -l\r".utf8), at: 11)
        XCTAssertEqual(shown(&echo, "ls -l\r\n", at: 11.01), "")
        echo.typed([0x0D], at: 12)
        XCTAssertEqual(shown(&echo, "\r\n", at: 12.01), "\r")
    }

    func testAPasteRunningOnPastALineEndIsNotKept() {
        var echo = TypedEcho()
        // The first line turns echo off; the rest of the paste is the password its program reads.
        echo.typed(Array("sudo -k true\rs3cret-canary\r".utf8), at: 10)
        XCTAssertEqual(shown(&echo, "sudo -k true\r\ns3cret-canary\r\n", at: 10.01), "")
        // Two keys in one read, one of them ^D: left out too.
        echo.typed([UInt8(ascii: "x"), 0x04], at: 11)
        XCTAssertEqual(shown(&echo, "x", at: 11.01), "")
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

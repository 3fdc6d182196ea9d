// EscapeFilterTests: the `~.` escape is recognised only at the start of a line, `~~` sends one tilde, and a
// tilde elsewhere passes through — fed one byte at a time as well as in one piece.
@testable import ShelfSSH
import XCTest

final class EscapeFilterTests: XCTestCase {
    private func run(_ text: String, byteByByte: Bool) -> (String, Bool) {
        var filter = EscapeFilter(enabled: true)
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        let pieces = byteByByte ? bytes.map { [$0] } : [bytes]
        for piece in pieces {
            let (forward, disconnect) = filter.filter(piece[...])
            out += forward
            if disconnect { return (String(decoding: out, as: UTF8.self), true) }
        }
        return (String(decoding: out, as: UTF8.self), false)
    }

    func testEscapeRules() {
        for byteByByte in [false, true] {
            XCTAssertEqual(run("~.", byteByByte: byteByByte).1, true)
            XCTAssertEqual(run("ls\r~.", byteByByte: byteByByte).0, "ls\r")
            XCTAssertEqual(run("ls\r~.", byteByByte: byteByByte).1, true)
            XCTAssertEqual(run("a~.b", byteByByte: byteByByte).0, "a~.b")
            XCTAssertEqual(run("a~.b", byteByByte: byteByByte).1, false)
            XCTAssertEqual(run("\r~~x", byteByByte: byteByByte).0, "\r~x")
            XCTAssertEqual(run("\r~x", byteByByte: byteByByte).0, "\r~x")
        }
        var off = EscapeFilter(enabled: false)
        XCTAssertEqual(off.filter(Array("~.".utf8)[...]).1, false)
    }
}

// SocksParserTests: the SOCKS request parser fed one byte at a time and all at once — SOCKS5 CONNECT by IPv4,
// IPv6 and domain name, SOCKS4 and 4a, pipelined data kept as leftover, and every refusal: wrong version,
// unsupported command or address type, no acceptable method, oversized or malformed input.
import ShelfCore
import XCTest

final class SocksParserTests: XCTestCase {
    /// Feeds `bytes` one at a time, answering `.reply` like the engine does; returns the replies and the last step.
    private func byteAtATime(_ bytes: [UInt8]) -> (replies: [[UInt8]], step: SocksParser.Step, parser: SocksParser) {
        var parser = SocksParser()
        var replies: [[UInt8]] = []
        var last = SocksParser.Step.needMore
        for byte in bytes {
            last = parser.feed([byte])
            if case .reply(let reply) = last {
                replies.append(reply)
                last = parser.feed([UInt8]())
            }
            if case .connect = last { break }
            if case .refuse = last { break }
        }
        return (replies, last, parser)
    }

    private func allAtOnce(_ bytes: [UInt8]) -> SocksParser.Step {
        var parser = SocksParser()
        var step = parser.feed(bytes)
        if case .reply = step { step = parser.feed([UInt8]()) }
        return step
    }

    private let greeting: [UInt8] = [5, 1, 0]

    func testSocks5IPv4() {
        let request = greeting + [5, 1, 0, 1, 10, 0, 0, 7, 0x1F, 0x90]
        let result = byteAtATime(request)
        XCTAssertEqual(result.replies, [[5, 0]])
        XCTAssertEqual(result.step, .connect(SocksTarget(host: "10.0.0.7", port: 8080)))
        XCTAssertEqual(result.parser.success(), [5, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(allAtOnce(request), .connect(SocksTarget(host: "10.0.0.7", port: 8080)))
    }

    func testSocks5DomainNameWithPipelinedData() {
        let name = Array("db.internal".utf8)
        let request = greeting + [5, 1, 0, 3, UInt8(name.count)] + name + [0x15, 0x38]
        XCTAssertEqual(byteAtATime(request).step, .connect(SocksTarget(host: "db.internal", port: 5432)))
        var parser = SocksParser()
        XCTAssertEqual(parser.feed(request + Array("GET /".utf8)), .reply([5, 0]))
        XCTAssertEqual(parser.feed([UInt8]()), .connect(SocksTarget(host: "db.internal", port: 5432)))
        XCTAssertEqual(parser.leftover, Array("GET /".utf8))
    }

    func testSocks5IPv6() {
        let address: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        let request = greeting + [5, 1, 0, 4] + address + [0, 22]
        XCTAssertEqual(byteAtATime(request).step, .connect(SocksTarget(host: "0:0:0:0:0:0:0:1", port: 22)))
    }

    func testSocks4And4a() {
        let four: [UInt8] = [4, 1, 0, 80, 127, 0, 0, 1] + Array("me".utf8) + [0]
        let result = byteAtATime(four)
        XCTAssertEqual(result.step, .connect(SocksTarget(host: "127.0.0.1", port: 80)))
        XCTAssertEqual(result.parser.success(), [0, 0x5A, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(result.parser.failure(), [0, 0x5B, 0, 0, 0, 0, 0, 0])
        let fourA: [UInt8] = [4, 1, 1, 187, 0, 0, 0, 9, 0] + Array("example.org".utf8) + [0]
        XCTAssertEqual(byteAtATime(fourA).step, .connect(SocksTarget(host: "example.org", port: 443)))
    }

    func testWrongVersionIsRefusedWithoutAReply() {
        guard case .refuse(let reply, let reason) = byteAtATime([6, 1, 0]).step else { return XCTFail("not refused") }
        XCTAssertEqual(reply, [])
        XCTAssertTrue(reason.contains("version"), reason)
        guard case .refuse = allAtOnce(Array("GET / HTTP/1.1\r\n".utf8)) else { return XCTFail("HTTP is not SOCKS") }
    }

    func testUnsupportedCommandAndAddressType() {
        XCTAssertEqual(
            byteAtATime(greeting + [5, 2, 0, 1, 1, 2, 3, 4, 0, 80]).step,
            .refuse(reply: [5, 7, 0, 1, 0, 0, 0, 0, 0, 0], reason: "unsupported SOCKS command 2 (only CONNECT)"))
        XCTAssertEqual(
            byteAtATime(greeting + [5, 1, 0, 9, 1, 2, 3, 4, 0, 80]).step,
            .refuse(reply: [5, 8, 0, 1, 0, 0, 0, 0, 0, 0], reason: "unsupported address type 9"))
        guard case .refuse(let reply, _) = byteAtATime([4, 2, 0, 80, 1, 2, 3, 4, 0]).step else {
            return XCTFail("BIND accepted")
        }
        XCTAssertEqual(reply, [0, 0x5B, 0, 0, 0, 0, 0, 0])
    }

    func testNoAcceptableMethod() {
        XCTAssertEqual(
            byteAtATime([5, 1, 2]).step,
            .refuse(reply: [5, 0xFF], reason: "the client offers no method without authentication"))
    }

    func testTruncatedRequestsWaitAndNeverReadPastTheEnd() {
        let full = greeting + [5, 1, 0, 3, 20] + Array("short".utf8)
        var parser = SocksParser()
        _ = parser.feed(full)
        XCTAssertEqual(parser.feed([UInt8]()), .needMore, "a name shorter than its length byte is incomplete")
        for cut in 0..<(greeting.count + 10) {
            let request = greeting + [5, 1, 0, 1, 10, 0, 0, 7, 0x1F, 0x90]
            var partial = SocksParser()
            var step = partial.feed(request.prefix(cut))
            if case .reply = step { step = partial.feed([UInt8]()) }
            XCTAssertEqual(step, .needMore, "cut at \(cut)")
        }
    }

    func testOversizedAndMalformedInputIsRefused() {
        let endless: [UInt8] = [4, 1, 0, 80, 1, 2, 3, 4] + [UInt8](repeating: 0x41, count: 600)
        guard case .refuse = byteAtATime(endless).step else { return XCTFail("unbounded user id accepted") }
        let badName = greeting + [5, 1, 0, 3, 3, 0x61, 0x00, 0x62, 0, 80]
        guard case .refuse = byteAtATime(badName).step else { return XCTFail("NUL in a host name accepted") }
        let zeroPort = greeting + [5, 1, 0, 1, 1, 2, 3, 4, 0, 0]
        guard case .refuse = byteAtATime(zeroPort).step else { return XCTFail("port 0 accepted") }
    }
}

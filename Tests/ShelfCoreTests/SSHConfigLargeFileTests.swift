// SSHConfigLargeFileTests: a file large enough for the reader's two-core paths — lexed in two halves (over 1 MiB),
// its names resolved in two parts — reads as it does line by line: the same lines, every host in file order, and a
// Host line whose names straddle the two parts still one host with its alias; a `Host *.internal` block and
// ProxyJump on an eighth of the hosts, as the 100,000-host benchmark has them.
import Foundation
@testable import ShelfCore
import XCTest

final class SSHConfigLargeFileTests: XCTestCase {
    struct Expected: Equatable {
        var alias: String, aliases: [String], hostname: String, user: String, proxyJump: [String]
    }

    func testALargeFileReadsAndResolvesAsItsLinesDo() throws {
        let count = SSHConfigResolver.parallelThreshold * 2 + 7
        // The names are resolved in two parts of `chunk` names; the host at `straddling` has two names, the second
        // one the first of the second part.
        let chunk = (count + 1 + 1) / 2
        let straddling = chunk - 1
        var text = "Host *.internal\n    User ops\n\n"
        var expected: [Expected] = []
        for i in 0..<count {
            let isInternal = i % 16 == 5
            let name = "host-\(i)" + (isInternal ? ".internal" : "")
            let second = i == straddling ? ["\(name)-b"] : []
            text += "Host \(([name] + second).joined(separator: " "))\n    HostName \(name).example.com\n"
            if !isInternal { text += "    User u\(i % 7)\n" }
            let jump = i % 8 == 1 ? ["host-0"] : []
            if !jump.isEmpty { text += "    ProxyJump host-0\n" }
            text += "    SetEnv PAD=\(String(repeating: "x", count: 80))\n\n"
            expected.append(
                Expected(
                    alias: name, aliases: second, hostname: "\(name).example.com",
                    user: isInternal ? "ops" : "u\(i % 7)", proxyJump: jump))
        }
        XCTAssertGreaterThan(text.utf8.count, SSHConfigReader.parallelLexBytes, "lexed in two halves")

        let path = "/home/u/.ssh/config"
        let config = text
        let source = SSHConfigSource(read: { _ in config }, glob: { _ in [] }, homeDirectory: "/home/u")
        let document = try SSHConfigReader.read(path: path, source: source)
        var bytes = text
        let oneByOne = try bytes.withUTF8 { try SSHConfigReader.lexLines($0, file: path, firstNumber: 1) }
        XCTAssertEqual(document.lines.count, oneByOne.count)
        XCTAssertTrue(document.lines == oneByOne, "the halves joined are the file's lines, in order")

        let result = SSHConfigResolver.resolve(document)
        XCTAssertEqual(result.failures, [])
        let got = result.hosts.map {
            Expected(
                alias: $0.alias, aliases: $0.aliases, hostname: $0.hostname, user: $0.user, proxyJump: $0.proxyJump)
        }
        XCTAssertEqual(got.count, expected.count)
        XCTAssertTrue(
            got == expected, "first difference: \(zip(got, expected).first { $0 != $1 }.map { "\($0)" } ?? "")")
        XCTAssertEqual(result.defaults.map(\.pattern), ["*.internal"])
    }
}

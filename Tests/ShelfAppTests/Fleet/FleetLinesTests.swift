// FleetLinesTests: the two pieces that read a host's output as it arrives — `--stream`'s line splitter (each line
// whole and prefixed, a host's last unfinished line printed at its end, a line without end printed in parts) and
// `--sudo`'s prompt watch (its marker found when split across chunks, taken out of the output, the bytes that only
// looked like its start given back).
import ShelfOperations
import ShelfServices
import XCTest

final class FleetLinesTests: XCTestCase {
    func testStreamPrintsWholePrefixedLinesAndTheLastAtTheEnd() {
        var written: [(String, Int32)] = []
        let stream = FleetStream(show: { $0 }, write: { written.append((String(decoding: $0, as: UTF8.self), $1)) })
        let web = stream.host("web1")
        feed(web, "one\ntw", toStderr: false)
        feed(web, "o\nthr", toStderr: false)
        feed(web, "oops\n", toStderr: true)
        XCTAssertEqual(written.map(\.0), ["web1: one\n", "web1: two\n", "web1: oops\n"])
        XCTAssertEqual(written.map(\.1), [1, 1, 2])
        web.finish()
        XCTAssertEqual(written.last?.0, "web1: thr\n")
        web.finish()
        XCTAssertEqual(written.count, 4, "nothing twice")
    }

    func testAStreamLineWithoutEndIsPrintedInParts() {
        var written: [String] = []
        let stream = FleetStream(
            show: { $0 }, write: { bytes, _ in written.append(String(decoding: bytes, as: UTF8.self)) })
        let host = stream.host("h")
        feed(host, String(repeating: "x", count: FleetStream.longestLine * 2 + 5), toStderr: false)
        XCTAssertEqual(written.count, 2)
        XCTAssertEqual(written.first?.count, "h: ".count + FleetStream.longestLine + 1)
        host.finish()
        XCTAssertEqual(written.last, "h: xxxxx\n")
    }

    func testTheSudoMarkerIsFoundAcrossChunksAndTakenOut() {
        let marker = "[sshelf-sudo-abc] "
        var watch = PromptWatch(marker: marker)
        var output: [UInt8] = []
        var prompts = 0
        for chunk in ["before [sshelf-", "sudo-abc] after [sshe", "ll] [s"] {
            let (kept, seen) = Array(chunk.utf8).withUnsafeBytes { watch.feed($0) }
            output += kept
            prompts += seen
        }
        output += watch.finish()
        XCTAssertEqual(prompts, 1)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "before after [sshell] [s")
    }

    private func feed(_ host: FleetStream.Host, _ text: String, toStderr: Bool) {
        Array(text.utf8).withUnsafeBytes { host.feed($0, toStderr: toStderr) }
    }
}

// SSHConfigWordsTests: a line's words (the first inline, the others in an array) behave as the array they replace —
// order, count, equality and hashing whatever way they were made — and the words a large file repeats from host to
// host (key files, jump hosts) are one String each, while every host's own names and addresses are its own.
import Foundation
@testable import ShelfCore
import XCTest

final class SSHConfigWordsTests: XCTestCase {
    func testTheWordsBehaveAsAnArray() {
        let empty = SSHConfigWords()
        XCTAssertTrue(empty.isEmpty)
        XCTAssertEqual(empty.array, [])
        XCTAssertNil(empty.first)
        var words = SSHConfigWords()
        words.append("")
        XCTAssertEqual(words.array, [""], "an empty word (\"\" in the file) is a word")
        XCTAssertNotEqual(words, empty)
        words.append("b")
        words.append("c")
        XCTAssertEqual(words.count, 3)
        XCTAssertEqual(words[2], "c")
        XCTAssertEqual(words.array, ["", "b", "c"])
        XCTAssertEqual(words.joined(separator: ","), ",b,c")
        let literal: SSHConfigWords = ["", "b", "c"]
        XCTAssertEqual(literal, words)
        XCTAssertEqual(SSHConfigWords(["", "b", "c"]), words)
        XCTAssertEqual(Set([literal, words]).count, 1, "equal words hash alike")
        XCTAssertNotEqual(SSHConfigWords(["a", "b"]), SSHConfigWords(["a"]))
        XCTAssertNotEqual(SSHConfigWords(["a", "b"]), SSHConfigWords(["b", "a"]))
    }

    func testALexedLineHasItsWordsInOrder() throws {
        let line = try XCTUnwrap(
            SSHConfigLexer.lex("LocalForward 8080 \"db host\":5432 # a comment", file: "f", number: 3))
        XCTAssertEqual(line.arguments, ["8080", "db host:5432"])
        XCTAssertEqual(line.number, 3)
        XCTAssertEqual(try XCTUnwrap(SSHConfigLexer.lex("Host a", file: "f", number: 1)).arguments.array, ["a"])
    }

    func testAWordAFileRepeatsIsMadeOnceAndAHostsOwnNamesAreNot() throws {
        var text = ""
        for i in 0..<50 {
            text += "Host web-\(i)-of-many-hosts\n    HostName web-\(i).fra.prod.example.com\n"
            text += "    IdentityFile ~/.ssh/id_ed25519_production\n    ProxyJump bastion-fra-production\n"
        }
        let config = text
        let source = SSHConfigSource(read: { _ in config }, glob: { _ in [] }, homeDirectory: "/home/u")
        let lines = try SSHConfigReader.read(path: "/home/u/.ssh/config", source: source).lines
        func storage(_ key: String) -> Set<UInt> {
            Set(
                lines.filter { $0.key == key }.map { line in
                    var word = line.arguments[0]
                    return word.withUTF8 { UInt(bitPattern: $0.baseAddress) }
                })
        }
        XCTAssertEqual(storage("identityfile").count, 1, "one key file path, made once")
        XCTAssertEqual(storage("proxyjump").count, 1, "one jump host, made once")
        XCTAssertEqual(storage("host").count, 50, "each host's name is its own")
        XCTAssertEqual(storage("hostname").count, 50)
        XCTAssertEqual(
            Set(lines.filter { $0.key == "identityfile" }.map { $0.arguments[0] }), ["~/.ssh/id_ed25519_production"])
    }

    func testTheLinesOfALargeFileFitTheArrayMadeForThem() throws {
        var text = "# made by a test\n\n"
        for i in 0..<30_000 { text += "Host h\(i)\n    HostName h\(i).example.com\n\n" }
        XCTAssertGreaterThan(text.utf8.count, SSHConfigReader.parallelLexBytes, "lexed in two halves")
        var bytes = text
        let atMost = bytes.withUTF8 { SSHConfigReader.linesAtMost($0) }
        XCTAssertEqual(atMost, 60_001, "every line that is not blank (the comment too)")
        let lines = try bytes.withUTF8 { try SSHConfigReader.lexLines($0, file: "f") }
        XCTAssertEqual(lines.count, 60_000)
        XCTAssertLessThanOrEqual(lines.capacity, atMost + 64, "no room grown by doubling")
    }
}

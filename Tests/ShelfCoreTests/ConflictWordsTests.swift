// ConflictWords: a conflict's sides in words — a port conflict with a pinned host key reads as the address, port
// and the key's SHA256 fingerprint (never its base64), a set clash as "added"/"removed", a long value shortened —
// and taking a side sets exactly that field group (or adds or removes the one value of a set).
import Foundation
import ShelfCore
import XCTest

final class ConflictWordsTests: XCTestCase {
    let key = Data((0..<51).map { UInt8($0) }).base64EncodedString()

    func testAPortConflictReadsAsWordsWithTheKeyAsAFingerprint() throws {
        let text = #"{"hostname":"db.example","pinnedHostKey":{"key":"\#(key)","type":"ssh-ed25519"},"port":2222}"#
        let words = ConflictWords.side(text)
        let fingerprint = try XCTUnwrap(IdentityKeys.fingerprint(of: "ssh-ed25519 \(key)"))
        XCTAssertEqual(words, "host name \"db.example\", pinned key ssh-ed25519 \(fingerprint), port 2222")
        XCTAssertFalse(words.contains(key), "the key's base64 is not shown")
        XCTAssertEqual(ConflictWords.side(#"{"added":"postgres"}"#), "added \"postgres\"")
        XCTAssertEqual(ConflictWords.side(#""bob""#), "\"bob\"")
        XCTAssertEqual(ConflictWords.side("(deleted)"), "(deleted)")
        let long = String(repeating: "note ", count: 40)
        let shortened = ConflictWords.side(String(decoding: JSONValue.string(long).jsonBytes, as: UTF8.self))
        XCTAssertTrue(shortened.hasPrefix("\"note note note note note…\" (200 characters, sha256 "), shortened)
    }

    func testTakingASideSetsItsFieldGroup() throws {
        let body: [String: JSONValue] = [
            "name": .string("db"), "user": .string("bob"), "tags": .array([.string("a"), .string("x")]),
            "hostname": .string("old"), "port": .number(22),
        ]
        XCTAssertEqual(
            ConflictWords.taking(#""alice""#, group: "user", kind: .host, in: body)?["user"], .string("alice"))
        let endpoint = try XCTUnwrap(
            ConflictWords.taking(#"{"hostname":"new","port":2222}"#, group: "endpoint", kind: .host, in: body))
        XCTAssertEqual(endpoint["hostname"], .string("new"))
        XCTAssertEqual(endpoint["port"], .number(2222))
        XCTAssertNil(endpoint["pinnedHostKey"], "a field the side did not have is cleared with the group")
        XCTAssertEqual(
            ConflictWords.taking(#"{"removed":"x"}"#, group: "tags", kind: .host, in: body)?["tags"],
            .array([.string("a")]))
        XCTAssertEqual(
            ConflictWords.taking(#"{"added":"b"}"#, group: "tags", kind: .host, in: body)?["tags"],
            .array([.string("a"), .string("x"), .string("b")]))
        XCTAssertNil(
            ConflictWords.taking("(deleted)", group: "user", kind: .host, in: body), "a deletion is no value to take")
    }
}

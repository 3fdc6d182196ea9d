// TextHelpersTests: the FoundationEssentials stand-ins (trimming, letters and digits, padding, number formats,
// path parts) give what the Foundation calls they replace gave.
import Foundation
import XCTest
@testable import ShelfCore

final class TextHelpersTests: XCTestCase {
    func testTrimmingMatchesFoundationForEveryBlankAndLineEnd() {
        let blanks = (0...0x3000).compactMap(Unicode.Scalar.init).filter {
            CharacterSet.whitespacesAndNewlines.contains($0) || TextTrim.isSpace($0) || TextTrim.isNewline($0)
        }
        XCTAssertGreaterThan(blanks.count, 20)
        for blank in blanks {
            let text = "\(blank)\(blank) a\(blank)b \(blank)"
            XCTAssertEqual(
                text.trimmingSpaces(), text.trimmingCharacters(in: .whitespaces),
                "U+\(String(blank.value, radix: 16))")
            XCTAssertEqual(
                text.trimmingSpacesAndNewlines(), text.trimmingCharacters(in: .whitespacesAndNewlines),
                "U+\(String(blank.value, radix: 16))")
        }
        XCTAssertEqual("  ".trimmingSpaces(), "")
        XCTAssertEqual(
            " \u{301}x ".trimmingSpaces(), " \u{301}x ".trimmingCharacters(in: .whitespaces),
            "a combining mark after a blank stays, as in Foundation")
        XCTAssertEqual("== x ==".trimmingScalars(in: "= "), "x")
    }

    func testAlphanumericsMatchFoundationForEveryScalar() {
        var differing: [String] = []
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let foundation = CharacterSet.alphanumerics.contains(scalar), ours = TextTrim.isAlphanumeric(scalar)
            // Foundation's tables lack some newer scripts (Tangut, Unicode 9; most of 15.1 and later): those are ours.
            let newer = foundation == false && (scalar.properties.age.map { $0 >= (9, 0) } ?? false)
            if ours != foundation && !newer { differing.append(String(value, radix: 16)) }
        }
        XCTAssertEqual(differing, [])
        XCTAssertFalse(TextTrim.isAlphanumeric("-"))
        XCTAssertTrue(TextTrim.isAlphanumeric("ü"))
    }

    func testPaddingMatchesFoundation() {
        for (text, width) in [("web", 8), ("", 3), ("exactly", 7), ("too long", 3), ("Zürich", 9)] {
            XCTAssertEqual(text.padded(to: width), text.padding(toLength: width, withPad: " ", startingAt: 0), text)
        }
    }

    func testNumberFormatsMatchPrintf() {
        for byte in [0, 1, 0x0f, 0x10, 0xab, 0xff] as [UInt8] {
            XCTAssertEqual(TextFormat.hex(byte), String(format: "%02x", byte))
            XCTAssertEqual(TextFormat.hex(byte, width: 4), String(format: "%04x", byte))
        }
        XCTAssertEqual(TextFormat.hex(bytes: [0xde, 0xad, 0x00]), "dead00")
        for value in [0, 7, 42, 123_456, 1_234_567, -5] {
            XCTAssertEqual(TextFormat.zeroPadded(value, width: 6), String(format: "%06d", value))
        }
        XCTAssertEqual(TextFormat.zeroPadded(Int64(12), width: 10), String(format: "%010lld", Int64(12)))
        for value in [0, 0.04, 0.05, 0.96, 1, 1.44, 2.5004, 9.99, 12.345, 1023.96, 86_400.1, -0.3, -2.75] {
            XCTAssertEqual(TextFormat.fixed(value, places: 1), String(format: "%.1f", value), "\(value)")
            XCTAssertEqual(TextFormat.fixed(value, places: 2), String(format: "%.2f", value), "\(value)")
        }
    }

    func testPathPartsMatchNSString() {
        // Not "a" or "": NSString's deletingLastPathComponent traps on a relative name without a slash.
        let paths = [
            "/a/b", "/a/b/", "/a", "/", "a/b", "/home/me/.ssh/config", "/home/me/.ssh/id_ed25519.pub",
            "keys/id_rsa", ".ssh", "x.tar.gz", "/dir.d/file",
        ]
        for path in paths {
            let ns = path as NSString
            XCTAssertEqual(path.parentPath, ns.deletingLastPathComponent, "parent of '\(path)'")
            XCTAssertEqual(path.lastPathPart, ns.lastPathComponent, "last part of '\(path)'")
            XCTAssertEqual(path.removingPathExtension, ns.deletingPathExtension, "extension of '\(path)'")
            for part in ["c", "c.conf", "sub/d"] {
                XCTAssertEqual(path.appendingPathPart(part), ns.appendingPathComponent(part), "'\(path)' + '\(part)'")
            }
        }
        XCTAssertEqual("a".parentPath, "")
        XCTAssertEqual("".lastPathPart, "")
        for path in ["/a/./b/../c", "/a//b/", "~/Sync/sshelf", "/x/../../y", "/"] {
            XCTAssertEqual(
                PathText.standardized(path, home: NSHomeDirectory()), (path as NSString).standardizingPath,
                path)
        }
    }
}

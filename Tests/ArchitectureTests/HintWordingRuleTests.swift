// HintWordingRuleTests: a face words a hint from data (Hint), never by editing another layer's text. Before, the
// CLI, the TUI and the service replaced PassphraseNeed's fixed phrases inside a hint's words (a phrase that only began
// like one was cut into), and the forward runner took the face's rewrite as a `worded:` callback. This holds it: no
// code matches or rewrites text against a need's words, no error's or hint's text is rewritten by a replace call,
// and no `worded:` callback takes text.
import Foundation
import XCTest

final class HintWordingRuleTests: XCTestCase {
    /// Text searched for, or cut at, a need's (or a hint's) face-neutral words: `rest.hasPrefix($0.words)`.
    static let matchedAgainstWords = try! NSRegularExpression(
        pattern: #"\b(hasPrefix|hasSuffix|contains|firstRange|range|components|split|replacing|replacingOccurrences|"#
            + #"trimmingPrefix)\((of:\s*|separatedBy:\s*|separator:\s*)?[^)]*\.words\b"#)

    /// A replace call on an error's or a hint's text: `failure.hint?.replacingOccurrences(of:…`,
    /// `lastError.replacing(`.
    static let rewritten = try! NSRegularExpression(
        pattern: #"\b(hint|message|lastError|reason|guidance|words)\b[\w?!.]*\."#
            + #"(replacingOccurrences|replacing|replace|replaceSubrange)\("#)

    /// A face's wording handed down as a function of text: `worded: @escaping @Sendable (String) -> String`.
    static let textCallback = try! NSRegularExpression(
        pattern: #"\bworded\s*:\s*(@escaping\s+)?(@Sendable\s+)?\(\s*String\s*\)"#)

    /// The lines outside comments that match `pattern`.
    static func offending(_ pattern: NSRegularExpression, _ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            let code = line.components(separatedBy: "//").first ?? ""
            return pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil
        }
    }

    func testNoFaceWordsAHintByEditingItsText() throws {
        var found: [String] = []
        for file in try VaultDoorTests.swiftFiles(under: "Sources") {
            for pattern in [Self.matchedAgainstWords, Self.rewritten, Self.textCallback] {
                found += Self.offending(pattern, file.text).map {
                    "\(file.path): \($0.trimmingCharacters(in: .whitespaces))"
                }
            }
        }
        XCTAssertEqual(
            found, [],
            "give the hint as data (ShelfError.guidance, a Hint) and word it part by part in the face "
                + "(CLIErrorHints.words, TUIErrorLine.words, ServiceHintWords.words)")
    }

    /// The patterns find the old ways (a rule that cannot fail is a defect), and leave quoting and data alone.
    func testThePatternsFindTheOldWays() {
        XCTAssertEqual(
            Self.offending(Self.matchedAgainstWords, "if let need = needs.first(where: { rest.hasPrefix($0.words) }) {")
                .count, 1)
        XCTAssertEqual(
            Self.offending(Self.matchedAgainstWords, "    text.components(separatedBy: need.words)").count, 1)
        XCTAssertEqual(
            Self.offending(Self.rewritten, "mapped.hint = mapped.hint?.replacingOccurrences(of: \"a\", with: \"b\")")
                .count,
            1)
        XCTAssertEqual(Self.offending(Self.rewritten, "let line = rule.lastError.replacing(give, with: cli)").count, 1)
        XCTAssertEqual(
            Self.offending(
                Self.textCallback,
                "report: @escaping @Sendable (String) -> Void, worded: @escaping @Sendable (String) -> String"
            ).count, 1)
        XCTAssertEqual(
            Self.offending(Self.textCallback, "    private let worded: @Sendable (String) -> String").count, 1)
        for fine in [
            "return plain ? text : \"'\" + text.replacing(\"'\", with: \"'\\\\''\") + \"'\"",
            "public var words: String { worded { _ in nil } }",
            "log(\"forwards: \" + line.worded(by: ServiceHintWords.words)); changed()",
            "// rest.hasPrefix($0.words) in a comment",
        ] {
            for pattern in [Self.matchedAgainstWords, Self.rewritten, Self.textCallback] {
                XCTAssertEqual(Self.offending(pattern, fine), [], fine)
            }
        }
    }
}

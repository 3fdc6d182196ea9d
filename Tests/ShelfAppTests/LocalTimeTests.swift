// LocalTimeTests: `log`'s times and `--since` dates, written with C's time functions since the shipped binary has
// no DateFormatter, read and print as DateFormatter did (en_US_POSIX, the local time zone).
import Foundation
import XCTest
@testable import ShelfCLI

final class LocalTimeTests: XCTestCase {
    private func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = format
        return formatter
    }

    func testTimesPrintAsDateFormatterPrintedThem() {
        let shown = formatter("yyyy-MM-dd HH:mm:ss")
        for seconds in [0, 1_700_000_000, 1_738_310_400, 1_711_846_799, 1_711_846_800, 2_000_000_000.75] as [Double] {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(LocalTime.text(date), shown.string(from: date), "\(seconds)")
        }
    }

    func testSinceDatesReadAsDateFormatterReadThem() {
        let formats = ["yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"]
        let texts = [
            "2025-01-31", "2025-01-31T08:00", "2025-01-31T08:00:59", "2025-01-31T08:00:00Z",
            "2025-06-30T23:59:00+02:00", "2025-01-31T08:00:00-05:30", "2024-02-29",
        ]
        for text in texts {
            let expected = formats.lazy.compactMap { self.formatter($0).date(from: text) }.first
            XCTAssertNotNil(expected, text)
            XCTAssertEqual(LocalTime.parse(text), expected, text)
        }
        for bad in [
            "yesterday", "2025-13-01", "2025-01-31T", "2025-01-31 08:00", "2025-01-31T08:00:00+0200x",
            "25-01-31",
        ] {
            XCTAssertNil(LocalTime.parse(bad), bad)
        }
    }
}

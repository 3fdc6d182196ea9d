// Display: the CLI's layout of output — simple aligned tables and relative times — beside ShelfOperations'
// safe text (`Display.safe`, `Display.shortID`), which every printed record goes through.
import FoundationEssentials
import ShelfCore
import ShelfOperations
import ShelfUI

extension Display {
    /// Columns padded to the widest cell; the last column is not padded.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows.map { $0.map(safe) }
        var widths = Array(repeating: 0, count: header.count)
        for row in all {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        var out = ""
        out.reserveCapacity(all.count * 64)
        for row in all {
            var line = ""
            for (i, cell) in row.enumerated() {
                line += i == row.count - 1 ? cell : cell.padded(to: widths[i] + 2)
            }
            while line.last == " " { line.removeLast() }
            out += line + "\n"
        }
        return out
    }

    /// "1 connection", "3 connections": the TUI's agreement rule.
    static func counted<Count: BinaryInteger>(_ count: Count, _ noun: String) -> String { Counted.words(count, noun) }

    /// The same wording as the TUI ("2 min ago"), or "never".
    static func relative(_ date: Date?, now: Date = Date()) -> String {
        date.map { RelativeTime.words($0, now: now) } ?? "never"
    }
}

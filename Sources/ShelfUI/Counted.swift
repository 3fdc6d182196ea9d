// Counted: a count with its noun in agreement ("1 connection", "2 connections"), for the TUI and the CLI alike.
import FoundationEssentials

public enum Counted {
    public static func words<Count: BinaryInteger>(_ count: Count, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

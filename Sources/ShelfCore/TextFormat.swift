// TextFormat: the few number formats sshelf prints (hex bytes, zero-padded counters, fixed decimals), without
// Foundation's String(format:) — not in FoundationEssentials — and without C's printf, whose decimal point follows
// the locale the TUI sets.
public enum TextFormat {
    /// `value` (not negative) in lower-case hex with at least `width` digits (`%02x`, `%04x`).
    public static func hex(_ value: some BinaryInteger, width: Int = 2) -> String {
        zeroPadded(String(value, radix: 16), width)
    }

    /// Bytes as lower-case hex, two digits each.
    public static func hex(bytes: some Sequence<UInt8>) -> String { bytes.map { hex($0) }.joined() }

    /// `value` in decimal with at least `width` digits, zeros in front (`%06d`).
    public static func zeroPadded(_ value: some BinaryInteger, width: Int) -> String {
        value < 0 ? "-" + zeroPadded(String(value.magnitude), width - 1) : zeroPadded(String(value), width)
    }

    /// `value` rounded to `places` decimals (`%.1f`), half away from zero.
    public static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let digits = zeroPadded(String(UInt64(scaled)), places + 1)
        let sign = value < 0 && scaled > 0 ? "-" : ""
        guard places > 0 else { return sign + digits }
        return sign + digits.dropLast(places) + "." + digits.suffix(places)
    }

    private static func zeroPadded(_ digits: String, _ width: Int) -> String {
        digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

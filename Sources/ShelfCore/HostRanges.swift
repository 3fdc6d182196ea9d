// HostRanges: a list of host names folded the way clush and dshbak print them — `web-[01-03,07],db-1` — so the hosts
// under one output read at a glance instead of as two hundred names. Names are grouped by what surrounds their last
// run of digits; within a group, consecutive numbers of the same width become a range.
import FoundationEssentials

public enum HostRanges {
    /// The names folded: groups in the order their first name came, numbers in each group in ascending order. A name
    /// without digits, or with a character the notation uses (`[`, `]`, `,`), stays as it is.
    public static func fold(_ names: [String]) -> String {
        var order: [Key] = []
        var numbers: [Key: [Number]] = [:]
        var seen: Set<String> = []
        for name in names where seen.insert(name).inserted {
            guard let (key, number) = split(name) else {
                let alone = Key(prefix: name, suffix: "", alone: true)
                order.append(alone)
                continue
            }
            if numbers[key] == nil { order.append(key) }
            numbers[key, default: []].append(number)
        }
        return order.map { key in
            guard !key.alone, let found = numbers[key] else { return key.prefix }
            let sorted = found.sorted { ($0.value, $0.text.count) < ($1.value, $1.text.count) }
            guard sorted.count > 1 else { return key.prefix + sorted[0].text + key.suffix }
            return key.prefix + "[" + ranges(sorted).joined(separator: ",") + "]" + key.suffix
        }.joined(separator: ",")
    }

    /// The names folded, cut with "…" past `width` characters (a question that names the hosts of a large run).
    public static func fold(_ names: [String], within width: Int) -> String {
        let folded = fold(names)
        return folded.count <= width ? folded : String(folded.prefix(max(0, width - 1))) + "…"
    }

    private struct Key: Hashable {
        let prefix: String
        let suffix: String
        var alone = false
    }

    private struct Number {
        let text: String
        let value: UInt64
        /// "007" has a width; "7" or "10" do not (a range 9-10 is fine, 09-10 only between two-digit names).
        var padded: Bool { text.count > 1 && text.first == "0" }

        func follows(_ other: Number) -> Bool {
            guard value == other.value &+ 1 else { return false }
            return padded || other.padded ? text.count == other.text.count : true
        }
    }

    /// The name around its last run of digits, and that number; nil when it has none (or one too long to count).
    private static func split(_ name: String) -> (Key, Number)? {
        guard !name.contains(where: { $0 == "[" || $0 == "]" || $0 == "," }) else { return nil }
        let characters = Array(name)
        guard let last = characters.lastIndex(where: \.isASCIIDigit) else { return nil }
        var first = last
        while first > 0 && characters[first - 1].isASCIIDigit { first -= 1 }
        let digits = String(characters[first...last])
        guard let value = UInt64(digits) else { return nil }
        let key = Key(prefix: String(characters[..<first]), suffix: String(characters[(last + 1)...]))
        return (key, Number(text: digits, value: value))
    }

    /// Runs of consecutive numbers as "first-last" (or one number alone).
    private static func ranges(_ sorted: [Number]) -> [String] {
        var out: [String] = []
        var start = sorted[0]
        var end = sorted[0]
        for number in sorted.dropFirst() {
            if number.follows(end) {
                end = number
                continue
            }
            out.append(start.text == end.text ? start.text : start.text + "-" + end.text)
            start = number
            end = number
        }
        out.append(start.text == end.text ? start.text : start.text + "-" + end.text)
        return out
    }
}

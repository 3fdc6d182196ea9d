// NaturalOrder: the order people expect of names — `web2` before `web10`, case and accents ignored — written out,
// as the shipped binary has no ICU for Foundation's localizedStandardCompare.
public enum NaturalOrder {
    /// True when `a` sorts before `b`: runs of digits compare as numbers, other text by its search folding
    /// (lower-case, no accents); names equal that way order by fewer leading zeros, then accents, then lower case
    /// first, so the order is total and the same everywhere.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        if a == b { return false }
        if let primary = compare(HostSearch.fold(a), HostSearch.fold(b)) { return primary }
        if let accents = compare(a.lowercased(), b.lowercased()) { return accents }
        if let width = numberWidths(a, b) { return width }
        // Equal but for case: lower case first, which is the higher scalar.
        return b.unicodeScalars.lexicographicallyPrecedes(a.unicodeScalars)
    }

    /// Compares chunk by chunk (digit runs by value); nil when equal that way.
    static func compare(_ a: String, _ b: String) -> Bool? { compare(chunks(a), chunks(b)) }

    static func compare(_ x: [Chunk], _ y: [Chunk]) -> Bool? {
        for (p, q) in zip(x, y) where p != q {
            switch (p, q) {
            case (.number(let m), .number(let n)):
                if m.count != n.count { return m.count < n.count }
                if m.digits != n.digits { return m < n }
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let s), .text(let t)):
                if s != t { return s.unicodeScalars.lexicographicallyPrecedes(t.unicodeScalars) }
            }
        }
        return x.count == y.count ? nil : x.count < y.count
    }

    /// Fewer leading zeros first (`7` before `07`); nil when the digit runs are written alike.
    static func numberWidths(_ a: String, _ b: String) -> Bool? { numberWidths(chunks(a), chunks(b)) }

    static func numberWidths(_ x: [Chunk], _ y: [Chunk]) -> Bool? {
        for (p, q) in zip(x, y) {
            if case (.number(let m), .number(let n)) = (p, q), m.zeros != n.zeros { return m.zeros < n.zeros }
        }
        return nil
    }

    enum Chunk: Equatable {
        case text(String)
        case number(Number)
    }

    /// A digit run: its digits without leading zeros (compared by length, then digit by digit) and how many zeros.
    struct Number: Equatable {
        var digits: [UInt8]
        var zeros: Int
        var count: Int { digits.count }
        static func < (a: Number, b: Number) -> Bool { a.digits.lexicographicallyPrecedes(b.digits) }
    }

    static func chunks(_ text: String) -> [Chunk] {
        var out: [Chunk] = []
        var text8 = text.utf8[...]
        while let first = text8.first {
            let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
            let run = isDigit(first) ? text8.prefix(while: isDigit) : text8.prefix(while: { !isDigit($0) })
            text8 = text8[run.endIndex...]
            if isDigit(first) {
                let zeros = run.prefix(while: { $0 == 0x30 }).count
                out.append(.number(Number(digits: Array(run.dropFirst(zeros)), zeros: zeros)))
            } else {
                out.append(.text(String(decoding: run, as: UTF8.self)))  // split at ASCII digits: whole scalars
            }
        }
        return out
    }
}

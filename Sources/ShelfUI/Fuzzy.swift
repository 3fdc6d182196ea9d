// Fuzzy: the TUI's search rule — every whitespace-separated term must appear in order (not necessarily
// adjacent) in one host's searchable text; the score prefers adjacent runs, word starts and the name field.
import ShelfCore

public struct FuzzyMatch: Sendable, Equatable {
    public var score: Int
    /// Offsets into the host's searchable text (one per displayed character) that matched.
    public var positions: [Int]
}

public enum Fuzzy {
    /// Folds one character to one lower-case, accent-free scalar, so positions map 1:1 onto what is drawn.
    @inline(__always)
    public static func fold(_ ch: Character) -> UInt32 {
        if let ascii = ch.asciiValue { return UInt32(ascii >= 65 && ascii <= 90 ? ascii + 32 : ascii) }
        let folded = HostSearch.fold(String(ch))
        return (folded.unicodeScalars.first ?? ch.unicodeScalars.first ?? " ").value
    }

    public static func fold(_ text: String) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(text.utf8.count)
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in text.utf8 { out.append(UInt32(byte >= 65 && byte <= 90 ? byte + 32 : byte)) }
        } else {
            for ch in text { out.append(fold(ch)) }
        }
        return out
    }

    public static func terms(_ query: String) -> [[UInt32]] {
        query.split(whereSeparator: { $0.isWhitespace }).map { fold(String($0)) }.filter { !$0.isEmpty }
    }

    /// Matches every term against `text`; `nameEnd` is where the name field ends (matches there score more).
    public static func match(_ terms: [[UInt32]], in text: [UInt32], nameEnd: Int) -> FuzzyMatch? {
        var score = 0
        var positions: [Int] = []
        for term in terms {
            guard let found = matchTerm(term, in: text, nameEnd: nameEnd) else { return nil }
            score += found.score
            positions += found.positions
        }
        positions.sort()
        return FuzzyMatch(score: score, positions: positions)
    }

    /// Greedy forward match, then a backward pass from the end of the first match to tighten it (fzf's v1
    /// idea): cheap enough for 100,000 hosts per keystroke, and finds the compact occurrence.
    static func matchTerm(_ term: [UInt32], in text: [UInt32], nameEnd: Int) -> FuzzyMatch? {
        var ti = 0
        var end = -1
        var i = 0
        while i < text.count {
            if text[i] == term[ti] {
                ti += 1
                if ti == term.count { end = i; break }
            }
            i += 1
        }
        guard end >= 0 else { return nil }
        var positions = [Int](repeating: 0, count: term.count)
        ti = term.count - 1
        i = end
        while i >= 0 && ti >= 0 {
            if text[i] == term[ti] {
                positions[ti] = i
                ti -= 1
            }
            i -= 1
        }
        var score = 0
        for (k, p) in positions.enumerated() {
            score += 10
            if k > 0 && positions[k - 1] == p - 1 { score += 15 }
            if p == 0 || isBoundary(text[p - 1]) { score += 12 }
            if p < nameEnd { score += 6 }
        }
        score -= (positions.last! - positions.first!) - (term.count - 1)
        return FuzzyMatch(score: score, positions: positions)
    }

    @inline(__always)
    static func isBoundary(_ scalar: UInt32) -> Bool {
        scalar == 0x20 || scalar == 0x2D || scalar == 0x2E || scalar == 0x5F || scalar == 0x2F || scalar == 0x40
            || scalar == 0x2C || scalar == 0x3A || scalar == 0x1F
    }
}

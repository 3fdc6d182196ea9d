// FuzzyScore: how well one search term matches inside one field, in the fzf sense — the term's characters in
// order, not necessarily adjacent — with fzf's scoring: each matched character scores, a run of adjacent
// ones scores more, a match at the start of the field or of a word (after `-`, `.`, `/`, `@`...) scores more
// still (twice for the term's first character), gaps cost. On top, a term equal to the whole field scores
// most. Two alignments are tried: fzf's v1 (the first complete match, tightened backwards) and every
// contiguous occurrence, so `fra` in `db-fra-prod.fra.example.com` lands on a whole word. Bytes are folded
// UTF-8 (lower case, no accents); pure and allocation-free.
import FoundationEssentials
import Glibc

public enum FuzzyScore {
    static let scoreMatch: Int32 = 16
    static let scoreGapStart: Int32 = -3
    static let scoreGapExtension: Int32 = -1
    static let bonusBoundaryWhite: Int32 = 10
    static let bonusBoundaryDelimiter: Int32 = 9
    static let bonusBoundary: Int32 = 8
    static let bonusNonWord: Int32 = 8
    static let bonusCamel123: Int32 = 7
    static let bonusConsecutive: Int32 = 4
    static let bonusFirstCharMultiplier: Int32 = 2
    /// The term is the whole field: ranks above a prefix, which ranks above a word start.
    public static let bonusExact: Int32 = 32

    enum CharClass: UInt8 { case white, nonWord, delimiter, lower, number }

    @inline(__always)
    static func charClass(_ byte: UInt8) -> CharClass {
        if byte >= 0x61 && byte <= 0x7A || byte >= 0x80 || byte >= 0x41 && byte <= 0x5A { return .lower }
        if byte >= 0x30 && byte <= 0x39 { return .number }
        switch byte {
        case 0x2D, 0x5F, 0x2E, 0x2F, 0x3A, 0x2C, 0x40, 0x3B, 0x7C: return .delimiter
        case 0x20, 0x09, 0x0A, 0x0D: return .white
        default: return .nonWord
        }
    }

    @inline(__always)
    static func bonus(_ previous: CharClass, _ current: CharClass) -> Int32 {
        switch current {
        case .lower, .number:
            switch previous {
            case .white: return bonusBoundaryWhite
            case .delimiter: return bonusBoundaryDelimiter
            case .nonWord: return bonusBoundary
            case .lower: return current == .number ? bonusCamel123 : 0
            case .number: return 0
            }
        case .white: return bonusBoundaryWhite
        case .nonWord, .delimiter: return bonusNonWord
        }
    }

    /// The first `byte` in `field` at or after `from` (memchr: the scans below run at C speed).
    @inline(__always)
    static func find(_ byte: UInt8, in field: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard from < field.count, let base = field.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(byte), field.count - from) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
    }

    /// The best score of `term` in `field`, or nil when the term is not in it (in order). With `positions`,
    /// also where each term byte matched (offsets into `field`, one per term byte).
    public static func score(
        _ term: UnsafeBufferPointer<UInt8>, in field: UnsafeBufferPointer<UInt8>,
        positions: UnsafeMutablePointer<Int32>? = nil
    ) -> Int32? {
        let m = term.count
        let n = field.count
        guard m > 0, m <= n else { return nil }
        if m == 1 { return scoreOne(term[0], in: field, positions: positions) }
        // v1: the first position where the whole term has been seen, then the latest start that still fits.
        var end = -1
        var at = 0
        for k in 0..<m {
            guard let found = find(term[k], in: field, from: at) else { return nil }
            end = found
            at = found + 1
        }
        var ti = m - 1
        var start = end
        while true {
            if field[start] == term[ti] {
                if ti == 0 { break }
                ti -= 1
            }
            start -= 1
        }
        var best = scoreRange(term, field, start: start, end: end)
        var bestStart = start
        var contiguous = false
        // Every contiguous occurrence, at any word or field start, may beat the compact v1 match. None can end
        // before the v1 match does (it ends at the earliest possible place), so the search starts there.
        let first = term[0]
        var from = end - m + 1
        while from + m <= n, let p = find(first, in: field, from: from), p + m <= n {
            if memcmp(field.baseAddress! + p, term.baseAddress!, m) == 0 {
                let candidate = scoreRange(term, field, start: p, end: p + m - 1)
                if candidate > best {
                    best = candidate
                    bestStart = p
                    contiguous = true
                }
            }
            from = p + 1
        }
        if m == n && memcmp(field.baseAddress!, term.baseAddress!, m) == 0 { best += bonusExact }
        if let positions {
            if contiguous {
                for k in 0..<m { positions[k] = Int32(bestStart + k) }
            } else {
                var at = bestStart
                for k in 0..<m {
                    while field[at] != term[k] { at += 1 }
                    positions[k] = Int32(at)
                    at += 1
                }
            }
        }
        return best
    }

    /// A one-character term: its best occurrence (a field or word start beats the middle of a word).
    @inline(__always)
    static func scoreOne(_ byte: UInt8, in field: UnsafeBufferPointer<UInt8>, positions: UnsafeMutablePointer<Int32>?)
        -> Int32?
    {
        let current = charClass(byte)
        var best: Int32 = -1
        var bestAt = -1
        var from = 0
        while let i = find(byte, in: field, from: from) {
            let bonus = FuzzyScore.bonus(i > 0 ? charClass(field[i - 1]) : .white, current)
            if bonus > best {
                best = bonus
                bestAt = i
                if bonus >= bonusBoundaryWhite { break }
            }
            from = i + 1
        }
        guard bestAt >= 0 else { return nil }
        positions?[0] = Int32(bestAt)
        return scoreMatch + best * bonusFirstCharMultiplier + (field.count == 1 ? bonusExact : 0)
    }

    /// fzf's calculateScore: walks `field[start...end]` matching the term greedily from `start`.
    @inline(__always)
    static func scoreRange(
        _ term: UnsafeBufferPointer<UInt8>, _ field: UnsafeBufferPointer<UInt8>, start: Int,
        end: Int
    ) -> Int32 {
        var score: Int32 = 0
        var pi = 0
        var inGap = false
        var consecutive: Int32 = 0
        var firstBonus: Int32 = 0
        var previous = start > 0 ? charClass(field[start - 1]) : .white
        var i = start
        while i <= end {
            let byte = field[i]
            let current = charClass(byte)
            if pi < term.count && byte == term[pi] {
                score += scoreMatch
                var bonus = FuzzyScore.bonus(previous, current)
                if consecutive == 0 {
                    firstBonus = bonus
                } else {
                    if bonus >= bonusBoundary && bonus > firstBonus { firstBonus = bonus }
                    bonus = max(bonus, firstBonus, bonusConsecutive)
                }
                score += pi == 0 ? bonus * bonusFirstCharMultiplier : bonus
                inGap = false
                consecutive += 1
                pi += 1
            } else {
                score += inGap ? scoreGapExtension : scoreGapStart
                inGap = true
                consecutive = 0
                firstBonus = 0
            }
            previous = current
            i += 1
        }
        return score
    }
}

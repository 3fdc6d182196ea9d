// FuzzyScore: how well one search term matches inside one field, in the fzf sense — the term's characters in
// order, not necessarily adjacent — with fzf's scoring: each matched character scores, a run of adjacent
// ones scores more, a match at the start of the field or of a word (after `-`, `.`, `/`, `@`...) scores more
// still (twice for the term's first character), gaps cost. On top, a term equal to the whole field scores
// most. Two alignments are tried: fzf's v1 (the first complete match, tightened backwards) and every
// contiguous occurrence, so `fra` in `db-fra-prod.fra.example.com` lands on a whole word. Bytes are folded
// UTF-8 (lower case, no accents); pure and allocation-free.
import Foundation

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

    static let classes: [CharClass] = (0..<256).map { value in
        switch UInt8(value) {
        case 0x61...0x7A, 0x41...0x5A, 0x80...0xFF: .lower
        case 0x30...0x39: .number
        case 0x20, 0x09, 0x0A, 0x0D: .white
        case 0x2D, 0x5F, 0x2E, 0x2F, 0x3A, 0x2C, 0x40, 0x3B, 0x7C: .delimiter
        default: .nonWord
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

    /// The best score of `term` in `field`, or nil when the term is not in it (in order). With `positions`,
    /// also where each term byte matched (offsets into `field`, one per term byte).
    public static func score(_ term: UnsafeBufferPointer<UInt8>, in field: UnsafeBufferPointer<UInt8>,
                             positions: UnsafeMutablePointer<Int32>? = nil) -> Int32? {
        let m = term.count
        let n = field.count
        guard m > 0, m <= n else { return nil }
        // v1: the first position where the whole term has been seen, then the latest start that still fits.
        var ti = 0
        var end = -1
        var i = 0
        while i < n {
            if field[i] == term[ti] {
                ti += 1
                if ti == m {
                    end = i
                    break
                }
            }
            i += 1
        }
        guard end >= 0 else { return nil }
        ti = m - 1
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
        // Every contiguous occurrence, at any word or field start, may beat the compact v1 match.
        let first = term[0]
        var p = 0
        while p + m <= n {
            if field[p] == first {
                var k = 1
                while k < m && field[p + k] == term[k] { k += 1 }
                if k == m {
                    let candidate = scoreRange(term, field, start: p, end: p + m - 1)
                    if candidate > best {
                        best = candidate
                        bestStart = p
                        contiguous = true
                    }
                }
            }
            p += 1
        }
        if m == n && field.elementsEqual(term) { best += bonusExact }
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

    /// fzf's calculateScore: walks `field[start...end]` matching the term greedily from `start`.
    @inline(__always)
    static func scoreRange(_ term: UnsafeBufferPointer<UInt8>, _ field: UnsafeBufferPointer<UInt8>, start: Int,
                           end: Int) -> Int32 {
        var score: Int32 = 0
        var pi = 0
        var inGap = false
        var consecutive: Int32 = 0
        var firstBonus: Int32 = 0
        var previous = start > 0 ? classes[Int(field[start - 1])] : .white
        var i = start
        while i <= end {
            let byte = field[i]
            let current = classes[Int(byte)]
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

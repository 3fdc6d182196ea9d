// Suggestions: "did you mean" for a mistyped command, option or name (host, group, identity) — the known words
// closest to what was typed, by edit distance (a swap of two neighbours counts once), as the start of a longer word,
// or as the heart of one. The one rule for every "did you mean" sshelf says.
import FoundationEssentials

public enum Suggestions {
    /// The candidates close enough to `typed` to be what was meant, closest first (at most three).
    public static func closest(to typed: String, among candidates: [String]) -> [String] {
        let word = typed.lowercased()
        guard !word.isEmpty else { return [] }
        // One edit in a short word, two in a longer one: `lst` -> list, `forwrd` -> forward, but `rm` is not `mv`.
        let allowed = word.count <= 4 ? 1 : 2
        var scored: [(String, Int)] = []
        for candidate in Set(candidates) {
            let distance = editDistance(word, candidate.lowercased())
            if distance <= allowed && distance < candidate.count {
                scored.append((candidate, distance))
            } else if word.count >= 2 && candidate.lowercased().hasPrefix(word) {
                scored.append((candidate, allowed))
            } else if word.count >= 4 && candidate.lowercased().contains(word) {
                // `--name` for `--rename`: the word typed is the heart of the real one.
                scored.append((candidate, allowed + 1))
            }
        }
        return scored.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.prefix(3).map(\.0)
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }

    /// "did you mean: A, B?" or nil when nothing is close.
    public static func phrase(_ options: [String]) -> String? {
        options.isEmpty ? nil : "did you mean \(options.joined(separator: " or "))?"
    }
}

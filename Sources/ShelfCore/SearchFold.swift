// SearchFold: search's folding without ICU — lower-case and drop diacritics, so `Zürich` is found by `zurich`, the
// same as Foundation's caseInsensitive + diacriticInsensitive folding. The rule (lower-case each scalar, drop those
// that combine with the one before) covers most scalars; SearchFoldTable lists the rest, made from Foundation.
enum SearchFold {
    static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let folded = listed(scalar) {
                out.append(contentsOf: folded.unicodeScalars)
                continue
            }
            for lower in scalar.properties.lowercaseMapping.unicodeScalars
            where lower.properties.canonicalCombiningClass.rawValue == 0 {
                out.append(lower)
            }
        }
        return String(out)
    }

    /// What SearchFoldTable says `scalar` folds to, if it is listed (binary search over its sorted keys).
    static func listed(_ scalar: Unicode.Scalar) -> String? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < scalar.value { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == scalar.value ? values[low] : nil
    }
}

// TextTrim: trimming and padding text, and which scalars are letters or digits, as Foundation's `whitespaces`,
// `whitespacesAndNewlines` and `alphanumerics` sets define them — the shipped binary has FoundationEssentials
// only, which lacks them.
extension StringProtocol {
    /// Without leading and trailing spaces and tabs (Foundation's `.whitespaces`: Unicode's Zs, tab, zero-width space).
    public func trimmingSpaces() -> String { trimmingScalars(where: TextTrim.isSpace) }

    /// Without leading and trailing spaces, tabs and line ends (Foundation's `.whitespacesAndNewlines`).
    public func trimmingSpacesAndNewlines() -> String {
        trimmingScalars(where: { TextTrim.isSpace($0) || TextTrim.isNewline($0) })
    }

    /// Without the leading and trailing scalars that are among `characters`.
    public func trimmingScalars(in characters: String) -> String {
        trimmingScalars(where: { characters.unicodeScalars.contains($0) })
    }

    public func trimmingScalars(where drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = self[...].unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }), let last = scalars.lastIndex(where: { !drop($0) })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// Cut or filled with spaces to `width` characters (Foundation's `padding(toLength:withPad:" ",startingAt:0)`).
    public func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : String(self) + String(repeating: " ", count: width - count)
    }
}

public enum TextTrim {
    public static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    public static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// A letter, mark or digit of any script (Foundation's `.alphanumerics`: Unicode's L*, M* and N*, by the Unicode
    /// version of Swift's standard library, which knows scripts Foundation's older tables lack).
    public static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}

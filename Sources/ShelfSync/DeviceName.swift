// DeviceName: what a device's name in the group may hold — one line of 1 to 64 bytes with no control or format
// character (bidi overrides and isolates U+202A–U+202E and U+2066–U+2069, zero-width characters, line separators),
// which would make one device's name show as another's or reorder the text around it.
import FoundationEssentials
import ShelfCore

public enum DeviceName {
    /// Whether `scalar` may not appear in a device name.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// A forbidden character in words: `U+202E (RIGHT-TO-LEFT OVERRIDE)`.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return scalar.properties.name.map { "\(code) (\($0))" } ?? code
    }

    /// Why `name` cannot be a device's name, or nil when it can.
    public static func problem(_ name: String) -> String? {
        if let bad = name.unicodeScalars.first(where: isForbidden) {
            return "a device name cannot hold \(describe(bad)): control and format characters change how names "
                + "are shown"
        }
        guard !name.isEmpty, name.utf8.count <= Certificate.maxName else {
            return "a device name is one line of 1 to \(Certificate.maxName) bytes"
        }
        return nil
    }

    /// The machine's name made fit to name a device: forbidden characters dropped, cut to 64 bytes; "device" when
    /// nothing is left.
    public static func fitted(_ name: String) -> String {
        let kept = String(String.UnicodeScalarView(name.unicodeScalars.filter { !isForbidden($0) }))
        let clipped = Certificate.clip(kept.trimmingSpaces())
        return clipped.isEmpty ? "device" : clipped
    }
}

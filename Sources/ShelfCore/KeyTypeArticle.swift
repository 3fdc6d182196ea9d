// KeyTypeArticle: "a" or "an" before a key type as people read it, letter by letter ("an ssh-ed25519 key",
// "an ecdsa-sha2-nistp256 key", "an rsa-sha2-512 key"), so every message that names an offered key says it alike.
import FoundationEssentials

public enum KeyTypeArticle {
    /// Letters whose spoken names start with a vowel sound: "ess", "ee", "ar", "eff", "aitch", "em", "en"...
    static let vowelSounding: Set<Character> = ["a", "e", "f", "h", "i", "l", "m", "n", "o", "r", "s", "x"]

    /// "an ssh-ed25519", "a dsa-like" — the article, a space and the type.
    public static func with(_ type: String) -> String {
        guard let first = type.lowercased().first else { return "a key type" }
        return (vowelSounding.contains(first) ? "an " : "a ") + type
    }
}

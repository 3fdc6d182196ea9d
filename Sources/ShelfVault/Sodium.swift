// Sodium: process-wide libsodium initialisation; the vault issue builds the key hierarchy on top of this.
import CSodium

public enum Sodium {
    /// Initialises libsodium (idempotent, thread-safe per its docs). Returns false if the library is unusable.
    public static func initialize() -> Bool { sodium_init() >= 0 }

    public static var version: String { String(cString: sodium_version_string()) }
}

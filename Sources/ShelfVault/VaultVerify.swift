// VaultVerify: `vault verify`'s check of one item — opened under its class to test its integrity tag, the value
// dropped at once. Nothing leaves the vault, so nothing is written to the release log.
import ShelfCore

/// The state of one stored item as `verify` found it.
public enum ItemCheck: Sendable, Equatable {
    case intact
    /// Its class is locked: not checked.
    case locked
    /// Gone or moved to another class while the check ran.
    case changed
    /// Failed its integrity check, or the vault could not read it (the reason says which).
    case damaged(String)
}

extension Vault {
    /// Opens `key` under `accessibility` and says whether it is intact; the value never leaves this call.
    public func verify(_ key: ReferenceKey, class accessibility: AccessibilityClass) -> ItemCheck {
        switch read(key, class: accessibility) {
        case .found: .intact
        case .locked: .locked
        case .notStored, .storedInOtherClass: .changed
        case .vaultUnavailable(let reason): .damaged(reason)
        }
    }
}

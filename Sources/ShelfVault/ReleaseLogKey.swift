// ReleaseLogKey: the `log.key` item — 32 random bytes, device-only (afterFirstUnlockThisDeviceOnly, so the agent
// and tunnels can log too), created on first use, that the release log's chain is MAC'd with (BLAKE2b keyed).
import CSodium
import ShelfCore

/// The MAC key as read, or why it could not be.
public enum ReleaseLogKeyLookup: Sendable {
    case key(SecretBytes)
    /// No release was ever logged on this device (and `create` was false).
    case absent
    case locked
    case unavailable(String)
}

extension Vault {
    public static var releaseLogKeyClass: AccessibilityClass {
        ClassPolicy.accessibility(for: .logKey, readAt: .unattended)
    }

    /// Reads the log key, creating it when `create` and there is none. Two processes creating it at once keep
    /// whichever landed first: the write never replaces an existing key, and the value is read back after it.
    public func releaseLogKey(create: Bool) -> ReleaseLogKeyLookup {
        let accessibility = Vault.releaseLogKeyClass
        switch read(.logKey, class: accessibility) {
        case .found(let key) where key.count == Sodium.keyLength: return .key(key)
        case .found: return .unavailable("the release log key in the vault has the wrong length")
        case .locked: return .locked
        case .storedInOtherClass(let other):
            return .unavailable("the release log key is stored as \(other), not \(accessibility)")
        case .vaultUnavailable(let reason): return .unavailable(reason)
        case .notStored:
            guard create else { return .absent }
            do {
                try writeRaw(Sodium.randomKey(), key: ReferenceKey.logKey.rawValue, accessibility, replacing: false)
            } catch  where error.kind == .locked {
                return .locked
            } catch {
                return .unavailable(error.message)
            }
            return releaseLogKey(create: false)
        }
    }
}

/// BLAKE2b keyed with the log key: 32-byte MACs over the chain.
enum LogMAC {
    static let length = 32

    static func mac(key: SecretBytes, _ parts: [[UInt8]]) -> [UInt8] {
        let message = Array(parts.joined())
        var out = [UInt8](repeating: 0, count: length)
        key.withBytes { keyBytes, keyLength in
            _ = crypto_generichash(&out, length, message, UInt64(message.count), keyBytes, keyLength)
        }
        return out
    }

    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && sodium_memcmp(a, b, a.count) == 0
    }
}

// RecordingsKeyRelease: the `recordings.key` item — 32 random bytes, device-only (afterFirstUnlockThisDeviceOnly:
// a recording starts with its session, without a prompt of its own), created on the first recording. One call
// reads it, naming its class, and writes its own release-log line (which part of sshelf, for which recording or
// command) before the key is handed back; a line that cannot be written withholds the key.
import ShelfCore

/// The recordings key as read, or why it could not be.
public enum RecordingsKeyLookup: Sendable {
    case key(RecordingsKey)
    /// No recording was ever made on this device (and `create` was false).
    case absent
    case locked
    case unavailable(String)
}

extension Vault {
    public static var recordingsKeyClass: AccessibilityClass {
        ClassPolicy.accessibility(for: .recordingsKey, readAt: .unattended)
    }

    /// Reads the recordings key (creating it when `create` and there is none) and logs its release: `by` is the
    /// part of sshelf (connect, play, sessions search…), `host` and `detail` what for (the recording's id).
    public func recordingsKey(create: Bool, for by: String, host: String? = nil, detail: String? = nil)
        -> RecordingsKeyLookup
    {
        let accessibility = Vault.recordingsKeyClass
        switch read(.recordingsKey, class: accessibility) {
        case .found(let key) where key.count == Sodium.keyLength:
            let entry = ReleaseEntry(
                what: ReleaseEntry.what(.recordingsKey), item: ReferenceKey.recordingsKey.rawValue, by: by,
                host: host, detail: detail)
            do {
                try record(entry)
            } catch {
                return .unavailable("its release could not be logged: \(error.message)")
            }
            return .key(RecordingsKey(bytes: key))
        case .found: return .unavailable("the recordings key in the vault has the wrong length")
        case .locked: return .locked
        case .storedInOtherClass(let other):
            return .unavailable("the recordings key is stored as \(other), not \(accessibility)")
        case .vaultUnavailable(let reason): return .unavailable(reason)
        case .notStored:
            guard create else { return .absent }
            do {
                try writeRaw(
                    Sodium.randomKey(), key: ReferenceKey.recordingsKey.rawValue, accessibility, replacing: false)
            } catch  where error.kind == .locked {
                return .locked
            } catch {
                return .unavailable(error.message)
            }
            return recordingsKey(create: false, for: by, host: host, detail: detail)
        }
    }
}

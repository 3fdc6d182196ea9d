// StatusModel: everything the status line shows, as plain values, so the app can plug in the real sync and
// vault state and snapshot tests can render every state.
import FoundationEssentials

/// The sync side of the status line. Mirrors ShelfSync's `SyncStatus` without depending on it (ShelfUI stays pure).
public enum SyncIndicator: Sendable, Equatable {
    case off
    case syncing
    case synced(at: Date)
    case localFallback(reason: String)
}

public enum VaultIndicator: Sendable, Equatable {
    case notSetUp
    case locked
    /// Some of the classes holding items are readable here, others are not (e.g. `sshelf vault unlock` elsewhere
    /// opened the afterFirstUnlock classes, while whenUnlocked items need the passphrase in this process).
    case partlyUnlocked
    case unlocked
    /// Unlocked (the vault session of this login), locking after this many minutes without use (rounded up).
    case unlockedFor(minutes: Int)
    /// Unlocked and protected by no passphrase (the user chose convenience).
    case noPassphrase
    /// The vault could not be read; browsing goes on and the message says why.
    case broken(String)

    /// Whether `V` locks (rather than unlocks) now.
    public var isUnlocked: Bool {
        switch self {
        case .unlocked, .unlockedFor: true
        default: false
        }
    }

    public var words: String {
        switch self {
        case .notSetUp: "vault not set up"
        case .locked: "vault locked"
        case .partlyUnlocked: "vault partly unlocked"
        case .unlocked: "vault unlocked"
        case .unlockedFor(let minutes): "vault unlocked, \(minutes) min left"
        case .noPassphrase: "vault open, no passphrase"
        case .broken(let message): "vault: \(message)"
        }
    }
}

/// Something about sync the user should know beside its state, as the last run's report says it: merge conflicts
/// not looked at yet, a device waiting to be enrolled or revoked, the credential track's notice.
public struct SyncNote: Sendable, Equatable {
    public enum Weight: Sendable, Equatable { case info, warning, error }
    public var text: String
    public var weight: Weight
    public init(_ text: String, _ weight: Weight) {
        self.text = text
        self.weight = weight
    }
}

public struct StatusModel: Sendable, Equatable {
    public var sync: SyncIndicator
    public var vault: VaultIndicator
    public var syncNotes: [SyncNote]
    public init(sync: SyncIndicator = .off, vault: VaultIndicator = .notSetUp, syncNotes: [SyncNote] = []) {
        self.sync = sync
        self.vault = vault
        self.syncNotes = syncNotes
    }
}

public enum RelativeTime {
    /// "just now", "2 min ago", "3 h ago", "5 days ago".
    public static func words(_ date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86_400) days ago"
        }
    }
}

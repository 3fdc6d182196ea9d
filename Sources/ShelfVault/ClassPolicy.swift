// ClassPolicy: the one table that says which accessibility class each item family is stored with, chosen by
// when the value is read (BRIEF section 1). A test asserts every row by reading the vault file itself.
import ShelfCore

/// When a stored value will be needed — this, not how sensitive it is, picks the class.
public enum ReadMoment: String, Sendable, CaseIterable, Codable {
    /// The user is there: pressing Enter on a host, running `sshelf connect`.
    case interactive
    /// Nobody is there to type a passphrase: an autostarting forward, a background sync.
    case unattended
}

/// The kinds of item the vault holds; each matches one reference-key family.
public enum ItemFamily: String, Sendable, CaseIterable, Codable {
    case hostPassword = "host.password"
    case hostRemember = "host.remember"
    case identityPrivateKey = "identity.privkey"
    case identityPassphrase = "identity.passphrase"
    case syncKey = "sync.key"

    public init?(_ key: ReferenceKey) {
        self.init(rawValue: "\(key.owner.rawValue).\(key.secret.rawValue)")
    }
}

public enum ClassPolicy {
    public struct Row: Sendable, Equatable {
        public var family: ItemFamily
        public var moment: ReadMoment
        public var accessibility: AccessibilityClass
    }

    /// Device-only by default: nothing becomes syncable unless the user turns credential sync on.
    /// The remember gate goes with the password it guards, so both are readable at the same moments.
    public static let table: [Row] = [
        Row(family: .hostPassword, moment: .interactive, accessibility: .whenUnlockedThisDeviceOnly),
        Row(family: .hostPassword, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .hostRemember, moment: .interactive, accessibility: .whenUnlockedThisDeviceOnly),
        Row(family: .hostRemember, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .identityPrivateKey, moment: .interactive, accessibility: .whenUnlockedThisDeviceOnly),
        Row(family: .identityPrivateKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .identityPassphrase, moment: .interactive, accessibility: .whenUnlockedThisDeviceOnly),
        Row(family: .identityPassphrase, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncKey, moment: .interactive, accessibility: .afterFirstUnlockThisDeviceOnly),
    ]

    /// The class to store `family` with when it is read at `moment`.
    public static func accessibility(for family: ItemFamily, readAt moment: ReadMoment) -> AccessibilityClass {
        table.first { $0.family == family && $0.moment == moment }?.accessibility ?? .whenUnlockedThisDeviceOnly
    }

    /// Whether an item stored in `stored` can be read at `moment` (the audit's "weaker than its use" rule:
    /// a whenUnlocked item cannot be read by an autostarted tunnel).
    public static func isReadable(_ stored: AccessibilityClass, at moment: ReadMoment) -> Bool {
        switch moment {
        case .interactive: true
        case .unattended: stored.unlockScope != .thisProcess
        }
    }
}

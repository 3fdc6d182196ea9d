// ClassPolicy: the one table that says which accessibility class each item family is stored with, chosen by
// when the value is read (BRIEF section 1). A test asserts every row by reading the vault file itself.
import FoundationEssentials
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
    case syncSigningKey = "sync.signing"
    case syncGroupKey = "sync.group"
    case syncEpochKey = "sync.epoch"
    case syncInvite = "sync.invite"
    case logKey = "log.key"
    case caPrivateKey = "ca.privkey"
    case recordingsKey = "recordings.key"

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
        // Sync's own keys are read by background sync, when nobody is there to type a passphrase, and never
        // leave the device as vault items (group keys travel only sealed to an enrolled device's key).
        Row(family: .syncSigningKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncSigningKey, moment: .interactive, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncGroupKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncGroupKey, moment: .interactive, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncEpochKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncEpochKey, moment: .interactive, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncInvite, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .syncInvite, moment: .interactive, accessibility: .afterFirstUnlockThisDeviceOnly),
        // The release log is written by every process that releases a credential, the agent included.
        Row(family: .logKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .logKey, moment: .interactive, accessibility: .afterFirstUnlockThisDeviceOnly),
        // A CA's key signs when the user asks (`ca sign`) and when the agent or an unattended run renews a
        // certificate; it never leaves the device (a device secret: credential sync never takes it).
        Row(family: .caPrivateKey, moment: .interactive, accessibility: .whenUnlockedThisDeviceOnly),
        Row(family: .caPrivateKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        // A recording starts with the session, with no prompt of its own (docs/SESSIONS.md).
        Row(family: .recordingsKey, moment: .unattended, accessibility: .afterFirstUnlockThisDeviceOnly),
        Row(family: .recordingsKey, moment: .interactive, accessibility: .afterFirstUnlockThisDeviceOnly),
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
        case .unattended: stored.unlockScope != .whileActive
        }
    }

    /// A host's credentials are read unattended when it has an enabled autostart forward.
    public static func readMoment(host hostID: UUID, forwardRules: [PortForwardRule]) -> ReadMoment {
        forwardRules.contains { $0.hostID == hostID && $0.autostart && $0.enabled } ? .unattended : .interactive
    }

    /// An identity's key and passphrase are read unattended when any autostarting host uses it.
    public static func readMoment(identity identityID: UUID, hosts: [ShelfCore.Host], forwardRules: [PortForwardRule])
        -> ReadMoment
    {
        hosts.contains {
            $0.identityID == identityID && readMoment(host: $0.id, forwardRules: forwardRules) == .unattended
        }
            ? .unattended : .interactive
    }

    /// When every credential the config store can reference is read — the audit's input.
    public static func needs(hosts: [ShelfCore.Host], forwardRules: [PortForwardRule]) -> [ReferenceKey: ReadMoment] {
        var needs: [ReferenceKey: ReadMoment] = [
            .syncKey: .unattended, .logKey: .unattended, .recordingsKey: .unattended,
        ]
        func note(_ key: ReferenceKey, _ moment: ReadMoment) {
            if needs[key] != .unattended { needs[key] = moment }
        }
        for host in hosts {
            let moment = readMoment(host: host.id, forwardRules: forwardRules)
            note(.hostPassword(host.id), moment)
            note(.hostRemember(host.id), moment)
            if let identity = host.identityID {
                note(.identityPrivateKey(identity), moment)
                note(.identityPassphrase(identity), moment)
            }
        }
        return needs
    }
}

// AccessibilityClass: when a vault item may be read and whether it may leave this device (BRIEF section 1).
// Every vault read, write and delete takes one of these as a parameter with no default value.

/// Named after the iOS keychain's `kSecAttrAccessible…` values. The raw value is what the vault file stores
/// and what is bound into each item's associated data, so renaming a case is a format change.
public enum AccessibilityClass: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case whenUnlocked
    case whenUnlockedThisDeviceOnly
    case afterFirstUnlock
    case afterFirstUnlockThisDeviceOnly
    case whenPasscodeSetThisDeviceOnly
    case always
    case alwaysThisDeviceOnly

    public var description: String { rawValue }

    /// How long an unwrapped class key stays usable once the passphrase was entered.
    public enum UnlockScope: Sendable, Equatable {
        /// While the vault session is active: after an unlock in any sshelf process of this user, by every one of
        /// them, until `vault lock` or the idle timeout (refreshed on use). Without the kernel keyring, only in the
        /// process that was given the passphrase.
        case whileActive
        /// Cached in the kernel user keyring, so later processes of this user can read it until reboot,
        /// logout, `vault lock` or the keyring timeout (falls back to this process where keyctl is refused).
        case session
        /// Readable with the device key alone; refused on write.
        case anyTime
    }

    public var unlockScope: UnlockScope {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: .whileActive
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .session
        case .always, .alwaysThisDeviceOnly: .anyTime
        }
    }

    /// Whether exports and credential sync may carry items of this class.
    public var mayLeaveDevice: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock, .always: true
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly,
            .alwaysThisDeviceOnly:
            false
        }
    }

    /// `always…` items are readable without the passphrase; the vault never writes them.
    public var isRefusedOnWrite: Bool { unlockScope == .anyTime }

    /// Items of this class exist only while a vault passphrase does.
    public var needsPassphrase: Bool { self == .whenPasscodeSetThisDeviceOnly }

    /// The classes the vault creates class keys for (the `always…` pair never gets one).
    public static let writable: [AccessibilityClass] = allCases.filter { !$0.isRefusedOnWrite }
}
